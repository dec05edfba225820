"""Task generators, one module per task, each registered in `dicobench.tasks.registry`.

Each module's `proposal` is its procedural proposer (see `dicobench.sources.procedural`): difference
tasks build it from `propose(rng, scene, cfg) -> list[SceneEdit] | None`, four edits of one base
scene on four different objects (options A-D); commonality tasks from
`propose(rng, cfg) -> ScenePair | None` and `commonalities(scene_a, scene_b)`, what two scenes
really share, used to check every row."""

from __future__ import annotations

from typing import Callable, Iterable

import numpy as np

from benchkit.scene.model import PlacedObject, Scene
from dicobench.editors.scene import SceneEdit

NUM_EDITS = 4


def collect(
    rng: np.random.Generator,
    scene: Scene,
    make: Callable[[PlacedObject, frozenset[str]], SceneEdit | None],
    candidates: Iterable[PlacedObject] | None = None,
) -> list[SceneEdit] | None:
    """Four edits whose objects (subjects and any references) are all different, or None."""
    objects = list(candidates if candidates is not None else scene.objects)
    used: set[str] = set()
    edits: list[SceneEdit] = []
    for idx in rng.permutation(len(objects)):
        obj = objects[idx]
        if obj.name in used:
            continue
        edit = make(obj, frozenset(used))
        if edit is None or used.intersection(edit.touched):
            continue
        edits.append(edit)
        used.update(edit.touched)
        if len(edits) == NUM_EDITS:
            return edits
    return None


def collect_pairs(
    rng: np.random.Generator,
    scene: Scene,
    make_pair: Callable[[PlacedObject, frozenset[str]], tuple[SceneEdit, SceneEdit] | None],
    candidates: Iterable[PlacedObject] | None = None,
) -> list[SceneEdit] | None:
    """Four edits as two pairs, each two mutually exclusive edits of one object (no object of one
    pair in the other), in a seeded order; or None. Seeing which object changed then leaves two
    options, and the text names each object twice, so it says nothing about which one changed."""
    objects = list(candidates if candidates is not None else scene.objects)
    used: set[str] = set()
    edits: list[SceneEdit] = []
    for idx in rng.permutation(len(objects)):
        obj = objects[idx]
        if obj.name in used:
            continue
        pair = make_pair(obj, frozenset(used))
        if pair is None:
            continue
        touched = set(pair[0].touched) | set(pair[1].touched)
        if used & touched:
            continue
        edits.extend(pair)
        used |= touched
        if len(edits) == NUM_EDITS:
            return [edits[i] for i in rng.permutation(NUM_EDITS)]
    return None


def edits_for(rng: np.random.Generator, scene: Scene, cfg, make, make_pair, candidates=None) -> list[SceneEdit] | None:
    """The row's four edits as the difficulty's `distractors` dial asks: one edit each of four
    objects (`make`), or two edits each of two (`make_pair`)."""
    if cfg.difficulty.distractors == "pairs":
        return collect_pairs(rng, scene, make_pair, candidates)
    return collect(rng, scene, make, candidates)
