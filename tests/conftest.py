import shutil

import numpy as np
import pytest

from dicobench.build import build


@pytest.fixture(scope="session")
def small_build(tmp_path_factory):
    """A tiny DiCoBench build shared by the tests that only read it (2 rows per task)."""
    out = tmp_path_factory.mktemp("dicobench") / "bench"
    build(out, per_task=2, seed=0, num_proc=1, progress=False)
    return out


@pytest.fixture
def build_copy(small_build, tmp_path):
    """A private copy of the shared tiny build, for tests that write into it."""
    out = tmp_path / "bench"
    shutil.copytree(small_build, out)
    return out


@pytest.fixture
def hub_repo(small_build, monkeypatch):
    """The repo id "someone/dicobench", which `datasets.load_dataset` serves from `small_build` (no
    network in tests); returns the list of the paths it was asked for."""
    import datasets

    load = datasets.load_dataset
    asked = []

    def hub(path, *args, **kwargs):
        asked.append(path)
        return load(str(small_build) if path == "someone/dicobench" else path, *args, **kwargs)

    monkeypatch.setattr(datasets, "load_dataset", hub)
    return asked


@pytest.fixture
def rng():
    return np.random.default_rng(1234)


@pytest.fixture(autouse=True)
def fresh_datasets_cache(tmp_path, monkeypatch):
    """`datasets` keys its cache of local Parquet folders on relative paths and mtimes, which
    can collide between folders built in the same second; each test gets its own cache."""
    import datasets

    monkeypatch.setattr(datasets.config, "HF_DATASETS_CACHE", tmp_path / "hf_cache")
    # and its own judge/LLM reply cache, so no test sees replies cached by an earlier run
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg_cache"))
