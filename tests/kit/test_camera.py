import dataclasses
import itertools
import math

import numpy as np
import pytest

from dicobench.kit.scene.camera import POSE_TOLERANCE, Camera, CameraBounds, draw_cameras, framed, photograph
from dicobench.kit.scene.difficulty import EXTREME, HARD, PRESETS
from dicobench.kit.scene.model import Trace
from dicobench.kit.scene.palette import COLOURS, lab_distance
from dicobench.kit.scene.random_scenes import SceneConfig, random_scene
from dicobench.kit.scene.render import changed_box, footprint, object_patch, render, render_edit
from dicobench.kit.scene.warping import warp

SMALL = SceneConfig(min_long_side=700, max_long_side=800, min_objects=12, max_objects=16)
GRAINY = dataclasses.replace(SMALL, difficulty=dataclasses.replace(HARD, min_canvas=700, max_canvas=800))
SHOT = Camera(dx=1.7, dy=-1.2, rotation=0.13, scale=1.0025, gain=1.02, wb=(0.99, 1.01, 1.0), noise=5)


def test_cameras_are_drawn_within_their_bounds_from_their_own_stream():
    bounds = CameraBounds()
    drawn = [c for seed in range(200) for c in draw_cameras(seed, bounds)]
    assert draw_cameras(7, bounds) == draw_cameras(7, bounds)
    a, b = draw_cameras(7, bounds)
    assert a != b and a.noise != b.noise
    eps = 1e-9  # the recorded values are rounded
    for c in drawn:
        assert abs(c.dx) <= bounds.shift and abs(c.dy) <= bounds.shift
        assert abs(c.rotation) <= bounds.rotation and abs(c.scale - 1) <= bounds.scale + eps
        assert abs(c.gain - 1) <= bounds.gain + eps and all(abs(w - 1) <= bounds.white_balance + eps for w in c.wb)
        assert c.displacement(2048, 1536) <= bounds.largest_displacement(2048, 1536) + 1e-9
    # the bounds are used: the draws spread over them
    assert max(abs(c.rotation) for c in drawn) > 0.9 * bounds.rotation
    assert max(c.displacement(2048, 1536) for c in drawn) > 0.7 * bounds.largest_displacement(2048, 1536)


def test_the_recorded_camera_parses_back_to_the_one_used():
    for camera in draw_cameras(11, CameraBounds()) + (SHOT, Camera()):
        assert Camera.parse(camera.describe()) == camera
    assert SHOT.describe() == ("dx=+1.70 dy=-1.20 rotation=+0.130 scale=1.00250 gain=1.0200 "
                               "wb=0.9900,1.0100,1.0000 noise=5")
    for bad in ("", "dx=1 dy=2", SHOT.describe().replace("wb=0.9900,1.0100,1.0000", "wb=1,1")):
        with pytest.raises(ValueError):
            Camera.parse(bad)


def test_the_bounds_per_preset_are_small():
    # a person at a glance: a few px of framing and a few percent of exposure, at most
    assert HARD.camera_on and EXTREME.camera_on
    assert HARD.camera.largest_displacement(2048, 1536) <= 12
    assert EXTREME.camera.largest_displacement(4096, 3072) <= 24
    # two shots at opposite corners of the exposure and white-balance bounds: the whole image's
    # colour moves by at most about 2 Delta E (reviews found 3% and 2% visibly tinted a pair, and
    # 1% and 0.7%, up to 5 Delta E, still tinted a plain surface enough to argue an E row)
    g, w = HARD.camera.gain, HARD.camera.white_balance
    for colour in [*COLOURS.values(), (128, 128, 128)]:
        for signs in itertools.product((-1, 1), repeat=3):
            a = [min(255.0, v * (1 - g) * (1 + s * w)) for v, s in zip(colour, signs)]
            b = [min(255.0, v * (1 + g) * (1 - s * w)) for v, s in zip(colour, signs)]
            assert lab_distance(tuple(a), tuple(b)) <= 2.3, (colour, signs)


