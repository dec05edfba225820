import importlib
import json

import pytest
from datasets import ClassLabel, Image, load_dataset

from dicobench import build
from dicobench.kit.errors import UserError
from dicobench.schema import DIFFERENCE_TASKS, LETTERS, TASKS


def test_build_loads_typed_with_every_config(small_build):
    for config in DIFFERENCE_TASKS:
        ds = load_dataset(str(small_build), config, split="test")
        assert len(ds) == 2 and set(ds["task"]) == {DIFFERENCE_TASKS.index(config)}
        assert isinstance(ds.features["image_a"], Image) and isinstance(ds.features["answer"], ClassLabel)
        row = ds[0]
        assert row["image_a"].mode == "RGB" and 1600 <= max(row["image_a"].size) <= 2048
        assert len(row["options"]) == 5 and row["seed"] > 0
    everything = load_dataset(str(small_build), "all", split="test")
    assert len(everything) == 2 * len(TASKS)
    assert len(set(everything["id"])) == len(everything)


def test_card_reports_counts_and_licences(small_build):
    card = (small_build / "README.md").read_text()
    assert "config_name: all" in card and "default: true" in card
    assert "| attribute | 2 |" in card and "Font Awesome" in card and "CC BY 4.0" in card
    assert "Image long side: mean" in card


def _shard_bytes(out):
    return {p.relative_to(out): p.read_bytes() for p in sorted(out.glob("*/test-*.parquet"))}


def test_interrupted_build_resumes_to_the_same_bytes(tmp_path, monkeypatch):
    generate_module = importlib.import_module("dicobench.generate")  # where shard_rows finds it

    reference = build(tmp_path / "ref", per_task=3, tasks="attribute", num_proc=1, rows_per_shard=2, progress=False)
    calls = {"n": 0}
    real = generate_module.generate_row

    def flaky(*args, **kwargs):
        calls["n"] += 1
        if calls["n"] == 3:  # dies inside the second shard
            raise KeyboardInterrupt
        return real(*args, **kwargs)

    monkeypatch.setattr(generate_module, "generate_row", flaky)
    out = tmp_path / "run"
    with pytest.raises(KeyboardInterrupt):
        build(out, per_task=3, tasks="attribute", num_proc=1, rows_per_shard=2, progress=False)
    files = sorted(p.name for p in (out / "attribute").iterdir())
    assert files == [".stats", "test-00000-of-00002.parquet"]  # first shard kept, no partial file
    monkeypatch.setattr(generate_module, "generate_row", real)
    build(out, per_task=3, tasks="attribute", num_proc=1, rows_per_shard=2, progress=False)
    assert _shard_bytes(out) == _shard_bytes(reference)


def test_parallel_build_gives_the_same_bytes(tmp_path):
    one = build(tmp_path / "one", per_task=2, tasks="spatial_relation", num_proc=1, progress=False)
    two = build(tmp_path / "two", per_task=2, tasks="spatial_relation", num_proc=2, progress=False)
    assert _shard_bytes(one) == _shard_bytes(two)


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"per_task": 0}, "positive"),
        ({"tasks": "colour"}, "unknown task"),
        ({"split": "dev"}, "unknown split"),
        ({"source": "s3:x"}, "unknown source"),
        ({"source": "folder:no-such-folder"}, "does not exist"),
        ({"num_proc": 0}, "num-proc"),
    ],
)
def test_bad_options_are_user_errors(tmp_path, kwargs, message):
    with pytest.raises(UserError, match=message):
        build(tmp_path / "x", **{"progress": False, **kwargs})


def test_refuses_foreign_or_different_folders(tmp_path, small_build):
    (tmp_path / "notes.txt").write_text("mine")
    with pytest.raises(UserError, match="not empty"):
        build(tmp_path, per_task=1, progress=False)
    with pytest.raises(UserError, match="other options"):
        build(small_build, per_task=5, progress=False)


def test_overwrite_replaces_a_build(tmp_path):
    out = build(tmp_path / "b", per_task=1, tasks="entity", num_proc=1, progress=False)
    build(out, per_task=2, tasks="entity", num_proc=1, overwrite=True, progress=False)
    manifest = json.loads((out / ".dicobench" / "test.json").read_text())
    assert manifest["per_task"] == 2
    assert len(load_dataset(str(out), "entity", split="test")) == 2


def test_letters_are_balanced_in_a_build(tmp_path):
    out = build(tmp_path / "b", per_task=5, tasks="entity", num_proc=2, progress=False)
    answers = load_dataset(str(out), "entity", split="test")["answer"]
    assert sorted(answers) == list(range(len(LETTERS)))


def test_build_from_a_photo_folder(tmp_path):
    pytest.importorskip("cv2")
    data = pytest.importorskip("skimage.data")
    from PIL import Image as PILImage

    photos = tmp_path / "photos"
    photos.mkdir()
    for name in ("astronaut", "coffee", "chelsea"):
        PILImage.fromarray(getattr(data, name)()).save(photos / f"{name}.png")
    (photos / "broken.png").write_bytes(b"\x89PNG\r\n\x1a\nnot really")
    with pytest.raises(UserError, match="not available from this source"):
        build(tmp_path / "x", source=f"folder:{photos}", tasks="instance", progress=False)
    out = build(tmp_path / "b", source=f"folder:{photos}", per_task=1, upscale=True, num_proc=1, progress=False)
    ds = load_dataset(str(out), "all", split="test")
    assert sorted(set(ds["task"])) == [DIFFERENCE_TASKS.index(t) for t in DIFFERENCE_TASKS]
    assert all(s.startswith("folder:") and "broken" not in s for s in ds["source"])
    assert all(max(img.size) == 1024 for img in ds["image_a"])
