"""Measures behind the catalogue audit: how alike two glyphs' silhouettes are at cue size.

A person confuses two objects at 18-24 px when their outlines and holes nearly coincide (a
clock and a bowling ball, a phone and a tablet). `silhouette_similarity` ranks every pair of a
catalogue by the overlap of their upright ink, each glyph drawn at the given size, trimmed to
its ink, centred on a square and compared at that resolution, the second one also turned by up
to `max_turn` degrees (scenes turn objects by up to 30). The audit decided each close pair by
looking at the contact sheet (`dicobench.kit.scene.contact_sheet`): drop one, or keep both as
look-alikes (`dicobench.kit.scene.catalogue.LOOKALIKE_GROUPS`), which the truth checks then treat as
possibly read as each other.

`marking_reads` measures the instance markings the same way: each drawn on every glyph at the sizes
marked objects are drawn at, turned, and read from its pixels alone; a sticker must read as one
round piece, spots as several, a band as a long one, never as another marking.
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
from collections import Counter
from typing import Sequence

import numpy as np
from PIL import Image

from dicobench.kit.scene.catalogue import CatalogueEntry, by_name, load_catalogue, read_as
from dicobench.kit.scene.contact_sheet import SURFACE
from dicobench.kit.scene.glyphs import glyph_mask
from dicobench.kit.scene.legibility import legible
from dicobench.kit.scene.markings import MARKINGS, read_marking
from dicobench.kit.scene.model import PlacedObject
from dicobench.kit.scene.palette import COLOURS
from dicobench.kit.scene.render import object_patch

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


@functools.lru_cache(maxsize=1024)
def _squares(name: str, size: int) -> dict[int, np.ndarray]:
    """Glyph `name`'s ink at `size` on a square, upright (0) and turned by each of `TURNS`."""
    mask = glyph_mask(by_name()[name].codepoint, "solid", size)
    return {t: _square(mask, size, t) for t in sorted({0, *TURNS})}


def silhouette_similarity(entries: Sequence[CatalogueEntry], size: int = 22, max_turn: int = 45
                          ) -> list[tuple[float, str, str]]:
    """(similarity in [0, 1], name, name) for every pair, most alike first."""
    turns = [t for t in TURNS if abs(t) <= max_turn]
    names = [e.name for e in entries]
    pairs = [(max(_overlap(_squares(a, size)[0], _squares(b, size)[t]) for t in turns), a, b)
             for a, b in itertools.combinations(names, 2)]
    return sorted(pairs, key=lambda p: (-p[0], p[1], p[2]))


def outline_overlap(a: str, b: str, size: int) -> float:
    """How much two catalogue objects' upright outlines, each shrunk to `size` px, coincide (0-1)."""
    return _overlap(_squares(a, size)[0], _squares(b, size)[0])


# how much two outlines shrunk to 8 px must coincide for one object to look, at a glance, much like
# the other (a cue-sized object spans 11-16 px once a 2K pair is shrunk to 1344 px): 78 of the 205
# audited names have a partner of another category this alike (a cardboard box and a calendar 0.88,
# an envelope and a wallet 0.83), while every pair not in a look-alike group stays told apart at
# cue size (the catalogue audit)
GLANCE_SIZE, ALIKE_AT_A_GLANCE = 8, 0.7


@functools.lru_cache(maxsize=None)
def glance_doubles(name: str, version: str) -> frozenset[str]:
    """The kinds of the catalogue `version` a glance at a shrunk image takes for `name` while a
    person with zoom does not (none of its look-alikes): the objects that hide a change or a
    commonality from a glance and show it to zoom."""
    unlike = read_as(name, version)
    return frozenset(e.name for e in load_catalogue(version)
                     if e.name not in unlike and outline_overlap(name, e.name, GLANCE_SIZE) >= ALIKE_AT_A_GLANCE)


def alike(a: str, b: str, size: int = 22) -> float:
    """How alike two catalogue objects' silhouettes are at cue size (`silhouette_similarity` of the
    pair, taken both ways)."""
    return max(_overlap(_squares(x, size)[0], _squares(y, size)[t]) for x, y in ((a, b), (b, a)) for t in TURNS)


def marking_reads(entries: Sequence[CatalogueEntry], sizes: Sequence[int], fitted: bool,
                  turns: Sequence[int] = (0, 40), drawn_only: bool = True) -> Counter:
    """How each marking the catalogue draws reads from its pixels (`dicobench.kit.scene.markings.
    read_marking`): (marking, read) -> how many of `entries` x `sizes` x `turns` read so. Each object
    is drawn blue with yellow marks, unlit and turned as a scene turns it, and its yellow pixels
    read; `fitted` markings as the audited catalogue places them (`drawn_only`: only where its
    rules draw them), else at the first release's places, everywhere."""
    out: Counter = Counter()
    body, mark = np.asarray(COLOURS["blue"], np.float32), np.asarray(COLOURS["yellow"], np.float32)
    for entry in entries:
        for size in sizes:
            for marking in MARKINGS:
                obj = PlacedObject(0, entry.name, "blue", size, 0, 0, accent="yellow", marking=marking,
                                   marking_fit=fitted, shading=0.0, shadow=0.0)
                if drawn_only and fitted and not legible(obj, SURFACE):
                    continue
                for turn in turns:
                    patch = object_patch(dataclasses.replace(obj, rotation=turn))
                    yellow = ((np.abs(patch.rgb - mark).sum(axis=2) < np.abs(patch.rgb - body).sum(axis=2))
                              & (patch.alpha > 0.5))
                    out[marking, read_marking(yellow)] += 1
    return out
