import dataclasses

import numpy as np
import pytest

from dicobench.editors.scene import attribute, entity, move, traces
from dicobench.kit.scene.catalogue import by_name
from dicobench.kit.scene.palette import clearly_different
from dicobench.kit.scene.random_scenes import random_scene
from dicobench.kit.scene.render import footprint


@pytest.fixture(scope="module")
def scene():
    return random_scene(np.random.default_rng(21))


def test_recolour_changes_only_the_colour_to_a_clearly_different_one(scene, rng):
    obj = scene.objects[0]
    edit = attribute.recolour(rng, scene, obj)
    new = edit.scene.object(obj.uid)
    assert clearly_different(obj.colour, new.colour)
    assert dataclasses.replace(new, colour=obj.colour) == obj
    assert f"from {obj.colour} to {new.colour}" in edit.text and obj.name in edit.text


def test_restyle_changes_only_the_style(scene, rng):
    obj = scene.objects[1]
    edit = attribute.restyle(rng, scene, obj)
    new = edit.scene.object(obj.uid)
    assert new.style != obj.style and dataclasses.replace(new, style=obj.style) == obj
    assert attribute.STYLE_WORDS[new.style] in edit.text


def test_replace_uses_another_category_absent_from_the_scene(scene, rng):
    obj = scene.objects[2]
    edit = entity.replace(rng, scene, obj)
    new = [o for o in edit.scene.objects if o.uid == obj.uid][0]
    assert by_name()[new.name].category != by_name()[obj.name].category
    assert new.name not in {o.name for o in scene.objects}
    assert (new.cx, new.cy) == (obj.cx, obj.cy)


def test_remove_and_add(scene, rng):
    obj = scene.objects[3]
    removed = entity.remove(rng, scene, obj)
    assert obj.name not in {o.name for o in removed.scene.objects}
    added = entity.add(rng, scene)
    assert len(added.scene.objects) == len(scene.objects) + 1
    assert added.subject not in {o.name for o in scene.objects}


def test_move_changes_the_stated_relation_and_nothing_else(scene, rng):
    for obj in scene.objects:
        edit = move.move(rng, scene, obj)
        if edit is not None:
            break
    new = edit.scene.object(obj.uid)
    assert dataclasses.replace(new, cx=obj.cx, cy=obj.cy) == obj
    ref = next(o for o in scene.objects if o.name == edit.touched[1])
    before = move.relation(footprint(obj), footprint(ref))
    after = move.relation(footprint(new), footprint(ref))
    assert before != after
    assert edit.text == f"The {obj.name} moved from {before} the {ref.name} to {after} the {ref.name}."


def test_relation_is_none_when_ambiguous():
    assert move.relation((100, 100, 20, 20), (0, 0, 20, 20)) is None  # diagonal
    assert move.relation((100, 0, 20, 20), (0, 0, 20, 20)) == "right of"
    assert move.relation((0, 100, 20, 20), (0, 0, 20, 20)) == "below"


@pytest.mark.parametrize("kind", [k.name for k in traces.KINDS
                                  if k.name not in ("crumbs", "shards", "tyre_tracks", "puddle")])
def test_traces_are_added_where_stated(scene, rng, kind):
    spec = next(k for k in traces.KINDS if k.name == kind)
    # the first object this kind applies to that has room for the trace beside it
    edit, obj = next(
        (e, o) for o in scene.objects if spec in traces.kinds_for(o)
        for e in [traces.add_trace(rng, scene, o, spec)] if e
    )
    assert obj.name in edit.text
    if kind in ("crack", "scorch"):
        assert edit.scene.object(obj.uid).damage == kind
    else:
        assert edit.scene.traces[-1].kind == kind
