"""Position descriptions ("top left subfigure", ...) and caption numbers, from geometry alone.

The paper had humans annotate where each subfigure is; here the words are derived from
the boxes so every layout gets them, and a description is only used when it picks out
exactly one panel. Descriptions are noun phrases ending in or containing "subfigure",
so questions can say "the {description}".

Three schemes are tried: rows (panels grouped by shared vertical extent, read left to
right), columns (the transpose), and, when neither grouping is clean (scattered splash
layouts), ranks along one axis ("second subfigure from the left") with a visible gap to
the neighbours. Among clean row/column schemes the shorter wording wins, or, with
`words="layout"`, the one that names the first box (the target) at most length, e.g.
"second column from the left" over "top row" (a reader must count rows or columns).

`words="layout"` also names each panel as a person reads the layout. "top left" is read
as the top row's left panel, the left column's top panel, or the panel in the top row and
the left column; in a scattered or irregular layout these can be different panels (the top
row's left panel may sit right of a lower panel, "bottom middle" may be the bottom row's
middle one or the middle column's bottom one). So a two-word position ("bottom middle
subfigure") is used only where rows and columns are both clean and every reading names
the same panel; elsewhere the group is said ("middle subfigure in the bottom row"), and a
lone panel of a middle row or column is "subfigure in the middle row", never a bare
"middle subfigure" (middle of which axis?). A row that holds a panel twice its others' height
is read two ways too (the spanning panel in the row, or the row as the band of small panels),
so a panel is named by its place in a row or column only where both readings name it; and rows
(columns) count only where panels of different ones overlap by well under half a side (`APART`).
`short` keeps the first release's words.

Words that would change if a threshold moved a little (a panel half in a row, a barely
visible gap) are refused: they are unclear to a reader, and they could change when an
augmentation rescales the boxes by a rounding pixel.
"""

from __future__ import annotations

import itertools
from typing import Sequence

from dicobench.kit.scene.geometry import Box, centre, centre_distance, chebyshev_gap, span_overlap, xyxy

ORDINALS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth")
# Two boxes share a row (column) when their vertical (horizontal) extents overlap by at
# least this fraction of the shorter one.
SHARE = 0.6
# Ranks along an axis are only named when neighbouring centres differ by this fraction of
# the smallest panel side, so the order is visible at a glance.
RANK_GAP = 0.2
# Both thresholds are moved by this much either way; the words must not change.
SLACK = 0.05
# A panel at least this much taller (wider) than a row's (column's) smallest spans beyond the band
# the smaller ones form.
BAND = 1.33
# Layout words: panels of different rows (columns) overlap along the axis by less than this share of
# the shorter side (moved with SHARE by the slack), or a reader may put one in the other's row:
# careful readers did so at 0.38-0.49 (splash layouts 3 and 33).
APART = 0.35

# (low, high, middle) words per axis: 0 is x, 1 is y.
_SIDES = {0: ("left", "right", "middle"), 1: ("top", "bottom", "middle")}


class PositionError(ValueError):
    """The boxes cannot be told apart by position words."""


def describe_positions(boxes: Sequence[Box], words: str = "short") -> list[str]:
    """One description per box, unique within the layout; raises PositionError otherwise.
    `words` is "short" (the shortest clean scheme) or "layout" (words as a person reads the
    layout, the scheme that names the first box at most length; the shortest such scheme
    where the longest is borderline)."""
    boxes = [tuple(int(v) for v in b) for b in boxes]
    if len(boxes) < 2:
        raise PositionError("need at least two boxes to describe positions")
    if words == "short":
        return _robust(boxes, "short", None)
    # a box keeps a two-word position only if every reading agrees at every threshold
    agreed = set.intersection(*(_agreed(boxes, *(_groups(boxes, axis, SHARE + ds, True) for axis in (1, 0)))
                                for ds in (-SLACK, 0, SLACK)))
    try:
        return _robust(boxes, "longest", agreed)
    except PositionError:
        return _robust(boxes, "shortest", agreed)


