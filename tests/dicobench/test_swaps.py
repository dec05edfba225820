"""Look-alike replacements (`dicobench.editors.scene.entity.replace_alike`, `--swaps`): an object
replaced in place and in its colour by one of another name whose outline, shrunk, is much like its
own, offered beside an ordinary replacement of the same object, with decoys of both looks."""

import dataclasses

import numpy as np
from test_decoys import HARD_COUNTS, SMALL_HARD, assert_no_draw_without_a_share, decoyed

from dicobench.editors.scene.decoys import count
from dicobench.editors.scene.entity import replace_alike
from dicobench.kit.scene.audit import ALIKE_AT_A_GLANCE, GLANCE_SIZE, glance_doubles, outline_overlap
from dicobench.kit.scene.catalogue import by_name, read_as
from dicobench.kit.scene.difficulty import HARD
from dicobench.kit.scene.model import PlacedObject, Scene
from dicobench.kit.scene.random_scenes import SceneConfig
from dicobench.tasks import entity

AUDITED = SceneConfig.from_difficulty(dataclasses.replace(SMALL_HARD.difficulty, swaps=1.0, **HARD_COUNTS))


def test_a_look_alike_replacement_keeps_place_size_pose_and_colour_and_changes_the_kind():
    obj = PlacedObject(0, "SIM card", "yellow", 24, 100, 100, rotation=12)
    scene = Scene(400, 400, "wood", 0, "neutral", 1, (obj,))
    edit = replace_alike(np.random.default_rng(0), scene, obj, cfg=AUDITED)
    new = edit.scene.object(0)
    assert (new.colour, new.size, new.cx, new.cy, new.rotation, new.style) == ("yellow", 24, 100, 100, 12, "plain")
    assert by_name()[new.name].category != by_name()[obj.name].category
    assert new.name not in read_as(obj.name, "audited")  # never one a person takes for it
    assert outline_overlap(obj.name, new.name, GLANCE_SIZE) >= ALIKE_AT_A_GLANCE
    assert edit.kind == "replace_alike" and edit.text == f"A yellow SIM card was replaced by a yellow {new.name}."
    striped = dataclasses.replace(obj, style="striped", accent="white")
    assert replace_alike(np.random.default_rng(0), scene, striped, cfg=AUDITED) is None


def test_a_look_alike_replacement_is_never_drawn_black_where_black_hides_its_detail():
    """A black egg's glance doubles include a compass and a vinyl record, which black turns into
    plain discs (`legibility.hides_detail`): the swap keeps the egg's colour, so neither is swapped in."""
    egg = PlacedObject(0, "egg", "black", 24, 100, 100)
    scene = Scene(400, 400, "wood", 0, "neutral", 1, (egg,))
    dark = frozenset({"compass", "vinyl record"})
    others = glance_doubles("egg", "audited") - dark
    assert dark <= glance_doubles("egg", "audited")
    assert replace_alike(np.random.default_rng(0), scene, egg, taken=others, cfg=AUDITED) is None
    red = dataclasses.replace(egg, colour="red")
    edit = replace_alike(np.random.default_rng(0), dataclasses.replace(scene, objects=(red,)), red, taken=others,
                         cfg=AUDITED)
    assert edit.scene.object(0).name in dark


def test_swap_rows_offer_four_objects_replaced_alike_with_decoys_of_both_looks():
    rows = [(base, edits) for base, edits, _ in decoyed("entity", n=8, cfg=AUDITED)
            if any(e.kind == "replace_alike" for e in edits)]
    assert len(rows) >= 4
    for base, edits in rows:
        assert [e.kind for e in edits] == ["replace_alike"] * 4 and len({e.about for e in edits}) == 4
        for edit in edits:
            before, after = edit.states
            for image in (base, edit.scene):
                assert count(before, image, edit.about) >= 1 and count(after, image, edit.about) >= 1, edit.text


def test_a_swap_row_needs_four_objects_a_look_alike_replaces():
    names = ("SIM card", "cardboard box", "envelope", "bookmark", "computer mouse", "keyboard")
    objects = tuple(PlacedObject(i, name, "yellow", 24, 80 + 140 * i, 200) for i, name in enumerate(names))
    scene = Scene(900, 400, "wood", 0, "neutral", 1, objects)
    edits = entity.swap_rows(np.random.default_rng(0), scene, AUDITED)
    assert [e.kind for e in edits] == ["replace_alike"] * 4 and len({e.about for e in edits}) == 4
    assert entity.swap_rows(np.random.default_rng(0), dataclasses.replace(scene, objects=objects[:3]), AUDITED) is None


def test_without_swaps_no_draw_is_taken():
    assert "four look-alike replacements in entity rows (share 0.75)" in HARD.describe()
    assert_no_draw_without_a_share(entity.propose, entity.entity_edits, swaps=0.0)