def test_a_shot_is_the_scene_seen_through_the_camera():
    """Rendering the scene through a camera matches moving the clean render's pixels by the same
    map (the scene engine's camera and the pixel-level one agree), here with a large rotation so
    that a wrong direction or centre would show."""
    scene = random_scene(np.random.default_rng(3), SMALL)
    scene = scene.add(trace=Trace("footprints", 120, 90, angle=30, length=5, seed=1))
    clean = render(scene)
    for camera in (Camera(rotation=8.0), Camera(dx=9, dy=-6, scale=1.03), SHOT):
        shot = render(scene, camera=camera)
        moved = warp(clean, camera.matrix(scene.width, scene.height))
        gains = np.asarray(camera.gains)
        far = np.abs(shot / gains - moved).max(axis=2) > 24
        unmoved = np.abs(shot.astype(int) - clean.astype(int)).max(axis=2) > 24
        assert far.mean() < 0.02 and far.mean() < unmoved.mean() / 2


def test_a_shot_moves_objects_and_turns_them_only_past_the_tolerance():
    """Every preset's cameras leave its objects' poses as drawn (a turn of a fraction of a degree
    moves no outline by a quarter pixel, so each shot reuses the clean drawing); a larger turn
    turns them."""
    for difficulty in PRESETS.values():
        assert math.radians(difficulty.camera.rotation) * difficulty.max_size <= POSE_TOLERANCE, difficulty.preset
    scene = random_scene(np.random.default_rng(3), SMALL)
    for obj in scene.objects[:6]:
        largest = dataclasses.replace(obj, size=max(d.max_size for d in PRESETS.values()))
        turn = math.degrees(POSE_TOLERANCE / largest.size)
        seen = Camera(dx=3.0, rotation=turn).place(largest, scene.width, scene.height)
        assert seen.rotation == largest.rotation and (seen.cx, seen.cy) != (largest.cx, largest.cy)
        drawn, turned = object_patch(largest), object_patch(dataclasses.replace(largest,
                                                                                rotation=largest.rotation + turn))
        # what the tolerance gives up: under a quarter of a pixel's coverage
        if drawn.alpha.shape == turned.alpha.shape:
            assert np.abs(drawn.alpha - turned.alpha).max() < POSE_TOLERANCE
        assert Camera(rotation=8.0).place(obj, scene.width, scene.height).rotation == obj.rotation + 8.0


def test_the_identity_camera_draws_the_same_surface_with_its_own_grain():
    scene = random_scene(np.random.default_rng(4), GRAINY)
    assert scene.marks and scene.grain and scene.cell == 2
    same = render(dataclasses.replace(scene, grain=0.0), camera=Camera(noise=1))
    assert np.array_equal(same, render(dataclasses.replace(scene, grain=0.0)))
    grainy, clean = render(scene, camera=Camera(noise=1)), render(scene)
    step = np.abs(grainy.astype(int) - clean.astype(int))
    assert step.any() and step.max() <= 2 * np.sqrt(2) * scene.grain + 1
    assert not np.array_equal(grainy, render(scene, camera=Camera(noise=2)))


def test_region_renders_through_a_camera_equal_the_full_shot():
    scene = random_scene(np.random.default_rng(5), GRAINY)
    full = render(scene, camera=SHOT)
    box = (113, 57, 301, 222)
    assert np.array_equal(render(scene, box, SHOT), full[57:279, 113:414])
    assert np.array_equal(render(scene, camera=SHOT), full)  # deterministic


