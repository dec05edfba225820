"""Text-proof difference rows (`dicobench.editors.scene.decoys`): every state an option names, before
and after, also stands elsewhere in both images and unchanged, so one image does not tell which
option holds; and part edits, which change one part of an object while the rest stays."""

import dataclasses
import math
import re

import numpy as np
import pytest
from text_only import PROPOSERS

from dicobench.checks import MIN_VISIBLE_PIXELS, Rejected, check_unchanged
from dicobench.editors.scene.attribute import PART_WORDS, TURN_MIN_SIZE, recolour_part, turn_stripes
from dicobench.editors.scene.decoys import count, look_key, split, with_decoys
from dicobench.editors.scene.move import NEAR
from dicobench.generate import BuildOptions, sample_seed
from dicobench.kit.scene.difficulty import EASY, HARD
from dicobench.kit.scene.geometry import box_gap
from dicobench.kit.scene.model import PlacedObject, Scene
from dicobench.kit.scene.random_scenes import TWIN_REACH, SceneConfig, random_scene
from dicobench.kit.scene.render import footprint, render
from dicobench.schema import DIFFERENCE_TASKS
from dicobench.sources.procedural import edited_scenes
from dicobench.tasks import attribute
from dicobench.tasks.registry import get_task

# hard scenes on a smaller canvas (with room for the decoys) keep these fast
SMALL_HARD = SceneConfig.from_difficulty(dataclasses.replace(HARD, min_canvas=1200, max_canvas=1300, min_objects=45,
                                                             max_objects=55, same_kind=20))
# hard's object counts, for rows that need four objects of a kind (flips, look-alike replacements)
HARD_COUNTS = {"min_objects": HARD.min_objects, "max_objects": HARD.max_objects}


def decoyed(task: str, n: int = 4, cfg: SceneConfig = SMALL_HARD):
    """(base, edits, decoy boxes) of the first `n` proposals of `task` that find room, drawn as a build does."""
    out = []
    for i in range(6 * n):
        try:
            out.append(edited_scenes(PROPOSERS[task].propose,
                                     np.random.default_rng(sample_seed(0, "test", task, i, 0)), cfg))
        except Rejected:
            continue
        if len(out) == n:
            return out
    pytest.fail(f"{task}: only {len(out)} of {n} proposals found room for their decoys")


@pytest.mark.parametrize("task", DIFFERENCE_TASKS)
def test_every_state_an_option_names_stands_elsewhere_in_both_images(task):
    for base, edits, boxes in decoyed(task):
        assert boxes
        pairs = [edit.scene for edit in edits]  # image 2 of each candidate (image 1 is the base, whatever the answer)
        for edit in edits:
            for state in edit.states:
                for image in (base, *pairs):
                    assert count(state, image, edit.about) >= 1, (task, edit.text, state.key)


def test_an_objects_states_share_their_decoys_in_a_split_drawn_alike():
    """An option's change moves its object from one state to another, so in image 2 the true
    option's after-state shows once more than its decoys: with the states' counts drawn apart (1 to
    3 each), counting one image found the true option most of the time. An object's states now
    share a fixed number of decoys, every split alike, so that moving one object gives a split as
    likely as the one it came from (but at the ends)."""
    rng = np.random.default_rng(0)
    pairs = [split(rng, 3, 2) for _ in range(3000)]
    assert all(sum(p) == 6 and min(p) >= 1 for p in pairs)
    firsts = np.bincount([p[0] for p in pairs], minlength=6)[1:]
    assert firsts.min() > 0.8 * firsts.mean()  # 1 to 5, each alike
    assert all(sum(t) == 9 and min(t) >= 1 for t in (split(rng, 3, 3) for _ in range(300)))
    assert {split(rng, 3, 1)[0] for _ in range(300)} == {1, 2, 3, 4, 5}  # a lone state: 1 to 5
    for base, edits, _ in decoyed("attribute", n=4):  # each object's looks: a fixed number in all
        for about in {e.about for e in edits}:
            states = {s.key: s for e in edits if e.about == about for s in e.states}.values()
            assert sum(count(s, base, about) for s in states) == HARD.decoys * len(states)


