import dataclasses

import numpy as np
import pytest

from dicobench.kit.scene.geometry import bounding
from dicobench.kit.scene.model import Trace
from dicobench.kit.scene.random_scenes import SceneConfig, random_scene
from dicobench.kit.scene.render import footprint, render, render_edit, trace_box

SMALL = SceneConfig(min_long_side=700, max_long_side=800, min_objects=12, max_objects=16)


def test_same_seed_renders_the_same_bytes():
    scene = random_scene(np.random.default_rng(3), SMALL)
    again = random_scene(np.random.default_rng(3), SMALL)
    assert again == scene
    assert np.array_equal(render(scene), render(again))


def test_region_render_equals_full_render():
    scene = random_scene(np.random.default_rng(5), SMALL)
    full = render(scene)
    box = (113, 57, 301, 222)
    assert np.array_equal(render(scene, box), full[57:279, 113:414])


def test_incremental_edit_equals_full_render_and_touches_only_dirty_boxes():
    scene = random_scene(np.random.default_rng(7), SMALL)
    obj = scene.objects[0]
    moved = dataclasses.replace(obj, cx=obj.cx + 40, colour="green" if obj.colour != "green" else "red")
    edited = scene.replace_object(obj.uid, moved).add(trace=Trace("footprints", 20, 20, angle=30, length=5, seed=1))
    dirty = [bounding((footprint(obj), footprint(moved))), footprint(edited.traces[0])]
    base = render(scene)
    inc = render_edit(base, edited, dirty)
    assert np.array_equal(inc, render(edited))
    changed = np.argwhere((inc != base).any(axis=2))
    assert len(changed) > 0
    for y, x in changed:
        assert any(bx <= x < bx + bw and by <= y < by + bh for bx, by, bw, bh in dirty)


def test_removing_an_object_restores_the_background_there():
    scene = random_scene(np.random.default_rng(9), SMALL)
    obj = scene.objects[0]
    x, y, w, h = footprint(obj)
    without = render(scene.replace_object(obj.uid, None))
    bare = render(dataclasses.replace(scene, objects=()))
    assert np.array_equal(without[y : y + h, x : x + w], bare[y : y + h, x : x + w])
    assert not np.array_equal(render(scene)[y : y + h, x : x + w], bare[y : y + h, x : x + w])


def test_a_surface_seen_through_a_camera_shares_its_shading_and_enlarges_its_cells():
    from dicobench.kit.scene.camera import Camera
    from dicobench.kit.scene.textures import SurfaceView, make_background, shading

    shading.cache_clear()
    cam = Camera(1.5, -0.5, 0.1, 1.001, 0.99, (1.0, 1.005, 0.996), 7)
    view = SurfaceView(tuple(cam.matrix(301, 203).ravel()), cam.gains, cam.noise)
    clean = make_background("wood", 1, "warm", 301, 203, 5, 60, 3.0, cell=2)
    shade = shading("wood", 102, 151, 5).copy()
    shot = make_background("wood", 1, "warm", 301, 203, 5, 60, 3.0, cell=2, view=view)
    # drawn once, unchanged
    assert shading.cache_info().misses == 1 and np.array_equal(shading("wood", 102, 151, 5), shade)
    assert clean.shape == shot.shape == (203, 301, 3) and not np.array_equal(clean, shot)
    small = make_background("wood", 1, "warm", 151, 102, 5, 240, 3.0)
    assert np.array_equal(clean, small.repeat(2, axis=0).repeat(2, axis=1)[:203, :301])


def test_an_object_turned_by_a_camera_is_drawn_as_if_drawn_turned_from_the_start():
    from dicobench.kit.scene import render as r

    scene = random_scene(np.random.default_rng(2), SceneConfig())
    obj = dataclasses.replace(scene.objects[0], rotation=12.0)
    r.clear_caches()
    r.object_patch(obj)  # its clean look: drawn upright, then turned
    turned = r.object_patch(dataclasses.replace(obj, rotation=12.1))  # a shot's look, from the same upright drawing
    assert r._drawing.cache_info().hits == 1
    r.clear_caches()
    fresh = r.object_patch(dataclasses.replace(obj, rotation=12.1))
    assert r._drawing.cache_info().currsize == 1
    assert (np.array_equal(turned.rgb, fresh.rgb) and np.array_equal(turned.alpha, fresh.alpha)
            and turned.box == fresh.box)


