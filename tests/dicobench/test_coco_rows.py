import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("pycocotools")
cv2 = pytest.importorskip("cv2")
sys.path.insert(0, str(Path(__file__).parents[1]))
from coco_fixtures import CATEGORIES, POLICY, coco, source  # noqa: E402,F401 (fixtures)

from dicobench.build import build  # noqa: E402
from dicobench.checks import Rejected, check_difference_pair  # noqa: E402
from dicobench.generate import BuildOptions, row_from_seed  # noqa: E402
from dicobench.kit.io.imageio import decode  # noqa: E402
from dicobench.schema import DIFFERENCE_TASKS, TASKS  # noqa: E402
from dicobench.sources import photo_difference as pd  # noqa: E402

OPTS = BuildOptions(photos=POLICY)
NAMES = {n.replace("_", " ") for n in CATEGORIES}



def regions(source, index, accept=pd.any_colour):
    photo = source.load(index)
    return photo, list(pd.candidates(np.random.default_rng(0), photo.pixels, photo.objects, accept))


def edits(op, photo, found, seed):
    """(region, candidate) for every region the op does not reject; at least three."""
    out = []
    for region in found:
        try:
            out.append((region, op(np.random.default_rng(seed), photo.pixels, region, [])))
        except Rejected:
            continue
    assert len(out) >= 3
    return out


def changed(a, b):
    return (a != b).any(axis=2)


def support(mask, shape, dx=0, dy=0):
    out = np.zeros(shape[:2], bool)
    x, y, w, h = mask.window
    out[y + dy : y + dy + h, x + dx : x + dx + w] = mask.alpha > 0
    return out


def test_regions_are_the_segmented_objects_named_by_category(source):
    photo, found = regions(source, 0)
    assert {r.subject for r in found} == {"apple", "coin", "key", "leaf", "button"}  # no crowd, no table, no speck
    assert all(r.segmented for r in found)
    apple = next(r for r in found if r.subject == "apple")
    obj = next(o for o in photo.objects if o.name == "apple")
    x, y, w, h = obj.box
    wx, wy = apple.mask.window[:2]
    assert np.array_equal(apple.mask.hard()[y - wy : y - wy + h, x - wx : x - wx + w], obj.mask)


def test_namesakes_are_named_by_their_look(source):
    _, found = regions(source, 5)
    subjects = {r.subject for r in found}
    assert {"red cup", "blue cup"} <= subjects and "cup" not in subjects


def test_recolour_stays_inside_the_mask_and_keeps_the_shading(source):
    photo, found = regions(source, 0, pd.hue_shiftable)
    for region, edit in edits(pd.recolour, photo, found, 1):
        diff = changed(photo.pixels, edit.image_b)
        assert diff.any() and not (diff & ~support(region.mask, photo.pixels.shape)).any()
        lab_a, lab_b = (cv2.cvtColor(p.astype(np.float32) / 255, cv2.COLOR_RGB2Lab)
                        for p in (photo.pixels, edit.image_b))
        core = np.zeros(diff.shape, bool)
        x, y, w, h = region.mask.window
        core[y : y + h, x : x + w] = region.mask.alpha >= 0.999
        before, after = lab_a[..., 0][core], lab_b[..., 0][core]
        # lightness (L*, 0-100) kept but where sRGB cannot hold the new chroma,
        assert np.abs(before - after).mean() < 7
        assert np.corrcoef(before, after)[0, 1] > 0.9  # and the shading with it...
        assert np.abs(lab_a[..., 1:] - lab_b[..., 1:])[core].mean() > 15  # ...hue and chroma moved


@pytest.mark.parametrize("op", [pd.remove, pd.trace])
def test_removal_and_traces_stay_inside_the_feathered_mask(source, op):
    photo, found = regions(source, 2)
    for region, edit in edits(op, photo, found, 2):
        diff = changed(photo.pixels, edit.image_b)
        assert diff.sum() > 100 and not (diff & ~support(region.mask, photo.pixels.shape)).any()