def test_a_replacements_new_look_also_stands_among_the_old_name_elsewhere():
    """A replacement stands where the old object stood, among that name's same-kind objects; the
    new look's decoys stand among the old name too, so no lone odd one out in a group says, from
    image 2 alone, which object was swapped in."""
    cfg = SceneConfig.from_difficulty(dataclasses.replace(SMALL_HARD.difficulty, swaps=0.0))
    among = []
    for base, edits, _ in decoyed("entity", n=6, cfg=cfg):
        for edit in edits:
            if edit.kind not in ("replace", "replace_alike"):
                continue
            old, new = base.object(edit.about), edit.scene.object(edit.about)
            decoys = [o for o in base.objects if look_key(o) == look_key(new) and o.uid != edit.about]
            olds = [o for o in base.objects if o.name == old.name and o.uid != edit.about]
            among.append(any(max(abs(d.cx - o.cx), abs(d.cy - o.cy)) <= TWIN_REACH * o.size
                             for d in decoys for o in olds))
    assert len(among) >= 6 and sum(among) >= 0.8 * len(among)  # the rest found no room there


@pytest.mark.parametrize("task", DIFFERENCE_TASKS)
def test_decoys_keep_clear_of_every_change(task):
    for base, edits, boxes in decoyed(task):
        for box in boxes:
            for edit in edits:
                assert all(box_gap(box, d) > 0 for d in edit.dirty), (task, box, edit.text)


def test_a_decoy_reference_never_stands_where_the_moved_object_could_be_read_against_it():
    for base, edits, boxes in decoyed("spatial_relation"):
        decoys = [o for o in base.objects if footprint(o) in set(boxes)]
        for edit in edits:
            ref = edit.states[0].ref
            centres = [(b[0] + b[2] / 2, b[1] + b[3] / 2) for b in edit.dirty]  # the mover before and after
            for obj in decoys:
                if look_key(obj) == look_key(ref):
                    box = footprint(obj)
                    assert min(math.dist((box[0] + box[2] / 2, box[1] + box[3] / 2), c) for c in centres) > NEAR


INDEFINITE = re.compile(r"^(An? |[A-Z][a-z-]+ |The (\w+ )?(half|stripes|dots) of an? )")


@pytest.mark.parametrize("task", DIFFERENCE_TASKS)
def test_options_call_objects_as_one_of_several(task):
    """ "A black box became white.", never "The black box ..." once several black boxes stand in the images."""
    for _, edits, _ in decoyed(task, n=3):
        for edit in edits:
            words = edit.text.lower().replace(" the other way", "").split(" ")
            definite = [i for i, w in enumerate(words) if w == "the"]
            # a part edit names the part first: "The red stripes of a ...", "The stripes of a ...", and a
            # turned trail its prints: "The shoe prints by a red mug now lead away from it ..."
            assert all(edit.kind in ("part", "turn", "turn_back") and i == 0 for i in definite), edit.text
            assert INDEFINITE.match(edit.text), edit.text


def test_without_decoys_nothing_is_added_and_no_draw_is_taken():
    cfg = SceneConfig.from_difficulty(EASY)
    rng = np.random.default_rng(5)
    base = random_scene(rng, cfg)
    edits = PROPOSERS["attribute"].propose(rng, base, cfg)
    state = rng.bit_generator.state
    assert with_decoys(rng, base, edits, cfg) == (base, edits, ())
    assert rng.bit_generator.state == state
    assert all(e.text.startswith("The ") for e in edits)


def test_a_decoy_that_differs_between_the_images_is_rejected():
    a = np.zeros((40, 40, 3), np.uint8)
    b = a.copy()
    b[30:35, 30:35] = 200  # a change outside the decoy's box
    check_unchanged(a, b, [(0, 0, 20, 20)])
    b[5, 5] = 1  # ...and one inside it
    with pytest.raises(Rejected, match="decoy_changed"):
        check_unchanged(a, b, [(0, 0, 20, 20)])


@pytest.mark.parametrize("letter", ["A", "E"])
def test_rows_record_their_decoys(letter):
    spec = get_task("entity")
    opts = BuildOptions(scene=SMALL_HARD)
    for seed in range(30):
        try:
            prop = spec.proposer("procedural")(spec, seed, opts)
        except Rejected:
            continue
        described = prop.describe(letter, [])
        assert described["decoys_before"] >= 1 and described["decoys_after"] >= 1
        assert (described.get("edit") is None) == (letter == "E")
        return
    pytest.fail("no entity proposal in 30 seeds")


# ---- part edits --------------------------------------------------------------------------

