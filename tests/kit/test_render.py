import dataclasses

import numpy as np

from dicobench.kit.scene.render import footprint, render, render_edit
from dicobench.kit.scene.model import Trace
from dicobench.kit.scene.random_scenes import SceneConfig, random_scene
from dicobench.kit.scene.geometry import bounding

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
