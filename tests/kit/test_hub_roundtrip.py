"""Push a rebuilt split to a fake Hub (a folder) and load the result with `load_dataset`."""

import hashlib

from datasets import load_dataset

from dicobench import build
from dicobench.kit.release.hub import push_folder
from tests.kit.test_hub import fake_hub  # noqa: F401  (the fixture: HfApi backed by a folder)

REPO = "org/dicobench-train"


def _digests(folder, split):
    return {p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in folder.glob(f"*/{split}-*.parquet")}


def _build(out, split, seed=0, **kw):
    return build(out, per_task=2, tasks="attribute,instance", split=split, seed=seed, num_shards=2, num_proc=1,
                 progress=False, **kw)


def test_push_of_a_rebuilt_split_keeps_the_others_and_loads(tmp_path, fake_hub):
    local = _build(tmp_path / "local", "test")
    _build(local, "train")
    push_folder(local, REPO)
    repo = fake_hub.root / REPO
    pushed_test = _digests(repo, "test")
    assert pushed_test == _digests(local, "test") and len(pushed_test) == 4  # 2 tasks x 2 fixed shards

    _build(local, "train", seed=1, overwrite=True)  # a rebuilt train split, other rows
    push_folder(local, REPO, split="train")
    assert _digests(repo, "test") == pushed_test
    assert _digests(repo, "train") == _digests(local, "train")
    for split in ("test", "train"):
        from_hub = load_dataset(str(repo), "all", split=split)
        assert from_hub["id"] == load_dataset(str(local), "all", split=split)["id"] and len(from_hub) == 4
    assert all("-s1-" in i for i in load_dataset(str(repo), "instance", split="train")["id"])


def test_a_rebuild_gives_the_same_shard_names_and_bytes(tmp_path):
    """Unchanged shards deduplicate on upload (same content hash at the same path)."""
    assert _digests(_build(tmp_path / "a", "test"), "test") == _digests(_build(tmp_path / "b", "test"), "test")