def test_a_move_changes_only_where_the_object_was_and_where_it_lands(source):
    photo, found = regions(source, 1)
    for region, edit in edits(pd.move, photo, found, 3):
        (_, before), (_, after) = [(c["image"], c["bbox"]) for c in edit.cues]
        dx, dy = after[0] - before[0], after[1] - before[1]
        allowed = support(region.mask, photo.pixels.shape) | support(region.mask, photo.pixels.shape, dx, dy)
        diff = changed(photo.pixels, edit.image_b)
        assert diff.any() and not (diff & ~allowed).any()


def rows(task, source, letter="B", seeds=range(40), count=3):
    out = []
    for seed in seeds:
        try:
            out.append(row_from_seed(task, seed, letter, OPTS, source)[0])
        except Rejected:
            continue
        if len(out) == count:
            return out
    pytest.fail(f"only {len(out)} {task} rows from the COCO photos")


@pytest.mark.parametrize("task", DIFFERENCE_TASKS + ("instance", "category"))
def test_every_photo_task_names_only_editable_categories(task, source):
    for row in rows(task, source):
        for option in row["options"][:4]:
            named = [n for n in NAMES if f" {n} " in f" {option.lower().rstrip('.')} "]
            assert named and not {"person", "dining table"} & set(named), option
            assert "object" not in option and " near " not in option  # never a shape-and-place description
        if row["track"] == "difference":
            a, b = (decode(row[k]["bytes"]) for k in ("image_a", "image_b"))
            assert check_difference_pair(a, b, False, row["cues"]) >= 0  # the pixel checks of the procedural track


def test_a_build_offers_every_photo_task_and_its_card_gives_the_licences(coco, tmp_path):
    out = build(tmp_path / "out", source=f"coco:{coco}:{coco.parent / 'images'}", per_task=1, min_long_side=768,
                progress=False, num_proc=1)
    built = sorted(p.name for p in out.iterdir() if p.is_dir() and not p.name.startswith("."))
    assert built == sorted(DIFFERENCE_TASKS + ("instance", "category"))
    assert set(built) < set(TASKS)
    card = (out / "README.md").read_text()
    assert "license: unknown" in card  # one photo names no licence
    assert "Attribution License (http://creativecommons.org/licenses/by/2.0/): 3 photos" in card
    assert "Attribution-NonCommercial License (http://creativecommons.org/licenses/by-nc/2.0/): 2 photos" in card
    assert "1 photos with no licence stated" in card
    assert "crowd regions and objects over 5% of the photo are never edited" in card


def test_a_composite_stays_inside_its_feathered_mask_and_shadow_and_takes_the_light(source):
    from dicobench.editors.photo.classical import Composite, Insert
    from dicobench.sources.photo_objects import region_mask

    donor, target = source.load(0), source.load(2)
    obj = next(o for o in donor.objects if o.name == "key")
    mask = region_mask(donor.pixels, obj)
    op = Composite(donor.pixels, (470, 300))
    placed = op.placed(mask)
    edit = op(target.pixels, mask)
    diff = changed(target.pixels, edit.pixels)
    assert diff.any() and not (diff & ~support(placed, target.pixels.shape)).any()
    # the shadow: ground just under the object's lower edge is darker, every channel alike
    x, y, w, h = Insert(donor.pixels, (470, 300)).placed(mask).support()
    assert placed.support()[1] + placed.support()[3] > y + h  # the shadow reaches below the object
    below = (slice(y + h, y + h + 2), slice(x + w * 2 // 5, x + w * 3 // 5))
    assert (edit.pixels[below].astype(int) < target.pixels[below].astype(int) - 5).all(axis=-1).mean() > 0.8
    # the object's colours moved towards the target's light, and no further than the bound
    gain = op.gain(target.pixels)
    assert np.all(gain <= Composite.MAX_GAIN) and np.all(gain >= 1 / Composite.MAX_GAIN) and not np.allclose(gain, 1)