def test_glyphs_outlive_a_row_and_drawn_objects_do_not():
    """Rows share glyphs (kept, read-only, bounded) but not placed objects (forgotten between
    rows); an object drawn from a kept glyph is drawn as from a fresh one."""
    from dicobench.kit.scene import render as r

    obj = random_scene(np.random.default_rng(2), SceneConfig()).objects[0]
    r.clear_caches()
    r._filtered.cache_clear()
    first = r.object_patch(obj)
    r.clear_caches()
    assert r.object_patch.cache_info().currsize == 0 and r._filtered.cache_info().currsize == 1
    again = r.object_patch(obj)
    assert r._filtered.cache_info().hits == 1
    assert np.array_equal(first.rgb, again.rgb) and np.array_equal(first.alpha, again.alpha)


def test_every_cache_of_a_rows_pixels_is_registered_and_cleared():
    """The caches of drawn pixels register where they are made: clearing between rows reaches each,
    and the only unregistered caches of the drawing modules are the glyphs and the vignette, which
    rows share."""
    from dicobench.kit.scene import render as r
    from dicobench.kit.scene import row_caches, textures

    cached = {name: f for module in (r, textures) for name, f in vars(module).items()
              if hasattr(f, "cache_clear") and f.__module__ == module.__name__}
    assert {name for name, f in cached.items() if f not in row_caches._CACHES} == {"_filtered", "_vignette"}
    scene = random_scene(np.random.default_rng(4), SMALL)
    scene = dataclasses.replace(scene, traces=(Trace("crumbs", 200, 200, length=40, colour=(90, 60, 30), seed=1),))
    render(scene)
    assert all(f.cache_info().currsize for f in (r.object_patch, r._kept_trace_pixels, r._background))
    r.clear_caches()
    assert all(f.cache_info().currsize == 0 for f in row_caches._CACHES)


def test_each_trace_kind_is_drawn_by_its_kernel_where_its_kind_says():
    """Trails start near the corner their heading leaves from, blots are centred; an unknown kind
    is refused by name."""
    from dicobench.kit.scene.trace_kernels import KERNELS, origin

    for kind, drawn in KERNELS.items():
        trace = Trace(kind, 0, 0, angle=200, length=6 if drawn.step else 60, colour=(0, 0, 0), seed=3)
        side = drawn.extent(trace)
        x, y, w, h = trace_box(trace)
        assert w and h and 0 <= x and x + w <= side and y + h <= side, kind
        ox, oy = origin(trace, side)
        assert (ox, oy) == ((side - 40.0, side - 40.0) if drawn.trail else (side / 2, side / 2))
    with pytest.raises(ValueError, match="unknown trace kind 'smoke'"):
        origin(Trace("smoke", 0, 0), 100)


def test_a_trace_probed_for_its_box_is_not_kept_and_boxes_as_when_drawn():
    """Placement draws dozens of traces for their boxes and keeps one: a probe's pixels are
    dropped at once, and its box is where the kept trace's pixels are, wherever it stands."""
    from dicobench.kit.scene import render as r

    r.clear_caches()
    for kind, length, angle in (("footprints", 6, 135), ("tyre_tracks", 200, 300), ("spill", 60, 0)):
        at_origin = Trace(kind, 0, 0, angle=angle, length=length, colour=(40, 30, 20), seed=5)
        for x, y in ((0, 0), (311, -17)):
            trace = dataclasses.replace(at_origin, x=x, y=y)
            box = r.trace_box(trace)
            assert r._kept_trace_pixels.cache_info().currsize == 0
            patch = r.trace_patch(trace)
            assert box == patch.box and box[2] > 0 and box[3] > 0
            ys, xs = np.nonzero(patch.alpha > 0.5 / 255)
            assert box == (x + xs.min(), y + ys.min(), xs.max() - xs.min() + 1, ys.max() - ys.min() + 1)
            assert (patch.rgb == np.float32([40, 30, 20])).all()  # one colour, never copied per pixel
            r.clear_caches()