def _robust(boxes: list[Box], prefer: str, agreed: set[int] | None) -> list[str]:
    """The descriptions, refused when moving the thresholds a little changes them or they repeat."""
    descriptions = _describe(boxes, SHARE, RANK_GAP, prefer, agreed)
    for ds in (-SLACK, SLACK):
        for dg in (-SLACK, SLACK):
            if _describe(boxes, SHARE + ds, RANK_GAP + dg, prefer, agreed) != descriptions:
                raise PositionError(f"positions of {boxes} are borderline: they depend on the thresholds")
    if len(set(descriptions)) != len(descriptions):
        raise PositionError(f"descriptions are not unique: {descriptions}")
    return descriptions


def describable(boxes: Sequence[Box], words: str = "short") -> bool:
    """Whether every box has words in `words`: the layouts are drawn so that the short words
    exist; a few have no layout words, and builds that ask for those skip them (and say so).
    Layout words name the first box (the target) at most length, so they must exist whichever box
    a build puts first (`generate.place_target`)."""
    boxes = tuple(boxes)
    orders = [boxes] if words == "short" else [(b, *boxes[:i], *boxes[i + 1:]) for i, b in enumerate(boxes)]
    try:
        for order in orders:
            describe_positions(order, words)
    except PositionError:
        return False
    return True


def _describe(boxes: list[Box], share: float, gap: float, prefer: str = "short",
              agreed: set[int] | None = None) -> list[str]:
    layout = agreed is not None
    rows, columns = _groups(boxes, 1, share, layout), _groups(boxes, 0, share, layout)
    schemes = [s for s in (_grouped(boxes, rows, 1, agreed), _grouped(boxes, columns, 0, agreed)) if s is not None]
    if schemes:
        if prefer == "longest":
            return max(schemes, key=lambda s: (len(s[0].split()), sum(len(d.split()) for d in s)))
        return min(schemes, key=lambda s: sum(len(d.split()) for d in s))
    return _ranked(boxes, gap, edges=agreed is not None)


def caption_numbers(boxes: Sequence[Box]) -> list[int]:
    """Caption number (1-based) per box in reading order: bands of half a panel height top to
    bottom, then left to right.

    Numbering by reading order rather than placement order keeps the target (always
    placed first) from always being "1".
    """
    tol = min(min(b[2], b[3]) for b in boxes) / 2
    order = sorted(range(len(boxes)), key=lambda i: _centre(boxes[i], 1))
    band, bands, start = 0, {}, None
    for i in order:
        c = _centre(boxes[i], 1)
        if start is None or c - start > tol:  # measured from the band's first box: no chaining
            band, start = band + 1, c
        bands[i] = band
    reading = sorted(range(len(boxes)), key=lambda i: (bands[i], _centre(boxes[i], 0)))
    numbers = [0] * len(boxes)
    for n, i in enumerate(reading, start=1):
        numbers[i] = n
    return numbers


def _centre(box: Box, axis: int) -> float:
    return centre(box)[axis]


def _overlap(a: Box, b: Box, axis: int) -> float:
    """The boxes' overlap along `axis` as a share of the shorter extent."""
    return span_overlap(a, b, axis) / min(a[axis + 2], b[axis + 2])


def _groups(boxes: list[Box], axis: int, share: float, bands: bool = False) -> list[list[int]] | None:
    """Rows (axis=1) or columns (axis=0) ordered along axis, or None when not clean.

    Clean means every pair within a group shares the axis extent, no pair across groups
    does, and groups follow each other without interleaving; with `bands` (layout words), also
    that each group reads the same as the band of its smallest panels (`_band_reads`) and that the
    groups stand apart (`_apart`).
    """
    n = len(boxes)
    shares = [[_overlap(boxes[i], boxes[j], axis) >= share for j in range(n)] for i in range(n)]
    groups: list[list[int]] = []
    seen: set[int] = set()
    for i in range(n):
        if i in seen:
            continue
        stack, comp = [i], []
        seen.add(i)
        while stack:
            k = stack.pop()
            comp.append(k)
            for j in range(n):
                if shares[k][j] and j not in seen:
                    seen.add(j)
                    stack.append(j)
        if not all(shares[a][b] for a in comp for b in comp):
            return None
        groups.append(comp)
    groups.sort(key=lambda g: min(_centre(boxes[i], axis) for i in g))
    for g, h in zip(groups, groups[1:]):
        if max(_centre(boxes[i], axis) for i in g) >= min(_centre(boxes[i], axis) for i in h):
            return None
    other = 1 - axis
    ordered = [sorted(g, key=lambda i: _centre(boxes[i], other)) for g in groups]
    if bands and not (all(_band_reads(boxes, g, axis) for g in ordered) and _apart(boxes, ordered, axis, share)):
        return None
    return ordered