@pytest.mark.parametrize("style", sorted(PART_WORDS))
def test_a_part_edit_recolours_the_part_and_leaves_the_rest(style):
    obj = PlacedObject(0, "mug", "red", 44, 100, 100, style=style, accent="white")
    scene = Scene(200, 200, "wood", 0, "neutral", 1, (obj,))
    cfg = SceneConfig.from_difficulty(HARD)
    edit = recolour_part(np.random.default_rng(0), scene, obj, cfg)
    new = edit.scene.object(0)
    assert (new.colour, new.style, new.name) == (obj.colour, obj.style, obj.name) and new.accent != obj.accent
    part = PART_WORDS[style]
    assert edit.text == f"The white {part} of a {look_words(obj)} became {new.accent}." and edit.kind == "part"
    assert edit.cues[1].label == f"mug ({new.accent} {part})"
    before, after = render(scene), render(edit.scene)
    changed = np.abs(before.astype(int) - after.astype(int)).max(axis=2) > 24
    x, y, w, h = footprint(obj)
    drawn = np.abs(before.astype(int) - render(Scene(200, 200, "wood", 0, "neutral", 1)).astype(int)).max(axis=2) > 24
    assert 0 < changed.sum() <= 0.7 * drawn.sum()  # a part: a fraction of the object
    assert not changed[:y].any() and not changed[y + h:].any()


def look_words(obj: PlacedObject) -> str:
    from dicobench.looks import look

    return look(obj)


def test_hard_attribute_rows_include_part_edits_on_objects_up_to_twice_the_cue_scale():
    # the rows that turn no stripes (a quarter at `hard`; twelve draws held none once)
    cfg = SceneConfig.from_difficulty(dataclasses.replace(SMALL_HARD.difficulty, turns=0.0))
    kinds = [e.kind for _, edits, _ in decoyed("attribute", n=6, cfg=cfg) for e in edits]
    assert "part" in kinds and {"recolour", "restyle"} & set(kinds)


def test_turned_stripes_keep_their_colours_and_shares_and_hide_once_the_pair_is_shrunk():
    """The stripes run along the other diagonal: at full size plainly more than the visibility check
    asks, while shrunk 1.5x (a 2K pair at a model's 1344 px) the object's colour barely moves."""
    obj = PlacedObject(0, "padlock", "green", 40, 100, 100, style="striped", accent="blue")
    scene = Scene(200, 200, "wood", 0, "neutral", 1, (obj,))
    edit = turn_stripes(scene, obj)
    new = edit.scene.object(0)
    assert new.turned and look_words(new) == look_words(obj) and look_key(new) != look_key(obj)
    assert edit.text == "The stripes of the green-and-blue striped padlock now run the other way."
    assert (edit.kind, edit.cues[1].label) == ("turn", "padlock (stripes turned)")
    before, after = render(scene), render(edit.scene)
    assert (np.abs(before.astype(int) - after.astype(int)).max(axis=2) > 24).sum() >= 2 * MIN_VISIBLE_PIXELS
    x, y, w, h = footprint(obj)
    body = [np.asarray(img[y:y + h, x:x + w], float).reshape(-1, 3).mean(axis=0) for img in (before, after)]
    assert np.abs(body[0] - body[1]).max() < 6  # the same mix of colours: a shrunk pair shows the same object
    assert turn_stripes(scene, dataclasses.replace(obj, style="dotted")) is None


def test_turn_rows_offer_four_striped_objects_turned_with_decoys_of_both_ways():
    """With `turns` every row that finds four striped objects turns each, so a reader who sees
    nothing at a glance is left with all five letters; without it no draw is taken."""
    cfg = SceneConfig.from_difficulty(dataclasses.replace(SMALL_HARD.difficulty, turns=1.0))
    rows = decoyed("attribute", n=8, cfg=cfg)
    turned = [(base, edits) for base, edits, _ in rows if any(e.kind == "turn" for e in edits)]
    assert len(turned) == len(rows)
    for base, edits in turned:
        assert [e.kind for e in edits] == ["turn"] * 4 and len({e.about for e in edits}) == 4
        for edit in edits:
            obj = base.object(edit.about)
            assert obj.style == "striped" and obj.size >= TURN_MIN_SIZE
            before, after = edit.states
            assert count(before, base, edit.about) >= 1 and count(after, base, edit.about) >= 1
            assert count(before, edit.scene, edit.about) >= 1 and count(after, edit.scene, edit.about) >= 1
    assert_no_draw_without_a_share(attribute.propose, attribute.object_edits, turns=0.0)


