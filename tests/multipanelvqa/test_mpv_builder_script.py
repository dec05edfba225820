"""The MultipanelVQA `datasets` builder: its configs are `multipanelvqa.BuildConfig`s, its rows those of a build."""

import pytest
from datasets import load_dataset

from dicobench.kit.errors import UserError
from multipanelvqa.build import build
from multipanelvqa.build_config import BuildConfig
from multipanelvqa.datasets_builder import MultipanelVQA
from multipanelvqa.generate import SYNTHETIC_CONFIGS

TINY = dict(layouts="6", sources="procedural_edit", difficulty="easy")


def test_builder_configs_are_build_configs():
    assert [c.name for c in MultipanelVQA.BUILDER_CONFIGS] == [*SYNTHETIC_CONFIGS, "all"]
    assert all(isinstance(c, BuildConfig) for c in MultipanelVQA.BUILDER_CONFIGS)
    assert MultipanelVQA.BUILDER_CONFIGS[0].config_list() == ["original"]


def test_builder_class_matches_the_built_folder(tmp_path):
    builder = MultipanelVQA(config_name="chessboard", **TINY, cache_dir=str(tmp_path / "cache"))
    builder.download_and_prepare()
    ds = builder.as_dataset(split="test")
    built = load_dataset(str(build(tmp_path / "mpv", **TINY, configs="chessboard", num_proc=1, progress=False)),
                         "chessboard", split="test")
    assert ds.features == built.features and len(ds) == 3
    assert ds["id"] == built["id"] and ds["answer"] == built["answer"] and ds["question"] == built["question"]
    assert ds[0]["image"].tobytes() == built[0]["image"].tobytes()
    train = builder.as_dataset(split="train")
    assert len(train) == 3 and not set(train["id"]) & set(ds["id"])
    panels = lambda rows: {s["source_id"] for subs in rows["subfigures"] for s in subs}  # noqa: E731
    assert panels(train).isdisjoint(panels(ds))


def test_builder_refuses_a_bad_config_in_one_line(tmp_path):
    with pytest.raises(UserError, match="unknown source 'flickr'"):
        MultipanelVQA(config_name="original", sources="flickr", cache_dir=str(tmp_path / "c")).download_and_prepare()
    with pytest.raises(UserError, match="use multipanelvqa build for"):
        MultipanelVQA(config_name="original", questions="openai:m",
                      cache_dir=str(tmp_path / "c")).download_and_prepare()


def test_the_cache_name_never_holds_a_key(tmp_path):
    def cache(**kwargs):
        return MultipanelVQA(config_name="original", cache_dir=str(tmp_path), **kwargs).cache_dir

    assert "sk-short" not in cache(llm_api_key="sk-short") and cache(llm_api_key="sk-a") == cache(llm_api_key="sk-b")
    assert cache(layouts="6") != cache(layouts="7")
