"""The procedural image sources: image set `index` as a pure function of its seeds.

`procedural_edit` and `procedural_scene` sets come from the first release's builders
(`image_sets`) or, at difficulties past them (`PanelDifficulty.varied`), from `varied`.
"""

from __future__ import annotations

import numpy as np

from multipanelvqa.difficulty import EASY, PanelDifficulty
from multipanelvqa.sources import image_sets, varied
from multipanelvqa.sources.image_sets import PROCEDURAL, ImageSet

ATTEMPTS = 50


def set_seed(root: int, source: str, index: int, attempt: int = 0) -> int:
    ss = np.random.SeedSequence([root, 1 + PROCEDURAL.index(source), index, attempt])
    return int(ss.generate_state(1, np.uint64)[0] >> np.uint64(1))


def procedural_set(source: str, index: int, root: int, fresh: int = 0, difficulty: PanelDifficulty = EASY) -> ImageSet:
    """Image set `index` of a procedural source: a pure function of (source, index, root seed,
    difficulty). `fresh` > 0 draws a replacement from seeds of its own (for an image reviewers
    rejected)."""
    builders = varied if difficulty.varied else image_sets
    make = {"procedural_edit": builders.edit_set, "procedural_scene": builders.scene_set}[source]
    for attempt in range(fresh * ATTEMPTS, (fresh + 1) * ATTEMPTS):
        seed = set_seed(root, source, index, attempt)
        result = make(np.random.default_rng(seed), f"{source}:{seed}", difficulty)
        if result is not None:
            return result
    raise RuntimeError(f"{source} set {index}: no valid set in {ATTEMPTS} attempts")