def _apart(boxes: list[Box], groups: list[list[int]], axis: int, share: float) -> bool:
    """Whether no two panels of different groups overlap along `axis` by `APART` of a side or more."""
    limit = APART + share - SHARE
    return not any(_overlap(boxes[i], boxes[j], axis) >= limit
                   for g, h in itertools.combinations(groups, 2) for i in g for j in h)


def _band_reads(boxes: list[Box], group: list[int], axis: int) -> bool:
    """Whether each panel's place in `group` (nearest end first, as the words count it) names the
    same panel when the group is read as the band of its smallest panels alone. A panel twice their
    height beside a row of them spans two rows: one reader counts it in the top row, another takes
    the top row to be the band (a careful reviewer read "the rightmost subfigure in the top row" so)."""
    extent = [boxes[i][axis + 2] for i in group]
    band = [i for i, e in zip(group, extent) if e < BAND * min(extent)]
    n = len(group)
    for k, idx in enumerate(group):
        rank, order = (k, band) if k <= n - 1 - k else (n - 1 - k, band[::-1])
        if n > 1 and (rank >= len(order) or order[rank] != idx):
            return False
    return True


def _place(k: int, n: int, axis: int) -> tuple[str, str] | None:
    """Where item k of n sits along axis, as (kind, words); None when it is alone."""
    low, high, middle = _SIDES[axis]
    if n == 1:
        return None
    if n <= 3:
        return ("simple", (low, middle, high)[k] if n == 3 else (low, high)[k])
    if k == 0:
        return ("end", low)
    if k == n - 1:
        return ("end", high)
    if k <= n - 1 - k:
        return ("ordinal", f"{ORDINALS[k]} SUBJ from the {low}")
    return ("ordinal", f"{ORDINALS[n - 1 - k]} SUBJ from the {high}")


def _grouped(boxes: list[Box], groups: list[list[int]] | None, axis: int,
             agreed: set[int] | None = None) -> list[str] | None:
    """Each box named by its group (row or column) and its place in it; `agreed` (layout words:
    the boxes whose two-word position every reading agrees on, see `_agreed`) says which boxes
    may have a two-word position, and a lone box of a middle group is then said to be in the
    middle row or column; None keeps the short words (every box, bare "middle" included)."""
    if groups is None:
        return None
    unit = "row" if axis == 1 else "column"
    out = [""] * len(boxes)
    for gi, group in enumerate(groups):
        g = _place(gi, len(groups), axis)
        for pi, idx in enumerate(group):
            p = _place(pi, len(group), 1 - axis)
            out[idx] = _combine(g, p, unit, axis, agreed is None, agreed is None or idx in agreed)
    return out


def _combine(g: tuple[str, str] | None, p: tuple[str, str] | None, unit: str, axis: int, middle: bool = True,
             bare: bool = True) -> str:
    """A box's words from its group's place `g` and its place in the group `p`; `middle` allows a
    lone box of a middle group to be the "middle subfigure", `bare` a two-word position."""
    if g is None:
        return _alone(p)
    if p is None:
        if g[0] == "simple" and (middle or g[1] != "middle"):
            return f"{g[1]} subfigure"
        return f"subfigure in the {_group_phrase(g, unit)}"
    if g[0] == p[0] == "simple" and bare:
        vertical, horizontal = (g[1], p[1]) if axis == 1 else (p[1], g[1])
        if vertical == horizontal == "middle":
            return "center subfigure"
        return f"{vertical} {horizontal} subfigure"
    return f"{_alone(p)} in the {_group_phrase(g, unit)}"


