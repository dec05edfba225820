"""MultipanelVQA train beside test: own image-set range, fresh sets per pass over the layouts,
and a refusal of any row whose panel images another split in the folder uses."""

import importlib

import pytest
from datasets import load_dataset

from dicobench.kit.errors import UserError
from multipanelvqa.build import build
from multipanelvqa.generate import SPLITS, set_range

OPTIONS = dict(layouts="6", sources="procedural_edit", configs="original", num_proc=1, progress=False)


def _panels(ds):
    return {s["source_id"] for subs in ds["subfigures"] for s in subs}


def test_train_beside_test_loads_and_shares_no_image(tmp_path):
    out = build(tmp_path / "m", **OPTIONS)
    build(out, split="train", images=3, **OPTIONS)  # one layout, three passes
    test = load_dataset(str(out), "original", split="test")
    train = load_dataset(str(out), "original", split="train")
    assert len(test) == 3 and len(train) == 9 and len(set(train["id"])) == 9
    assert not _panels(test) & _panels(train)
    targets = {subs[0]["source_id"] for subs in train["subfigures"]}
    assert len(targets) == 3  # every pass fills the layout from a fresh image set
    card = (out / "README.md").read_text()
    for split in SPLITS:
        r = set_range(split)
        assert f"## Synthetic images: split `{split}`" in card and f"[{r.start}, {r.stop})" in card


def test_a_train_split_reusing_a_test_image_set_is_refused(tmp_path, monkeypatch):
    out = build(tmp_path / "m", **OPTIONS)
    generate = importlib.import_module("multipanelvqa.generate")
    monkeypatch.setattr(generate, "SPLITS", {"test": 0, "train": 0})  # train would draw test's sets
    with pytest.raises(UserError, match="splits must not share a base image set"):
        build(out, split="train", **OPTIONS)
    assert not list(out.rglob("train-*")) and not list(out.rglob("*.partial"))


def test_train_needs_procedural_sources(tmp_path):
    with pytest.raises(UserError, match="need procedural sources"):
        build(tmp_path / "m", split="train", **{**OPTIONS, "sources": "vqav2"})
