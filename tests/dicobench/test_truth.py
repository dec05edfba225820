"""Every distractor is false on the pixels as a person reads them: a look-alike or a kind of the
named object makes an option about it true, so the checks count look-alikes as that object."""

import dataclasses

import numpy as np
import pytest

from dicobench.checks import Rejected
from dicobench.kit.scene.difficulty import HARD
from dicobench.kit.scene.model import PlacedObject, Scene
from dicobench.kit.scene.random_scenes import SceneConfig
from dicobench.kit.scene.render import footprint
from dicobench.sources.procedural import SceneCandidate, ScenePair, scene_commonality
from dicobench.sources.relations import relations
from dicobench.tasks import category, commonality_reasoning, instance, spatial_grounding
from dicobench.tasks.registry import get_task

AUDITED = "audited"


def scene(*objects, background="wood"):
    placed = tuple(PlacedObject(i, name, colour, 40, cx, cy) for i, (name, colour, cx, cy) in enumerate(objects))
    return Scene(600, 600, background, 0, "neutral", 1, placed)


def test_a_relation_holds_for_a_look_alike_of_its_object():
    # the review's "RAM stick fits into the desktop computer" where image 2 held a television
    a, b = scene(("RAM stick", "red", 100, 100)), scene(("television", "blue", 300, 300), background="tiles")
    assert "RAM stick / desktop computer" in commonality_reasoning.commonalities(a, b, AUDITED)
    assert commonality_reasoning.commonalities(a, b, "first-release") == frozenset()
    rels = {(r.x, r.y) for r in relations(AUDITED)}
    assert ("fish", "cat") in rels and not any("whole fish" in r or "handcuffs" in r for r in rels)


def test_a_kind_is_shared_when_both_images_hold_objects_read_as_it():
    a, b = scene(("clock", "red", 100, 100)), scene(("bowling ball", "blue", 300, 300), background="tiles")
    assert {"clock", "bowling ball"} <= category.commonalities(a, b, AUDITED)
    # a steel drum is a drum, in every version (names whose meanings are near are refused apart)
    a, b = scene(("drum", "red", 100, 100)), scene(("steel drum", "blue", 300, 300), background="tiles")
    assert "drum" in category.commonalities(a, b, "first-release")


def test_the_same_instance_may_be_a_look_alike_in_the_same_look():
    a, b = scene(("clock", "red", 100, 100)), scene(("bowling ball", "red", 300, 300), background="tiles")
    assert "clock" in instance.commonalities(a, b, AUDITED)
    # in another look it is no longer the same instance, yet both images hold what a person may call
    # a clock: an audited instance row counts every kind seen in both, so that an E pair shares none
    # (the review's E row whose four objects stood in both images); the first release counted instances
    b = scene(("bowling ball", "green", 300, 300), background="tiles")
    assert {"clock", "bowling ball"} <= instance.commonalities(a, b, AUDITED)
    assert instance.commonalities(a, b, "first-release") == frozenset()
    with pytest.raises(Rejected, match="instance_kind_shared"):  # the same kind as another instance
        instance.commonalities(a, scene(("clock", "green", 300, 300), background="tiles"), AUDITED)


def test_a_grid_pair_holds_for_look_alikes_in_corresponding_cells():
    a, b = scene(("key", "red", 150, 150)), scene(("clock", "blue", 150, 150), background="tiles")
    assert "key / bowling ball" in spatial_grounding.commonalities(a, b, AUDITED)


def _rows_check(pair: ScenePair, commonalities):
    """Run the row pipeline's checks of a pair on a hand-made one (the hard preset's catalogue): the
    proposer's, before it draws, and `make_row`'s."""
    proposer = scene_commonality(lambda rng, cfg: pair, commonalities)
    opts = type("Opts", (), {"scene": SceneConfig.from_difficulty(HARD)})()
    proposal = proposer(get_task("category"), 0, opts)
    proposal.check.proposal(proposal)


def test_rows_whose_distractor_reads_true_are_rejected():
    a = scene(("clock", "red", 100, 100), ("key", "green", 400, 100), ("umbrella", "purple", 100, 400),
              ("guitar", "orange", 400, 400))
    b = scene(("mug", "blue", 300, 300), background="tiles")

    def cand(name, colour):
        obj = PlacedObject(9, name, colour, 40, 300, 450)
        return SceneCandidate(f"Both images contain a {name}.", name, b.add(obj=obj), (footprint(obj),), ())

    fine = ScenePair(a, b, tuple(cand(name, "yellow") for name in ("clock", "key", "umbrella", "guitar")))
    _rows_check(fine, category.commonalities)
    # with a bowling ball in image 2, "both images contain a clock" reads true on the key's pair too
    ball = PlacedObject(5, "bowling ball", "grey", 40, 100, 500)
    b2 = b.add(obj=ball)
    bad = ScenePair(a, b2, tuple(dataclasses.replace(c, scene_b=c.scene_b.add(obj=ball)) for c in fine.candidates))
    with pytest.raises(Rejected, match="none_pair_shares"):
        _rows_check(bad, category.commonalities)
    # the options are checked first, as `make_row` checks them: two options, with the E pair shared
    with pytest.raises(Rejected, match="options_shape"):
        _rows_check(dataclasses.replace(bad, candidates=bad.candidates[:2]), category.commonalities)


@pytest.mark.parametrize("module", [category, commonality_reasoning, instance, spatial_grounding])
def test_hard_proposals_keep_every_distractor_false(module):
    """Whole hard proposals: in the E pair nothing reads as shared, and in each candidate pair, of
    the options, only the candidate's own (look-alikes of every object counted)."""
    cfg = SceneConfig.from_difficulty(HARD)
    checked = 0
    for seed in range(10):  # a category proposal is drawn again often (an E pair that shares): 3 of 10 hold
        pair = module.propose(np.random.default_rng(seed), cfg)
        if pair is None:
            continue
        subjects = {c.subject for c in pair.candidates}
        try:
            if module.commonalities(pair.scene_a, pair.scene_b, AUDITED):
                continue  # the pipeline rejects it (none_pair_shares)
            for c in pair.candidates:
                assert module.commonalities(pair.scene_a, c.scene_b, AUDITED) & subjects == {c.subject}
        except Rejected:
            continue
        checked += 1
    assert checked >= 2
