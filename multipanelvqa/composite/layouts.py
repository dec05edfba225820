"""The 210 MultipanelVQA layouts (the paper's Appendix A.1), generated from a seed.

Per style, ten 8-panel base sequences are drawn; each is cut to its first 2..8 panels,
so a layout with fewer panels is a prefix of a larger one and the target (at target_place
first, the first panel placed) keeps its place as panels are added; at target_place any
(hard, extreme) builds put it at a box drawn per image (`generate.place_target`).
3 styles x 10 x 7 = 210.

- splash: same-size squares (180-220 px) scattered without touching, each new one
  placed near an earlier one.
- grid_same / grid_mixed: panels on a lattice of cell size s (180-220 px) centred on
  the canvas; each new panel touches the previous one (so it shares its row or column).
  grid_mixed panels are s or 2s, and the first two already differ so every layout of
  the style mixes sizes.

A base sequence is redrawn when any of its prefixes cannot be given unique position
words, since the questions name the target by position. `words="layout"` (the position words
of the hard presets, `positions.describe_positions`) keeps those bases and moves a panel where
a prefix has no layout words: from the first such prefix on, its last panel is placed again at
another of the spots the generator could have chosen (touching the previous panel in a grid,
near an earlier one without touching any in a splash), the first spot in a seeded order with
which that prefix and every longer one have layout words. At seed 0 this places panels of 7
of the 10 grid_mixed bases again (38 layouts; each keeps its first two panels, so both sizes),
where a panel twice the others' size shared a row or column with them and made its words
ambiguous (`positions._band_reads`), and of 6 of the 10 splash bases (20 layouts; each keeps its
first panel), whose rows or columns overlapped by about half a side (`positions.APART`), so every
build has 210 layouts; `short` words keep the first release's layouts.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from dicobench.kit.scene.geometry import Box, chebyshev_gap, contains, meets, touching
from multipanelvqa.composite.positions import PositionError, describable, describe_positions
from multipanelvqa.schema import CANVAS, LAYOUT_STYLES

MAX_PANELS = 8
MIN_PANELS = 2
BASES_PER_STYLE = 10
SIZE_RANGE = (180, 220)
SPLASH_MIN_GAP = 10  # splash panels never touch: white space shows they are separate
SPLASH_NEAR = 60  # ... but each sits at most this far from an earlier one
_ATTEMPTS = 200  # draws per splash panel before the base sequence is redrawn


@dataclass(frozen=True)
class Layout:
    layout_id: int
    style: str
    # (x, y, w, h) in placement order; boxes[0] is the target at target_place first (generate.place_target)
    boxes: tuple[Box, ...]

    @property
    def num_panels(self) -> int:
        return len(self.boxes)


def generate_layouts(seed: int = 0, words: str = "short") -> list[Layout]:
    """All 210 layouts, ids 0..209 ordered by style, base sequence, then panel count; with
    `words="layout"` a base whose prefixes lack layout words has panels moved (`_with_words`)."""
    layouts = []
    for s, style in enumerate(LAYOUT_STYLES):
        rng = np.random.default_rng([seed, s])
        for b in range(BASES_PER_STYLE):
            base = _describable_base(style, rng)
            if words != "short":
                base = _with_words(base, style, words, np.random.default_rng([seed, s, b, 1]))
            for k in range(MIN_PANELS, MAX_PANELS + 1):
                layouts.append(Layout(len(layouts), style, base[:k]))
    return layouts


def _with_words(base: tuple[Box, ...], style: str, words: str, rng: np.random.Generator) -> tuple[Box, ...]:
    """`base` where every prefix has `words` position words: from the first prefix without them,
    its last panel (then, where that finds no spot, also the one before, and so on) is placed
    again at spots the style's generator could have chosen, each panel at its own spot first and
    otherwise at the first of its candidates in a seeded order that keeps every prefix named (in
    the short words too).
    Raises PositionError when no placement does."""
    first = next((k for k in range(MIN_PANELS, MAX_PANELS + 1) if not describable(base[:k], words)), None)
    if first is None:
        return base
    for keep in range(first - 1, 0, -1):
        moved = _place_again(base[:keep], base, style, words, rng)
        if moved is not None:
            return moved
    raise PositionError(f"no placement gives every prefix of {base} {words} position words")


_CANDIDATES = 30  # spots tried per panel placed again


def _place_again(fixed: tuple[Box, ...], base: tuple[Box, ...], style: str, words: str,
                 rng: np.random.Generator) -> tuple[Box, ...] | None:
    i = len(fixed)
    if i == len(base):
        return fixed
    spots = [c for c in _spots(fixed, base[i], style) if c != base[i]]
    order = [base[i]] + [spots[j] for j in rng.permutation(len(spots))[:_CANDIDATES]]
    for box in order:
        placed = fixed + (box,)
        if _fits(placed, style) and (i + 1 < MIN_PANELS or describable(placed) and describable(placed, words)):
            done = _place_again(placed, base, style, words, rng)
            if done is not None:
                return done
    return None


def _spots(before: tuple[Box, ...], box: Box, style: str) -> list[Box]:
    """Where the generator could have placed a panel of `box`'s size after `before`."""
    d = box[2]
    if style == "splash":
        step = 10
        return [(x, y, d, d) for x in range(0, CANVAS - d + 1, step) for y in range(0, CANVAS - d + 1, step)
                if all(chebyshev_gap((x, y, d, d), b) >= SPLASH_MIN_GAP for b in before)
                and min(chebyshev_gap((x, y, d, d), b) for b in before) <= SPLASH_NEAR]
    s = min(b[2] for b in before + (box,))
    offset = (CANVAS - (CANVAS // s) * s) // 2
    cells = CANVAS // s
    prev = before[-1]
    prev_cell = ((prev[1] - offset) // s, (prev[0] - offset) // s, prev[2] // s)
    placed = [((b[1] - offset) // s, (b[0] - offset) // s, b[2] // s) for b in before]
    spans = (d // s,) if style == "grid_same" else (d // s, 3 - d // s)  # grid_mixed: either size, its own first
    return [(offset + c * s, offset + r * s, k * s, k * s)
            for k in spans for r in range(cells - k + 1) for c in range(cells - k + 1)
            if _touches((r, c, k), prev_cell) and not any(_cells_overlap((r, c, k), p) for p in placed)]


def _fits(boxes: tuple[Box, ...], style: str) -> bool:
    """Whether `boxes` keep the style's rule: no overlaps; in a splash no panel touches another
    and each is near an earlier one; in a grid each touches the previous one."""
    for i in range(1, len(boxes)):
        if style == "splash":
            if (any(chebyshev_gap(boxes[i], b) < SPLASH_MIN_GAP for b in boxes[:i])
                    or min(chebyshev_gap(boxes[i], b) for b in boxes[:i]) > SPLASH_NEAR):
                return False
        elif any(meets(boxes[i], b) for b in boxes[:i]) or not touching(boxes[i], boxes[i - 1]):
            return False
    return True


def _describable_base(style: str, rng: np.random.Generator) -> tuple[Box, ...]:
    while True:
        base = _splash(rng) if style == "splash" else _grid(rng, mixed=style == "grid_mixed")
        if base is None:
            continue
        try:
            for k in range(MIN_PANELS, MAX_PANELS + 1):
                describe_positions(base[:k])
        except PositionError:
            continue
        return base


def _splash(rng: np.random.Generator) -> tuple[Box, ...] | None:
    d = int(rng.integers(SIZE_RANGE[0], SIZE_RANGE[1] + 1))
    boxes = [(int(rng.integers(0, CANVAS - d + 1)), int(rng.integers(0, CANVAS - d + 1)), d, d)]
    while len(boxes) < MAX_PANELS:
        for _ in range(_ATTEMPTS):
            ax, ay, _, _ = boxes[int(rng.integers(len(boxes)))]
            gap = int(rng.integers(SPLASH_MIN_GAP, SPLASH_NEAR + 1))
            slide = int(rng.integers(-d + 1, d))
            side = int(rng.integers(4))
            x, y = [
                (ax - d - gap, ay + slide),
                (ax + d + gap, ay + slide),
                (ax + slide, ay - d - gap),
                (ax + slide, ay + d + gap),
            ][side]
            box = (x, y, d, d)
            if contains((0, 0, CANVAS, CANVAS), box) and all(chebyshev_gap(box, b) >= SPLASH_MIN_GAP for b in boxes):
                boxes.append(box)
                break
        else:
            return None
    return tuple(boxes)


def _grid(rng: np.random.Generator, mixed: bool) -> tuple[Box, ...] | None:
    s = int(rng.integers(SIZE_RANGE[0], SIZE_RANGE[1] + 1))
    cells = CANVAS // s
    offset = (CANVAS - cells * s) // 2
    spans = (1, 2) if mixed else (1,)
    # A panel is (row, col, span) in lattice cells.
    k = int(rng.choice(spans))
    placed = [(int(rng.integers(cells - k + 1)), int(rng.integers(cells - k + 1)), k)]
    while len(placed) < MAX_PANELS:
        prev = placed[-1]
        allowed = [k for k in spans if not (mixed and len(placed) == 1 and k == prev[2])]
        candidates = [
            (r, c, k)
            for k in allowed
            for r in range(cells - k + 1)
            for c in range(cells - k + 1)
            if _touches((r, c, k), prev) and not any(_cells_overlap((r, c, k), p) for p in placed)
        ]
        if not candidates:
            return None
        placed.append(candidates[int(rng.integers(len(candidates)))])
    return tuple((offset + c * s, offset + r * s, k * s, k * s) for r, c, k in placed)


def _cell_box(cell: tuple[int, int, int]) -> Box:
    """A lattice panel (row, col, span) as a box in cells."""
    r, c, k = cell
    return (c, r, k, k)


def _cells_overlap(a: tuple[int, int, int], b: tuple[int, int, int]) -> bool:
    return meets(_cell_box(a), _cell_box(b))


def _touches(a: tuple[int, int, int], b: tuple[int, int, int]) -> bool:
    """Share an edge segment (not just a corner)."""
    return touching(_cell_box(a), _cell_box(b))