def assert_no_draw_without_a_share(propose, usual, **share):
    """With the share at 0, `propose` draws exactly what the usual edits draw (presets keep their rows)."""
    none = SceneConfig.from_difficulty(dataclasses.replace(SMALL_HARD.difficulty, **share))
    rng, scene = np.random.default_rng(0), random_scene(np.random.default_rng(0), none)
    state = rng.bit_generator.state
    propose(rng, scene, none)
    taken = rng.bit_generator.state
    rng.bit_generator.state = state
    usual(rng, scene, none)
    assert rng.bit_generator.state == taken


def test_a_turn_row_needs_four_objects_a_turn_may_take():
    cfg = SceneConfig.from_difficulty(dataclasses.replace(SMALL_HARD.difficulty, turns=1.0))
    names = ("padlock", "mug", "suitcase", "radio", "rocket")
    objects = tuple(PlacedObject(i, name, "green", 40, 100 + 150 * i, 100, style="striped", accent="blue")
                    for i, name in enumerate(names))
    scene = Scene(900, 300, "wood", 0, "neutral", 1, objects)
    staged = attribute.stripe_rows(np.random.default_rng(0), scene, cfg)
    assert staged.scene == scene  # four striped objects already: nothing is restyled
    assert [e.kind for e in staged.edits] == ["turn"] * 4 and len({e.about for e in staged.edits}) == 4
    three = dataclasses.replace(scene, objects=objects[:3])
    assert attribute.stripe_rows(np.random.default_rng(0), three, cfg) is None
    small = dataclasses.replace(scene, objects=objects[:3] + tuple(
        dataclasses.replace(o, style="plain", size=TURN_MIN_SIZE - 2) for o in objects[3:]))
    assert attribute.stripe_rows(np.random.default_rng(0), small, cfg) is None  # too small to stripe


def test_turn_rows_draw_objects_striped_in_both_images_where_the_scene_has_too_few():
    """Plain objects of the size a turn takes are drawn striped in their own colours in the row's
    base scene (image 1 and every image 2), only their style changed, until six names have one;
    an object whose stripes would be illegible, or a namesake's in swapped colours, stays as it was."""
    cfg = SceneConfig.from_difficulty(dataclasses.replace(SMALL_HARD.difficulty, turns=1.0))
    names = ("padlock", "mug", "suitcase", "radio", "rocket", "guitar", "drum", "trophy")
    objects = tuple(PlacedObject(i, name, "green", 40, 100 + 120 * i, 100, accent="blue")
                    for i, name in enumerate(names))
    twin = PlacedObject(len(names), "mug", "blue", 30, 100, 250, style="striped", accent="green")  # too small to turn
    scene = Scene(1100, 400, "wood", 0, "neutral", 1, objects + (twin,))
    staged = attribute.stripe_rows(np.random.default_rng(0), scene, cfg)
    restyled = [o for o in objects if staged.scene.object(o.uid) != o]
    # a guitar's or a drum's stripes would not be legible (the audited rules), a mug's would be its
    # namesake's in swapped colours
    assert {o.name for o in restyled} == {"padlock", "suitcase", "radio", "rocket", "trophy"}
    assert all(staged.scene.object(o.uid) == dataclasses.replace(o, style="striped") for o in restyled)
    assert [e.kind for e in staged.edits] == ["turn"] * 4
    assert {e.about for e in staged.edits} <= {o.uid for o in restyled}
    for edit in staged.edits:
        changed = [o.uid for o in edit.scene.objects if o != staged.scene.object(o.uid)]
        assert changed == [edit.about] and edit.scene.object(edit.about).style == "striped"


def test_a_moves_landmark_is_a_near_neighbour_where_options_call_objects_as_one_of_several():
    """'A red cup moved from below a blender': with decoys the blender is one of the cup's near
    neighbours before the move, as near as where the move lands (`move_reach`), not one 300 px off."""
    moves = [(base, edit) for base, edits, _ in decoyed("spatial_relation", n=6) for edit in edits
             if edit.kind == "move"]
    assert len(moves) >= 12  # flip rows offer two moves, the others four
    for base, edit in moves:
        before, _ = edit.states
        mover, ref = footprint(base.object(before.mover.uid)), footprint(base.object(before.ref.uid))
        centre = lambda box: (box[0] + box[2] / 2, box[1] + box[3] / 2)  # noqa: E731
        assert math.dist(centre(mover), centre(ref)) <= HARD.move_reach < NEAR, edit.text
