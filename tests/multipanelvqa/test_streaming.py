"""What `build` writes streams with `load_dataset(..., streaming=True)`, typed, into a DataLoader."""

import numpy as np
import pytest
from datasets import load_dataset
from PIL import Image

from multipanelvqa.build import build as build_multipanel

torch = pytest.importorskip("torch")


def _collate(rows):
    """README's training-loop collate: both images of a pair as one small tensor, plus labels."""
    pairs = [np.stack([np.asarray(r[k].convert("RGB").resize((64, 64))) for k in ("image_a", "image_b")])
             for r in rows]
    return {"images": torch.from_numpy(np.stack(pairs)), "answer": torch.tensor([r["answer"] for r in rows]),
            "id": [r["id"] for r in rows]}


def test_dicobench_streams_typed_and_equal_to_the_loaded_split(small_build):
    stream = load_dataset(str(small_build), "attribute", split="test", streaming=True)
    rows = list(stream)
    loaded = load_dataset(str(small_build), "attribute", split="test")
    assert [r["id"] for r in rows] == loaded["id"] and len(rows) == 2
    assert isinstance(rows[0]["image_a"], Image.Image) and isinstance(rows[0]["answer"], int)
    assert stream.features == loaded.features


def test_a_streamed_split_feeds_a_dataloader_with_every_row_once(small_build):
    stream = load_dataset(str(small_build), "all", split="test", streaming=True)
    assert stream.num_shards == 8  # one Parquet file per task: DataLoader workers split them
    loader = torch.utils.data.DataLoader(stream, batch_size=4, collate_fn=_collate, num_workers=2)
    ids = []
    for batch in loader:
        assert batch["images"].shape[1:] == (2, 64, 64, 3) and batch["answer"].dtype == torch.int64
        ids += batch["id"]
    assert sorted(ids) == sorted(load_dataset(str(small_build), "all", split="test")["id"])


def test_multipanelvqa_streams(tmp_path):
    out = build_multipanel(tmp_path / "m", layouts="6", sources="procedural_edit", configs="original", num_proc=1,
                           progress=False)
    rows = list(load_dataset(str(out), "all", split="test", streaming=True))
    assert len(rows) == 3 and rows[0]["image"].size == (1000, 1000) and rows[0]["question_type"] == 0