def test_a_footprint_is_where_the_drawn_object_is_without_drawing_it():
    """Placement asks for the box of every object it tries: the box comes from the object's shape
    alone (no colours drawn, none kept) and is the drawn patch's box, in every pose and style."""
    from dicobench.kit.scene import render as r
    from dicobench.kit.scene.catalogue import by_name
    from dicobench.kit.scene.difficulty import PRESETS

    rng, seen = np.random.default_rng(0), set()
    for preset in PRESETS.values():
        for obj in random_scene(np.random.default_rng(1), SceneConfig.from_difficulty(preset)).objects[:40]:
            for pose in (obj, dataclasses.replace(obj, rotation=float(rng.uniform(-60, 60)), mirrored=True),
                         dataclasses.replace(obj, shadow=0.0, rotation=0),
                         dataclasses.replace(obj, rotation=float(rng.choice([90, 180, 270])), mirrored=True),
                         dataclasses.replace(obj, style="outline")):  # a ring where the icon has no outline style
                r.clear_caches()
                box = footprint(pose)
                assert r.object_patch.cache_info().currsize == 0
                assert box == r.object_patch(pose).box, pose
                ring = pose.style == "outline" and "regular" not in by_name()[pose.name].styles
                seen.add((pose.style, ring, pose.rotation % 90 == 0, pose.rotation % 360 != 0, pose.shadow > 0))
    assert len(seen) >= 10  # styles (rings too), turned and upright, right angles, with and without a shadow
    assert any(ring for _, ring, *_ in seen)


def test_regions_meet_exactly_the_patches_that_reach_them():
    from dicobench.kit.scene.render import background

    scene = random_scene(np.random.default_rng(9), SMALL)
    full, bare = render(scene), background(scene)
    x, y, w, h = footprint(scene.objects[0])
    through = (x + w // 2, y + h // 3, w, h // 2)  # cuts through the object: part of it, and beyond it
    for box in [(0, 0, 1, 1), (200, 150, 64, 48), (scene.width - 5, scene.height - 7, 5, 7), (0, 0, scene.width, 40),
                through]:
        bx, by, bw, bh = box
        assert np.array_equal(render(scene, box), full[by : by + bh, bx : bx + bw])
    bx, by, bw, bh = through
    assert not np.array_equal(render(scene, through), bare[by : by + bh, bx : bx + bw])  # the object is drawn there


def test_one_geometry_of_boxes():
    from dicobench.kit.scene.geometry import clipped, intersect, iou, iou_xyxy, overlap_share, xywh, xyxy

    assert intersect((0, 0, 10, 10), (5, 5, 10, 10)) == (5, 5, 5, 5)
    assert intersect((0, 0, 10, 10), (10, 0, 5, 5)) is None  # touching edges do not meet
    assert clipped((-4, 6, 10, 10), 8, 12) == (0, 6, 6, 6) and clipped((9, 0, 2, 2), 8, 8) is None
    assert overlap_share((0, 0, 10, 10), (2, 2, 4, 4)) == 1.0 and overlap_share((0, 0, 2, 2), (5, 5, 1, 1)) == 0.0
    assert xywh(xyxy((3, 4, 5, 6))) == (3, 4, 5, 6)
    assert iou((0, 0, 10, 10), (5, 0, 10, 10)) == pytest.approx(50 / 150) == iou_xyxy((0, 0, 10, 10), (5, 0, 15, 10))
    assert iou((0, 0, 0, 0), (0, 0, 0, 0)) == 0.0


def _marks_seen(dx: float, size: int = 200) -> np.ndarray:
    """The surface's marks (factors in hundredths, 100 where unmarked) through a view shifted by `dx` px."""
    from dicobench.kit.scene.textures import SurfaceView, _marks

    ys, xs, factor = _marks(np.random.default_rng(0), size, size, 400,
                            SurfaceView((1, 0, dx, 0, 1, 0), (1, 1, 1), 1))
    out = np.full((size, size), 100.0)
    out[ys, xs] = factor
    return out


def test_a_sub_pixel_shift_of_the_camera_moves_a_speck_rather_than_redrawing_it():
    """Drawn hard-edged, a two-pixel speck turned from a "+" into a square when the camera moved
    half a pixel, which careful readers saw at zoom; antialiased and softened, the shot's marks are
    the first shot's moved by half a pixel, give or take a little."""
    still, moved = _marks_seen(0.0), _marks_seen(0.5)
    half_a_pixel_on = (still + np.roll(still, 1, axis=1)) / 2
    inner = np.s_[5:-5, 5:-5]
    depth = np.abs(still - 100)[inner].max()
    assert np.abs(moved - half_a_pixel_on)[inner].max() <= 0.4 * depth
