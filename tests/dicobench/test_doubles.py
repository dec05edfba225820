"""Glance doubles in category rows (`dicobench.kit.scene.audit.glance_doubles`, `--doubles`): image b
holds, for every option, another kind whose outline shrunk to a glance's size is much like the
option's, and a candidate draws its own stand-in as the option's kind."""

import dataclasses

import numpy as np
from test_decoys import HARD_COUNTS, SMALL_HARD

from dicobench.checks import Rejected
from dicobench.kit.scene.audit import ALIKE_AT_A_GLANCE, GLANCE_SIZE, glance_doubles, outline_overlap
from dicobench.kit.scene.catalogue import read_as
from dicobench.kit.scene.difficulty import HARD
from dicobench.kit.scene.random_scenes import SceneConfig
from dicobench.sources.procedural import names, read_names
from dicobench.tasks import category

# hard draws glance doubles in every row
DOUBLED = SceneConfig.from_difficulty(dataclasses.replace(SMALL_HARD.difficulty, **HARD_COUNTS))


def doubled_pairs(n: int = 3):
    """The first `n` category pairs at `hard` that the row assembly would accept."""
    out = []
    for seed in range(12 * n):
        pair = category.propose(np.random.default_rng(seed), DOUBLED)
        try:
            if pair is not None and not category.commonalities(pair.scene_a, pair.scene_b, "audited"):
                out.append(pair)
        except Rejected:
            continue
        if len(out) == n:
            return out
    raise AssertionError(f"only {len(out)} of {n} doubled category pairs")


def test_a_glance_double_is_alike_shrunk_and_never_read_as_the_kind():
    doubles = glance_doubles("apple", "audited")
    assert "cardboard box" in doubles and "apple" not in doubles
    for name in ("apple", "egg", "bandage", "document"):
        for double in glance_doubles(name, "audited"):
            assert double not in read_as(name, "audited")
            assert outline_overlap(name, double, GLANCE_SIZE) >= ALIKE_AT_A_GLANCE


def test_an_egg_is_no_glance_double_of_a_computer_mouse():
    """The tenth review: a small two-tone egg standing as a computer mouse's glance double was taken
    for the option's mouse at zoom (instance 73). They are look-alikes now, so neither stands in for
    the other, and a scene holding one counts as showing both."""
    assert outline_overlap("egg", "computer mouse", GLANCE_SIZE) >= ALIKE_AT_A_GLANCE
    assert "egg" not in glance_doubles("computer mouse", "audited")
    assert "computer mouse" not in glance_doubles("egg", "audited")
    assert "egg" in read_as("computer mouse", "audited") and "egg" not in read_as("computer mouse")


def test_image_b_holds_a_stand_in_for_every_option_and_a_candidate_draws_its_own_as_its_kind():
    for pair in doubled_pairs():
        options = [c.subject for c in pair.candidates]
        assert not set(options) & names(pair.scene_b)  # the E pair holds none of the options' kinds
        base = {o.uid: o for o in pair.scene_b.objects}
        for cand in pair.candidates:
            changed = [o for o in cand.scene_b.objects if base[o.uid] != o]
            assert len(changed) == 1 and len(cand.scene_b.objects) == len(base)
            drawn = changed[0]
            stand_in = base[drawn.uid]
            assert drawn.name == cand.subject and stand_in.name in glance_doubles(cand.subject, "audited")
            assert dataclasses.replace(stand_in, name=drawn.name) == drawn  # place, size, pose and look kept
            assert category.commonalities(pair.scene_a, cand.scene_b, "audited") & set(options) == {cand.subject}
        # one stand-in per option, each of a kind image a does not hold nor may be read as
        stand_ins = pair.scene_b.objects[-4:]
        assert [s.name in glance_doubles(k, "audited") for s, k in zip(stand_ins, options)] == [True] * 4
        assert not read_names(pair.scene_a, "audited") & {s.name for s in stand_ins}


def test_the_hard_preset_doubles_every_category_instance_and_spatial_grounding_row():
    """At 0.75 a doubled draw that found no stand-ins was drawn again, and a fresh draw was plain in a
    quarter of tries, so 56-62% of the default build's rows held stand-ins; plain rows were read at a
    glance far more often (docs/guides/difficulty.md)."""
    assert HARD.doubles == 1.0
    assert "glance doubles in category, instance and spatial grounding rows (share 1)" in HARD.describe()
