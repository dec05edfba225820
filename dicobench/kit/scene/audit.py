"""Measures behind the catalogue audit: how alike two glyphs' silhouettes are at cue size.

A person confuses two objects at 18-24 px when their outlines and holes nearly coincide (a
clock and a bowling ball, a phone and a tablet). `silhouette_similarity` ranks every pair of a
catalogue by the overlap of their upright ink, each glyph drawn at the given size, trimmed to
its ink, centred on a square and compared at that resolution, the second one also turned by up
to `max_turn` degrees (scenes turn objects by up to 30). The audit decided each close pair by
looking at the contact sheet (`dicobench.kit.scene.contact_sheet`): drop one, or keep both as
look-alikes (`dicobench.kit.scene.catalogue.LOOKALIKE_GROUPS`), which the truth checks then treat as
possibly read as each other.
"""

from __future__ import annotations

import itertools
from typing import Sequence

import numpy as np
from PIL import Image

from dicobench.kit.scene.catalogue import CatalogueEntry
from dicobench.kit.scene.render import glyph_mask

TURNS = range(-45, 46, 15)


def _square(mask: np.ndarray, side: int, turn: int = 0) -> np.ndarray:
    img = Image.fromarray((mask * 255).astype(np.uint8))
    if turn:
        img = img.rotate(turn, resample=Image.Resampling.BICUBIC, expand=True)
    ink = np.asarray(img, np.float32) / 255
    ys, xs = np.nonzero(ink > 0.3)
    ink = ink[ys.min() : ys.max() + 1, xs.min() : xs.max() + 1]
    h, w = ink.shape
    s = max(h, w)
    square = np.zeros((s, s), np.float32)
    square[(s - h) // 2 : (s - h) // 2 + h, (s - w) // 2 : (s - w) // 2 + w] = ink
    return np.asarray(Image.fromarray((square * 255).astype(np.uint8)).resize((side, side), Image.Resampling.BOX),
                      np.float32) / 255


def _overlap(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.minimum(a, b).sum() / max(np.maximum(a, b).sum(), 1e-6))


def silhouette_similarity(entries: Sequence[CatalogueEntry], size: int = 22, max_turn: int = 45
                          ) -> list[tuple[float, str, str]]:
    """(similarity in [0, 1], name, name) for every pair, most alike first."""
    turns = [t for t in TURNS if abs(t) <= max_turn]
    masks = {e.name: glyph_mask(e.codepoint, "solid", size) for e in entries}
    upright = {n: _square(m, size) for n, m in masks.items()}
    turned = {n: [_square(m, size, t) for t in turns] for n, m in masks.items()}
    pairs = [(max(_overlap(upright[a], t) for t in turned[b]), a, b) for a, b in itertools.combinations(masks, 2)]
    return sorted(pairs, key=lambda p: (-p[0], p[1], p[2]))
