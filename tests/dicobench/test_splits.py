"""Train and test stay apart: disjoint seed ranges, recorded in the card, and a build-time
refusal of any row whose base scene another split in the folder already uses."""

import importlib

import pyarrow.parquet as pq
import pytest

from dicobench import build
from dicobench.generate import SPLITS, sample_seed, seed_range
from dicobench.kit.errors import UserError
from dicobench.schema import TASKS


def _sources(out, split):
    return {s for f in out.glob(f"*/{split}-*.parquet")
            for s in pq.read_table(f, columns=["source"]).column("source").to_pylist()}


def test_split_seed_ranges_are_disjoint_and_used():
    ranges = [seed_range(s) for s in SPLITS]
    assert all(r.start >= 0 and r.stop <= 2**63 for r in ranges)  # fits the int64 `seed` column
    assert all(a.stop <= b.start or b.stop <= a.start for a in ranges for b in ranges if a is not b)
    for split in SPLITS:
        seeds = [sample_seed(root, split, t, i, a) for root in (0, 7) for t in TASKS for i in range(20)
                 for a in range(2)]
        assert all(s in seed_range(split) for s in seeds) and len(set(seeds)) == len(seeds)


def test_train_beside_test_shares_no_base_scene_and_the_card_records_ranges(tmp_path):
    out = build(tmp_path / "b", per_task=2, tasks="attribute", num_proc=1, progress=False)
    build(out, per_task=3, tasks="attribute", split="train", num_proc=1, progress=False)
    test, train = _sources(out, "test"), _sources(out, "train")
    assert len(test) == 2 and len(train) == 3 and not test & train
    card = (out / "README.md").read_text()
    for split in SPLITS:
        r = seed_range(split)
        assert f"## Split `{split}`" in card and f"[{r.start}, {r.stop})" in card


def test_a_train_split_reusing_a_test_base_scene_is_refused(tmp_path, monkeypatch):
    out = build(tmp_path / "b", per_task=2, tasks="entity", num_proc=1, progress=False)
    generate = importlib.import_module("dicobench.generate")
    monkeypatch.setattr(generate, "SPLITS", {"test": 0, "train": 0})  # train would draw test's seeds
    with pytest.raises(UserError, match="splits must not share a base scene"):
        build(out, per_task=2, tasks="entity", split="train", num_proc=1, progress=False)
    assert not list(out.rglob("train-*")) and not list(out.rglob("*.partial"))  # nothing published
