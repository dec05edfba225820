"""Builds write through fsspec: an fsspec URL (here `memory://`) gets the same files as a local
folder, loads once copied out, and resumes a lost shard to the same bytes."""

import fsspec
import pytest
from datasets import load_dataset

from dicobench import build
from multipanelvqa.build import build as build_multipanel

OPTIONS = dict(per_task=1, tasks="attribute", num_proc=1, progress=False)


@pytest.fixture
def memory():
    fs = fsspec.filesystem("memory")
    yield fs
    if fs.exists("/bucket"):
        fs.rm("/bucket", recursive=True)


def _files(fs, root):
    return {p[len(root) + 1:]: fs.cat_file(p) for p in fs.find(root)}


def test_dicobench_to_memory_url_matches_a_local_build_and_loads(tmp_path, memory):
    url = build("memory://bucket/dico", **OPTIONS)
    local = build(tmp_path / "local", **OPTIONS)
    remote = _files(memory, "/bucket/dico")
    expected = {str(p.relative_to(local)): p.read_bytes() for p in local.rglob("*") if p.is_file()}
    assert url == "memory:///bucket/dico" and remote == expected
    assert {"README.md", "attribute/test-00000-of-00001.parquet", "attribute/.stats/test-00000-of-00001.parquet.json",
            ".dicobench/test.json"} <= remote.keys()
    assert not [k for k in remote if k.endswith(".partial")]
    copy = tmp_path / "copy"
    memory.get("/bucket/dico", str(copy), recursive=True)
    ds = load_dataset(str(copy), "all", split="test")
    assert len(ds) == 1 and ds[0]["id"].startswith("attribute-test-")


def test_resume_on_memory_url_rebuilds_a_lost_shard_to_the_same_bytes(memory):
    build("memory://bucket/dico", **{**OPTIONS, "per_task": 2, "rows_per_shard": 1})
    before = _files(memory, "/bucket/dico")
    lost = "/bucket/dico/attribute/test-00001-of-00002.parquet"
    memory.rm(lost)
    build("memory://bucket/dico", **{**OPTIONS, "per_task": 2, "rows_per_shard": 1})
    assert _files(memory, "/bucket/dico") == before


def test_a_shard_without_its_sidecar_is_rebuilt(memory):
    build("memory://bucket/dico", **OPTIONS)
    side = "/bucket/dico/attribute/.stats/test-00000-of-00001.parquet.json"
    stats = memory.cat_file(side)
    memory.rm(side)  # as if the move of the shard ran but the sidecar was lost
    build("memory://bucket/dico", **OPTIONS)
    assert memory.cat_file(side) == stats


def test_multipanelvqa_to_memory_url(tmp_path, memory):
    opts = dict(layouts="6", sources="procedural_edit", configs="original", num_proc=1, progress=False)
    url = build_multipanel("memory://bucket/mpv", **opts)
    local = build_multipanel(tmp_path / "mpv", **opts)
    remote = _files(memory, "/bucket/mpv")
    assert url == "memory:///bucket/mpv"
    assert remote == {str(p.relative_to(local)): p.read_bytes() for p in local.rglob("*") if p.is_file()}
