"""`--engine ray` (a local Ray, 2 CPUs, no dashboard) gives what the local engine gives, byte
for byte, card included, and keeps the train/test check; without Ray it says how to get it."""

import hashlib
import shutil
import sys

import pyarrow.parquet as pq
import pytest

from dicobench import build
from dicobench.cli.main import main
from dicobench.kit.engines.local import check_engine
from dicobench.kit.errors import UserError
from multipanelvqa.build import build as build_multipanel


@pytest.fixture(scope="module")
def local_ray():
    ray = pytest.importorskip("ray")
    pytest.importorskip("ray.data")
    ray.init(num_cpus=2, include_dashboard=False, logging_level="WARNING")
    yield ray
    ray.shutdown()


def _row_digests(folder) -> dict[str, list[str]]:
    """sha256 of every row (all columns, image bytes included), per shard path."""
    return {
        p.relative_to(folder).as_posix(): [hashlib.sha256(repr(sorted(r.items())).encode()).hexdigest()
                                           for r in pq.read_table(p).to_pylist()]
        for p in sorted(folder.glob("*/*.parquet"))
    }


def _same_build(local, ray_out):
    assert _row_digests(local) == _row_digests(ray_out) and _row_digests(local)
    assert (local / "README.md").read_text() == (ray_out / "README.md").read_text()
    for shard in local.glob("*/*.parquet"):  # file bytes too: same writer, same row groups
        assert (ray_out / shard.relative_to(local)).read_bytes() == shard.read_bytes()


def test_dicobench_ray_equals_local(tmp_path, local_ray):
    options = dict(per_task=2, tasks="attribute,instance", split="train", rows_per_shard=1, progress=False)
    _same_build(build(tmp_path / "local", num_proc=1, **options), build(tmp_path / "ray", engine="ray", **options))


def test_multipanelvqa_ray_equals_local(tmp_path, local_ray):
    options = dict(layouts="6,7", sources="procedural_edit", configs="original,captions", images_per_shard=1,
                   progress=False)
    _same_build(build_multipanel(tmp_path / "local", num_proc=1, **options),
                build_multipanel(tmp_path / "ray", engine="ray", **options))


def test_ray_workers_refuse_a_train_split_sharing_test_scenes(tmp_path, local_ray, capsys):
    donor = build(tmp_path / "donor", per_task=1, tasks="entity", split="train", num_proc=1, progress=False)
    out = tmp_path / "out"
    (out / ".dicobench").mkdir(parents=True)
    (out / "entity").mkdir()
    shutil.copy(next(donor.glob("entity/train-*.parquet")), out / "entity" / "test-00000-of-00001.parquet")
    rc = main(["build", "--out", str(out), "--per-task", "1", "--tasks", "entity", "--split", "train", "--engine",
               "ray", "--quiet"])
    err = capsys.readouterr().err.strip()
    assert rc == 2 and "splits must not share a base scene" in err and err.count("\n") == 0
    assert not list(out.rglob("train-*"))


def test_engine_ray_without_ray_says_how_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "ray", None)  # import ray now raises ImportError
    with pytest.raises(UserError, match=r"pip install 'dicobench\[scale\]'"):
        check_engine("ray", None)
    with pytest.raises(UserError, match="needs --engine ray"):
        check_engine("local", "auto")
