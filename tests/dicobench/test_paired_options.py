"""Paired distractors (`--distractors pairs`, the hard default): each difference row's options are two
edits each of two objects, so seeing where the change is leaves two options, and the text alone
still says nothing. (Rows of turns, flips, look-alike replacements and turned-back trails offer four
objects instead:
tests/dicobench/test_flips.py, test_swaps.py, test_turnbacks.py, test_decoys.py.)"""

import dataclasses
from collections import Counter

import numpy as np
import pytest
from text_only import PROPOSERS, assert_at_chance, difference_options

from dicobench.editors.scene.move import relation
from dicobench.generate import sample_seed
from dicobench.kit.scene.difficulty import HARD
from dicobench.kit.scene.palette import clearly_different
from dicobench.kit.scene.random_scenes import SceneConfig, random_scene
from dicobench.kit.scene.render import footprint
from dicobench.schema import DIFFERENCE_TASKS

# hard scenes on a smaller canvas keep these fast; USUAL without the rows that offer four objects
SMALL_HARD = SceneConfig.from_difficulty(dataclasses.replace(HARD, min_canvas=1000, max_canvas=1100, min_objects=40,
                                                             max_objects=50, same_kind=15))
USUAL = SceneConfig.from_difficulty(dataclasses.replace(SMALL_HARD.difficulty, turns=0, flips=0, swaps=0,
                                                       turnbacks=0))


def proposals(task, n=6):
    out = []
    for i in range(3 * n):
        rng = np.random.default_rng(sample_seed(0, "test", task, i, 0))
        scene = random_scene(rng, USUAL)
        edits = PROPOSERS[task].propose(rng, scene, USUAL)
        if edits is not None:
            out.append((scene, edits))
    assert len(out) >= n, task
    return out[:n]


@pytest.mark.parametrize("task", DIFFERENCE_TASKS)
def test_two_objects_two_distinguishable_edits_each(task):
    for scene, edits in proposals(task):
        by_subject = Counter(e.subject for e in edits)
        assert sorted(by_subject.values()) == [2, 2], [e.text for e in edits]
        assert len({e.text for e in edits}) == 4
        for subject in by_subject:
            first, second = [e for e in edits if e.subject == subject]
            if task == "attribute":
                uid = next(o.uid for o in scene.objects if o.name == subject and o != first.scene.object(o.uid))
                a, b = first.scene.object(uid), second.scene.object(uid)
                assert (a.colour, a.style, a.accent, a.turned) != (b.colour, b.style, b.accent, b.turned)
                if a.colour != b.colour and a.style == b.style:
                    assert clearly_different(a.colour, b.colour)  # two new colours a person tells apart
                if (a.colour, a.style) == (b.colour, b.style):  # two part edits: two new colours of the part
                    assert first.kind == second.kind == "part" and clearly_different(a.accent, b.accent)
            elif task == "spatial_relation":
                mover = next(o for o in scene.objects if o.name == subject and o != first.scene.object(o.uid))
                ref_name = first.touched[1]
                assert second.touched[1] == ref_name  # the same landmark, two destinations
                ref = next(o for o in scene.objects if o.name == ref_name)
                after = [relation(footprint(e.scene.object(mover.uid)), footprint(ref)) for e in (first, second)]
                assert after[0] != after[1] and None not in after
            elif task == "difference_reasoning":
                kinds = [e.cues[0].label.split(" ")[0] for e in (first, second)]  # "crack on ...", "footprints by ..."
                assert kinds[0] != kinds[1] and {"spill", "puddle"} != set(kinds)
            else:
                assert first.scene != second.scene


@pytest.mark.parametrize("distractors", ["objects", "pairs"])
def test_text_only_strategies_stay_at_chance(distractors):
    """Which object the options name twice, or which option is the odd one out, says nothing."""
    cfg = dataclasses.replace(SMALL_HARD,
                              difficulty=dataclasses.replace(SMALL_HARD.difficulty, distractors=distractors))
    n = 30
    assert assert_at_chance(difference_options(cfg, n, cfg)) >= 0.7 * n * len(DIFFERENCE_TASKS)
