"""The `datasets` builder: its configs are `dicobench.BuildConfig`s, its rows those of a build."""

import pytest
from datasets import load_dataset

from dicobench.build_config import BuildConfig
from dicobench.datasets_builder import DiCoBench
from dicobench.generate import row_id
from dicobench.kit.errors import UserError
from dicobench.schema import TASKS


def test_builder_configs_are_build_configs():
    assert [c.name for c in DiCoBench.BUILDER_CONFIGS] == [*TASKS, "all"]
    assert all(isinstance(c, BuildConfig) for c in DiCoBench.BUILDER_CONFIGS)
    assert DiCoBench.BUILDER_CONFIGS[1].tasks == "entity" and DiCoBench.BUILDER_CONFIGS[-1].tasks is None


def test_builder_class_matches_the_built_folder(tmp_path, small_build):
    builder = DiCoBench(config_name="entity", per_task=2, cache_dir=str(tmp_path / "cache"))
    builder.download_and_prepare()
    ds = builder.as_dataset(split="test")
    built = load_dataset(str(small_build), "entity", split="test")
    assert ds.features == built.features
    assert ds["id"] == built["id"] and ds["options"] == built["options"] and ds["answer"] == built["answer"]
    assert ds[1]["image_b"].tobytes() == built[1]["image_b"].tobytes()
    train = builder.as_dataset(split="train")
    assert train["id"] == [row_id("entity", "train", 0, i) for i in range(2)]
    assert set(train["source"]).isdisjoint(ds["source"])


def test_builder_refuses_a_bad_config_in_one_line(tmp_path):
    with pytest.raises(UserError, match="--per-task must be a positive integer"):
        DiCoBench(config_name="entity", per_task=0, cache_dir=str(tmp_path / "cache")).download_and_prepare()
    with pytest.raises(UserError, match="use dicobench build for"):
        DiCoBench(config_name="entity", source="folder:x", editor="diffusers:m", instructions="openai:m",
                  cache_dir=str(tmp_path / "cache")).download_and_prepare()


def test_the_cache_name_never_holds_a_key(tmp_path):
    def cache(**kwargs):
        return DiCoBench(config_name="entity", cache_dir=str(tmp_path), **kwargs).cache_dir

    assert "sk-short" not in cache(api_key="sk-short") and cache(api_key="sk-a") == cache(api_key="sk-b")
    assert cache(per_task=2) != cache(per_task=3)
