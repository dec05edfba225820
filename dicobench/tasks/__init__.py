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
