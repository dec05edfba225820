"""Text-only baselines shared by the track tests: every strategy of `dicobench.shortcuts`
(which reads only a row's options) stays within chance's 99.9% binomial band."""

from __future__ import annotations

from typing import Iterable, Iterator

import numpy as np

from dicobench.editors.scene import Staged
from dicobench.generate import letter_schedule, sample_seed
from dicobench.kit.scene.random_scenes import SceneConfig, random_scene
from dicobench.schema import DIFFERENCE_TASKS, NONE_OPTIONS
from dicobench.shortcuts import STRATEGIES, text_only
from dicobench.tasks import attribute, difference_reasoning, entity, spatial_relation

PROPOSERS = {"attribute": attribute, "entity": entity, "spatial_relation": spatial_relation,
             "difference_reasoning": difference_reasoning}


def difference_options(cfg: SceneConfig, n: int, *propose_args) -> Iterator[tuple[list[str], str]]:
    """(options, correct letter) of the first `n` rows of every difference task, from their
    proposers alone (scenes of `cfg`; `propose_args` after the scene), as a build would seed them."""
    for task in DIFFERENCE_TASKS:
        letters = letter_schedule(task, n, 0, "test")
        for i in range(n):
            rng = np.random.default_rng(sample_seed(0, "test", task, i, 0))
            edits = PROPOSERS[task].propose(rng, random_scene(rng, cfg), *propose_args)
            edits = edits.edits if isinstance(edits, Staged) else edits
            if edits is not None:
                yield [e.text for e in edits] + [NONE_OPTIONS["difference"]], letters[i]


def assert_at_chance(rows: Iterable[tuple[list[str], str]]) -> int:
    """Check every strategy over (options, correct letter) rows; return how many rows there were."""
    scores = text_only({"task": "attribute", "options": options, "answer": letter} for options, letter in rows)
    if not scores:
        return 0
    overall = scores["overall"]
    for name in STRATEGIES:
        assert overall[name] <= overall["band"], (name, overall[name], overall["n"])
    return int(overall["n"])
