import io
import json

import numpy as np
import pytest
from PIL import Image

skdata = pytest.importorskip("skimage.data")
pytest.importorskip("cv2")

from dicobench.checks import Reason, Rejected, check_difference_pair  # noqa: E402
from dicobench.generate import (
    BuildOptions,  # noqa: E402
    row_from_seed,  # noqa: E402
)
from dicobench.kit.io.imageio import decode  # noqa: E402
from dicobench.kit.photos.model import SizePolicy  # noqa: E402
from dicobench.kit.photos.sources import FolderSource  # noqa: E402
from dicobench.schema import DIFFERENCE_TASKS, NONE_OPTIONS  # noqa: E402

OPTS = BuildOptions()


def png(pixels) -> bytes:
    buf = io.BytesIO()
    Image.fromarray(pixels).save(buf, format="PNG")
    return buf.getvalue()


@pytest.fixture(scope="module")
def source(tmp_path_factory):
    root = tmp_path_factory.mktemp("photos")
    (root / "astronaut.png").write_bytes(png(skdata.astronaut()))
    (root / "coffee.png").write_bytes(png(skdata.coffee()))
    # coffee's annotations (in its own 600x400 pixels): small named things
    (root / "annotations.jsonl").write_text(json.dumps({"file": "coffee.png", "objects": [
        {"name": "spoon handle", "box": [215, 248, 24, 18]}, {"name": "saucer rim", "box": [40, 300, 30, 20]},
        {"name": "cup rim", "box": [176, 110, 40, 30]}, {"name": "coffee", "box": [330, 180, 40, 40]}]}))
    return FolderSource(root, SizePolicy(1024, upscale=True))


def first_row(task, letter, source, seeds=range(30), want=lambda row: True):
    for seed in seeds:
        try:
            row, long_side = row_from_seed(task, seed, letter, OPTS, source)
        except Rejected:
            continue
        if want(row):
            return seed, row, long_side
    pytest.fail(f"no {task} row from photos in {len(seeds)} seeds")


@pytest.mark.parametrize("task", DIFFERENCE_TASKS)
def test_photo_rows_are_checked_and_independent_of_the_letter(task, source):
    seed, row, long_side = first_row(task, "A", source)
    assert long_side == 1024 and row["source"].startswith("folder:")
    assert row["task"] == task and row["answer"] == "A" and row["options"][4] == NONE_OPTIONS["difference"]
    assert len(set(row["options"])) == 5
    a, b = (decode(row[k]["bytes"]) for k in ("image_a", "image_b"))
    assert a.shape == b.shape and max(a.shape[:2]) == 1024
    assert row["cues"] and 0 < row["changed_area"] < 0.05
    assert check_difference_pair(a, b, False, row["cues"]) == row["changed_area"]
    # the same seed with another letter: same photo, same options, another edit; E: identical pair
    other, _ = row_from_seed(task, seed, "C", OPTS, source)
    none, _ = row_from_seed(task, seed, "E", OPTS, source)
    assert other["options"] == row["options"] == none["options"]
    assert other["image_a"] == row["image_a"] == none["image_a"]
    assert other["image_b"] != row["image_b"]
    assert none["image_b"] == none["image_a"] and none["cues"] == [] and none["changed_area"] == 0.0
    # deterministic
    assert row_from_seed(task, seed, "A", OPTS, source)[0] == row


def test_annotated_names_become_the_options_subjects(source):
    _, row, _ = first_row("entity", "B", source, want=lambda r: r["source"] == "folder:coffee.png")
    named = [o for o in row["options"]
             if o.split(" disappeared")[0] in ("The spoon handle", "The saucer rim", "The cup rim", "The coffee")]
    assert len(named) >= 3


def test_unreadable_photos_are_rejected_with_a_reason(tmp_path):
    (tmp_path / "bad.jpg").write_bytes(b"\xff\xd8 truncated")
    with pytest.raises(Rejected) as info:
        row_from_seed("entity", 0, "A", OPTS, FolderSource(tmp_path, SizePolicy(64)))
    assert info.value.reason == Reason("skipped", "unreadable")


def test_unannotated_regions_are_named_by_size_shape_colour_and_place(source):
    _, row, _ = first_row("entity", "A", source, want=lambda r: r["source"] == "folder:astronaut.png")
    from dicobench.sources.photo_difference import PLACES

    for option in row["options"][:4]:
        assert option.startswith("The ") and option.endswith(" disappeared.")
        subject = option[4 : -len(" disappeared.")]
        assert subject.split()[0] in ("tiny", "small") and " object " in subject
        assert any(subject.endswith(" object " + place) for place in PLACES.values())


def test_shape_and_place_words():
    from dicobench.editors.photo.classical import soft
    from dicobench.sources.photo_difference import place_words, shape_word

    disc = np.zeros((60, 60), np.float32)
    cv2 = pytest.importorskip("cv2")
    cv2.circle(disc, (30, 30), 20, 1.0, thickness=-1)
    bar = np.zeros((60, 60), np.float32)
    bar[25:35, 5:55] = 1.0
    square = np.zeros((60, 60), np.float32)
    square[10:50, 10:50] = 1.0
    square[10:30, 10:30] = 0.0  # an L: neither round nor long
    assert [shape_word(soft(m, (0, 0, 60, 60), 0)) for m in (disc, bar, square)] == ["round", "long", ""]
    assert place_words((0, 0, 10, 10), 300, 300) == "near the top left"
    assert place_words((140, 140, 20, 20), 300, 300) == "near the centre"
    assert place_words((290, 150, 10, 10), 300, 300) == "on the right"
    assert place_words((150, 295, 10, 5), 300, 300) == "near the bottom"