def _agreed(boxes: list[Box], rows: list[list[int]] | None, columns: list[list[int]] | None) -> set[int]:
    """Boxes whose two-word position ("bottom middle") names them in every reading: rows and
    columns are both clean and at most three, the box's row and column words are its place in
    its column and in its row (or it is alone there), so the row's, the column's and the grid's
    reading are one panel."""
    if rows is None or columns is None or len(rows) > 3 or len(columns) > 3:
        return set()
    out = set()
    for idx in range(len(boxes)):
        (ri, row), (ci, column) = _member(rows, idx), _member(columns, idx)
        vertical, horizontal = _place(ri, len(rows), 1), _place(ci, len(columns), 0)
        in_row, in_column = _place(row.index(idx), len(row), 0), _place(column.index(idx), len(column), 1)
        if vertical and horizontal and in_row in (None, horizontal) and in_column in (None, vertical):
            out.add(idx)
    return out


def _member(groups: list[list[int]], idx: int) -> tuple[int, list[int]]:
    return next((gi, g) for gi, g in enumerate(groups) if idx in g)


def _alone(p: tuple[str, str]) -> str:
    kind, words = p
    if kind == "simple":
        return f"{words} subfigure"
    if kind == "end":
        return f"{words}most subfigure"
    return words.replace("SUBJ", "subfigure")


def _group_phrase(g: tuple[str, str], unit: str) -> str:
    kind, words = g
    if kind == "ordinal":
        return words.replace("SUBJ", unit)
    return f"{words} {unit}"


def _ranked(boxes: list[Box], gap_fraction: float, edges: bool = False) -> list[str]:
    """Name each box by its rank along x or y, nearest end first; raise when no rank is visible.
    With `edges` (layout words) both edges must keep the rank too, so that a large panel
    whose centre is further out than a small one's but whose edge is not is never "leftmost"."""
    gap = gap_fraction * min(min(b[2], b[3]) for b in boxes)
    n = len(boxes)
    options: list[list[tuple[int, int, str]]] = [[] for _ in boxes]
    for axis in (0, 1):
        order = sorted(range(n), key=lambda i: _centre(boxes[i], axis))
        keys = [[_centre(boxes[i], axis)] + ([xyxy(boxes[i])[axis], xyxy(boxes[i])[axis + 2]] if edges else [])
                for i in order]

        def apart(a: int, b: int) -> bool:
            return all(kb - ka >= gap for ka, kb in zip(keys[a], keys[b]))

        for k, idx in enumerate(order):
            before = k == 0 or apart(k - 1, k)
            after = k == n - 1 or apart(k, k + 1)
            if before and after:
                place = ("end", _SIDES[axis][0] if k == 0 else _SIDES[axis][1])
                if 0 < k < n - 1:
                    place = _place(k, max(n, 4), axis)
                options[idx].append((min(k, n - 1 - k), axis, _alone(place)))
    out = []
    for idx, opts in enumerate(options):
        if not opts:
            raise PositionError(f"box {idx} {boxes[idx]} has no visible rank along x or y")
        out.append(min(opts)[2])
    return out


# A panel is next to another when the gap between them (the larger of the horizontal and the
# vertical one) is at most this fraction of the smaller panel side: grid panels touching at a
# side or a corner, splash panels with no panel-sized space between them.
NEIGHBOUR_GAP = 0.4


def _gap(a: Box, b: Box) -> int:
    """The larger of the horizontal and the vertical gap, 0 where the boxes touch or overlap."""
    return max(chebyshev_gap(a, b), 0)


def nearest(boxes: Sequence[Box], target: int = 0) -> list[int]:
    """The other boxes, nearest `target` first: by the gap between them, then by centre distance,
    then by index."""
    t = boxes[target]
    return sorted((i for i in range(len(boxes)) if i != target),
                  key=lambda i: (_gap(t, boxes[i]), centre_distance(t, boxes[i]), i))


def neighbours(boxes: Sequence[Box], target: int = 0) -> list[int]:
    """The boxes next to `target` (same row, same column or diagonal, with at most NEIGHBOUR_GAP
    of the smaller side between them), nearest first; the nearest box alone when none is that near."""
    order = nearest(boxes, target)
    t = boxes[target]
    close = [i for i in order if _gap(t, boxes[i]) <= NEIGHBOUR_GAP * min(t[2], t[3], boxes[i][2], boxes[i][3])]
    return close or order[:1]
