import datasets
import pytest

from dicobench.kit.io.shards import ShardWriter, complete_shard, file_digest, shard_name, shard_ranges


def _features():
    return datasets.Features({"id": datasets.Value("string"), "label": datasets.ClassLabel(names=["A", "B"])})


def test_shard_is_published_only_when_closed(tmp_path):
    path = tmp_path / "cfg" / shard_name("test", 0, 1)
    writer = ShardWriter(path, _features(), row_group_size=2)
    for i in range(5):
        writer.write({"id": str(i), "label": "B"})
    assert not path.exists()  # still partial
    writer.close(sidecar={"rows": 5})
    assert path.exists() and complete_shard(path, 5) == {"rows": 5, "sha256": file_digest(path)}  # the bytes published
    assert complete_shard(path, 6) is None  # wrong row count: rebuild
    ds = datasets.load_dataset("parquet", data_files=str(path), split="train")
    assert ds.features == _features() and ds["label"] == [1] * 5


def test_aborted_shard_leaves_nothing(tmp_path):
    path = tmp_path / shard_name("test", 0, 1)
    writer = ShardWriter(path, _features())
    writer.write({"id": "x", "label": "A"})
    writer.abort()
    assert list(tmp_path.iterdir()) == []


def test_ranges_and_names():
    assert [len(r) for r in shard_ranges(10, 4)] == [4, 4, 2]
    assert shard_name("test", 1, 3) == "test-00001-of-00003.parquet"
    with pytest.raises(ZeroDivisionError):
        shard_ranges(10, 0)
