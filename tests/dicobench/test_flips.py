"""Flips (`dicobench.editors.scene.flip`, `--flips`): an object flipped left to right where it stands;
a flip row offers four such objects, with decoys facing both ways in both images."""

import dataclasses

import numpy as np
import pytest
from test_decoys import HARD_COUNTS, SMALL_HARD, assert_no_draw_without_a_share, decoyed

from dicobench.checks import MIN_VISIBLE_PIXELS
from dicobench.editors.scene.decoys import count, look_key
from dicobench.editors.scene.flip import FLIP_MIN_SIZE, flip, flippable
from dicobench.kit.scene.difficulty import HARD
from dicobench.kit.scene.model import PlacedObject, Scene
from dicobench.kit.scene.random_scenes import SceneConfig
from dicobench.kit.scene.render import footprint, render
from dicobench.looks import look
from dicobench.tasks import spatial_relation


def mug(**changes) -> PlacedObject:
    return dataclasses.replace(PlacedObject(0, "mug", "red", 40, 100, 100), **changes)


def test_only_plain_upright_objects_large_enough_whose_outline_is_not_its_own_mirror_image_are_flipped():
    assert flippable(mug()) and flippable(mug(name="tractor"))
    assert not flippable(mug(name="car"))  # its outline is its own mirror image
    assert not flippable(mug(name="hammer"))  # drawn on a slant: flipped, it leans the other way
    assert not flippable(mug(size=FLIP_MIN_SIZE - 1))
    assert not flippable(mug(style="striped", accent="white"))
    assert not flippable(mug(marking="band"))


@pytest.mark.parametrize("rotation", [0, 20])
def test_a_flip_draws_the_mirror_image_where_it_stands_in_the_same_colours(rotation):
    obj = mug(rotation=rotation)  # a turned object is turned back the other way: what is drawn is mirrored
    scene = Scene(200, 200, "wood", 0, "neutral", 1, (obj,))
    edit = flip(scene, obj)
    new = edit.scene.object(0)
    assert new.mirrored and look(new) == look(obj) and look_key(new) != look_key(obj)
    assert edit.text == "The red mug was flipped left to right."
    assert (edit.kind, edit.cues[1].label) == ("flip", "mug (flipped)")
    assert new.rotation == -rotation and footprint(new)[2:] == footprint(obj)[2:]
    before, after = (np.asarray(render(s), int) for s in (scene, edit.scene))
    assert (np.abs(before - after).max(axis=2) > 24).sum() >= 2 * MIN_VISIBLE_PIXELS
    ink = [_red(img) for img in (before, after)]  # the red body, cropped to itself
    assert iou(ink[1], ink[0][:, ::-1]) > 0.9 > 0.75 > iou(ink[1], ink[0])  # the old outline's mirror image
    x, y, w, h = footprint(obj)
    body = [img[y:y + h, x:x + w].reshape(-1, 3).mean(axis=0) for img in (before, after)]
    assert np.abs(body[0] - body[1]).max() < 6  # the same mix of colours: a shrunk pair shows much the same
    assert flip(scene, mug(name="car")) is None


def _red(img: np.ndarray) -> np.ndarray:
    body = img[..., 0] - img[..., 1] > 120  # a red object on brown wood
    ys, xs = np.nonzero(body)
    return body[ys.min():ys.max() + 1, xs.min():xs.max() + 1]


def iou(a: np.ndarray, b: np.ndarray) -> float:
    return (a & b).sum() / (a | b).sum()


def flips() -> SceneConfig:
    return SceneConfig.from_difficulty(dataclasses.replace(SMALL_HARD.difficulty, flips=1.0, **HARD_COUNTS))


def test_flip_rows_offer_four_objects_flipped_with_decoys_facing_both_ways():
    rows = [(base, edits) for base, edits, _ in decoyed("spatial_relation", n=6, cfg=flips())
            if any(e.kind == "flip" for e in edits)]
    assert len(rows) >= 4
    for base, edits in rows:
        assert [e.kind for e in edits] == ["flip"] * 4 and len({e.about for e in edits}) == 4
        for edit in edits:
            assert flippable(base.object(edit.about))
            before, after = edit.states
            for image in (base, edit.scene):
                assert count(before, image, edit.about) >= 1 and count(after, image, edit.about) >= 1, edit.text


def test_a_flip_row_flips_four_objects_that_show_it_and_needs_four():
    names = ("mug", "cow", "tractor", "bicycle", "airplane", "car")  # a car is its own mirror image
    objects = tuple(mug(uid=i, name=name, cx=80 + 140 * i, cy=200) for i, name in enumerate(names))
    scene = Scene(900, 400, "wood", 0, "neutral", 1, objects)
    edits = spatial_relation.flip_rows(np.random.default_rng(0), scene, flips())
    assert [e.kind for e in edits] == ["flip"] * 4 and len({e.about for e in edits}) == 4
    assert "car" not in {e.subject for e in edits}
    few = dataclasses.replace(scene, objects=objects[:3] + objects[5:])
    assert spatial_relation.flip_rows(np.random.default_rng(0), few, flips()) is None


def test_without_flips_no_draw_is_taken():
    assert "four objects flipped in spatial relation rows (share 0.5)" in HARD.describe()
    assert_no_draw_without_a_share(spatial_relation.propose, spatial_relation.move_edits, flips=0.0)