def test_a_region_through_a_camera_resamples_only_the_traces_that_reach_it():
    """A camera's check of one change renders a small box of a scene of many traces: only the
    traces whose shot reaches the box are drawn and resampled, and the box is the full shot's."""
    from dicobench.kit.scene import render as r

    scene = random_scene(np.random.default_rng(5), GRAINY)
    traces = tuple(Trace("crumbs", x, y, length=40, colour=(90, 60, 30), seed=x * 10 + y)
                   for x in range(0, scene.width - 50, 100) for y in range(0, scene.height - 50, 100))
    scene = dataclasses.replace(scene, traces=traces)
    r.clear_caches()
    box = (113, 57, 150, 120)
    part = render(scene, box, SHOT)
    drawn = r._kept_trace_pixels.cache_info().currsize
    assert 0 < drawn < len(traces) // 4
    full = render(scene, camera=SHOT)
    assert r._kept_trace_pixels.cache_info().currsize == len(traces)
    assert np.array_equal(part, full[57:177, 113:263])


def test_changed_box_holds_every_pixel_an_edit_changes_through_a_camera():
    scene = random_scene(np.random.default_rng(7), GRAINY)
    obj = scene.objects[0]
    moved = dataclasses.replace(obj, cx=obj.cx + 40, colour="green" if obj.colour != "green" else "red")
    edited = scene.replace_object(obj.uid, moved).add(trace=Trace("spill", 300, 200, length=50, seed=3))
    for camera in (None, SHOT):
        box = changed_box(scene, edited, camera)
        base, after = render(scene, camera=camera), render(edited, camera=camera)
        assert np.array_equal(render_edit(base, edited, [box], camera), after)
        ys, xs = np.nonzero((base != after).any(axis=2))
        assert (len(xs) and box[0] <= xs.min() and xs.max() < box[0] + box[2] and box[1] <= ys.min()
                and ys.max() < box[1] + box[3])
    assert changed_box(scene, scene) is None


@pytest.mark.parametrize("seed", range(4))
def test_a_mapped_box_holds_its_element_in_the_shot(seed):
    """What a cue box framed in the clean render is inside the box the camera maps it to: the
    shots with and without the element differ only there."""
    scene = random_scene(np.random.default_rng(seed), GRAINY)
    scene = scene.add(trace=Trace("paw_prints", 200, 150, angle=200, length=5, seed=seed))
    for camera in draw_cameras(seed, CameraBounds(shift=4, rotation=0.3, scale=0.006)):
        for element in (*scene.objects[:6], scene.traces[0]):
            without = (dataclasses.replace(scene, traces=()) if isinstance(element, Trace)
                       else scene.replace_object(element.uid, None))
            box, fits = camera.map_box(footprint(element), scene.width, scene.height)
            if not fits:
                continue
            diff = (render(scene, camera=camera) != render(without, camera=camera)).any(axis=2)
            inside = np.zeros_like(diff)
            inside[box[1] : box[1] + box[3], box[0] : box[0] + box[2]] = True
            assert diff.any() and not (diff & ~inside).any()


def test_map_box_grows_and_clips():
    box, fits = Camera().map_box((10, 20, 30, 40), 100, 100, margin=3)
    assert box == (7, 17, 36, 46) and fits
    box, fits = Camera(dx=-4).map_box((2, 20, 30, 40), 100, 100)  # 2 px of it leave the frame: still in it
    assert box == (0, 17, 31, 46) and fits
    box, fits = Camera(dx=-6).map_box((2, 20, 30, 40), 100, 100)
    assert box[0] == 0 and not fits


def test_photographs_are_framed_exposed_and_grained():
    rng = np.random.default_rng(0)
    photo = np.clip(rng.normal(120, 40, (300, 400, 3)), 0, 255).astype(np.uint8)
    shot = photograph(photo, SHOT)
    assert shot.shape == photo.shape and np.array_equal(shot, photograph(photo, SHOT))
    assert not np.array_equal(shot, photograph(photo, dataclasses.replace(SHOT, noise=6)))  # the shot's own grain
    assert np.abs(shot.astype(int) - framed(photo, SHOT).astype(int)).max() <= 2
    # a part of the framed photo is the same part of the whole framed photo
    box = (37, 51, 120, 90)
    part, whole = framed(photo, SHOT, box), framed(photo, SHOT)[51:141, 37:157]
    assert np.abs(part.astype(int) - whole.astype(int)).max() <= 1
