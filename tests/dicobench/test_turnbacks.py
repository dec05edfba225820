"""Trails turned back (`dicobench.editors.scene.traces.turn_back`, `--turnbacks`): a trail of shoe
prints that led up to an object leads away from it, the same prints in the same places; a
turned-back trail row offers four such objects, with decoy trails leading both ways in both images."""

import dataclasses

import numpy as np
import pytest
from test_decoys import SMALL_HARD, assert_no_draw_without_a_share, decoyed

from dicobench.checks import MIN_VISIBLE_PIXELS
from dicobench.editors.scene import Staged
from dicobench.editors.scene.decoys import count
from dicobench.editors.scene.traces import Traced, leads_to, trail_to, turn_back, turned_back
from dicobench.kit.scene.difficulty import HARD
from dicobench.kit.scene.geometry import box_gap
from dicobench.kit.scene.model import PlacedObject, Scene, Trace
from dicobench.kit.scene.random_scenes import SceneConfig
from dicobench.kit.scene.render import footprint, render
from dicobench.tasks import difference_reasoning

ndimage = pytest.importorskip("scipy.ndimage")


def turnbacks() -> SceneConfig:
    """Turned-back trail rows on hard's canvas (room for four trails and their decoy trails both ways)."""
    return SceneConfig.from_difficulty(dataclasses.replace(SMALL_HARD.difficulty, turnbacks=1.0,
                                                           min_canvas=HARD.min_canvas, max_canvas=HARD.max_canvas))


def _prints(trace: Trace) -> list[tuple[float, float]]:
    """Where each shoe print of a lone trail is drawn (its centre of ink), in canvas coordinates."""
    scene = Scene(900, 900, "wood", 0, "neutral", 1, traces=(trace,))
    ink = np.abs(np.asarray(render(scene), int) - np.asarray(render(dataclasses.replace(scene, traces=())), int))
    labels, n = ndimage.label(ndimage.binary_closing(ink.max(axis=2) > 12, iterations=3))
    return [(x, y) for y, x in ndimage.center_of_mass(ink.max(axis=2), labels, range(1, n + 1))]


def test_a_turned_back_trail_has_its_prints_where_they_were_pointing_the_other_way():
    for angle in (0, 37, 135, 250):
        trail = Trace("footprints", 300, 300, angle=angle, length=4, colour=(62, 46, 34), seed=1, opacity=0.7)
        back = turned_back(trail)
        assert back.angle == (angle + 180) % 360 and turned_back(back).angle == angle
        there, here = _prints(trail), _prints(back)
        assert len(there) == len(here) == 4
        # each print lies within a print's own length of one of the old prints (mirrored across the
        # trail, as a walker's left and right feet swap), and none where the old trail had none
        assert all(min(np.hypot(x - a, y - b) for a, b in there) < 24 for x, y in here), angle


def test_a_turned_back_trail_leads_away_from_its_object_and_reads_so():
    obj = PlacedObject(0, "mug", "red", 40, 450, 450)
    scene = Scene(900, 900, "wood", 0, "neutral", 1, (obj,))
    rng = np.random.default_rng(3)
    trail = trail_to(rng, scene, obj, SceneConfig.from_difficulty(HARD))
    assert trail is not None and trail.kind == "footprints" and leads_to(trail, obj)
    edit = turn_back(scene.add(trace=trail), obj, trail, SceneConfig.from_difficulty(HARD))
    back = edit.scene.traces[0]
    assert not leads_to(back, obj) and box_gap(footprint(back), footprint(obj)) <= 40
    assert edit.text == ("The shoe prints by a red mug now lead away from it, so someone walked away from it, "
                         "not up to it.")
    assert (edit.kind, edit.cues[1].label) == ("turn_back", "shoe prints away from mug")
    before, after = edit.states
    assert (count(before, scene.add(trace=trail), None), count(after, scene.add(trace=trail), None)) == (1, 0)
    assert (count(before, edit.scene, None), count(after, edit.scene, None)) == (0, 1)
    pixels = [np.asarray(render(s), int) for s in (scene.add(trace=trail), edit.scene)]
    assert (np.abs(pixels[0] - pixels[1]).max(axis=2) > 24).sum() >= MIN_VISIBLE_PIXELS
    x, y, w, h = footprint(trail)
    shrunk = [p[y:y + h, x:x + w].reshape(-1, 3).mean(axis=0) for p in pixels]  # much the same ink either way
    assert np.abs(shrunk[0] - shrunk[1]).max() < 6


def test_an_away_decoy_is_a_twin_with_a_trail_leading_away():
    obj = PlacedObject(0, "mug", "red", 40, 150, 150)
    scene = Scene(900, 900, "wood", 0, "neutral", 1, (obj,))
    away = Traced(obj, "footprints", (62, 46, 34), away=True)
    objects, trails = away.decoy(np.random.default_rng(0), scene, SceneConfig.from_difficulty(HARD), [], 1)
    twin, trail = objects[0], trails[0]
    assert not leads_to(trail, twin) and box_gap(footprint(trail), footprint(twin)) <= 40
    assert count(away, dataclasses.replace(scene, objects=scene.objects + objects, traces=trails), None) == 1


def test_turned_back_trail_rows_offer_four_objects_with_decoy_trails_both_ways():
    rows = [(base, edits) for base, edits, _ in decoyed("difference_reasoning", n=4, cfg=turnbacks())]
    rows = [(base, edits) for base, edits in rows if edits[0].kind == "turn_back"]
    assert len(rows) >= 3
    for base, edits in rows:
        assert [e.kind for e in edits] == ["turn_back"] * 4 and len({e.about for e in edits}) == 4
        for edit in edits:  # image 1 shows every option's trail leading up to its object, image 2 away
            (old,), (new,) = set(base.traces) - set(edit.scene.traces), set(edit.scene.traces) - set(base.traces)
            assert leads_to(old, base.object(edit.about)) and not leads_to(new, base.object(edit.about))
            before, after = edit.states
            for image in (base, edit.scene):
                assert count(before, image, edit.about) >= 1 and count(after, image, edit.about) >= 1, edit.text


def test_a_turned_back_trail_row_draws_its_trails_into_the_base_scene():
    names = ("mug", "cow", "tractor", "bicycle")
    objects = tuple(PlacedObject(i, name, "red", 40, 150 + 200 * i, 300) for i, name in enumerate(names))
    scene = Scene(900, 600, "wood", 0, "neutral", 1, objects)
    staged = difference_reasoning.trail_rows(np.random.default_rng(0), scene, turnbacks())
    assert isinstance(staged, Staged) and len(staged.scene.traces) == 4 and not scene.traces
    assert all(leads_to(t, o) for t, o in zip(sorted(staged.scene.traces, key=lambda t: t.x),
                                              sorted(objects, key=lambda o: o.cx)))
    assert [e.kind for e in staged.edits] == ["turn_back"] * 4 and len({e.about for e in staged.edits}) == 4
    few = dataclasses.replace(scene, objects=objects[:3])
    assert difference_reasoning.trail_rows(np.random.default_rng(0), few, turnbacks()) is None


def test_without_turnbacks_no_draw_is_taken():
    assert "four trails turned back in difference reasoning rows (share 0.6)" in HARD.describe()
    assert_no_draw_without_a_share(difference_reasoning.propose, difference_reasoning.trace_edits, turnbacks=0.0)
