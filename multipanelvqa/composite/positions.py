"""Position descriptions ("top left subfigure", ...) and caption numbers, from geometry alone.

The paper had humans annotate where each subfigure is; here the words are derived from
the boxes so every layout gets them, and a description is only used when it picks out
exactly one panel. Descriptions are noun phrases ending in or containing "subfigure",
so questions can say "the {description}".

Three schemes are tried: rows (panels grouped by shared vertical extent, read left to
right), columns (the transpose), and, when neither grouping is clean (scattered splash
layouts), ranks along one axis ("second subfigure from the left") with a visible gap to
the neighbours. Among clean row/column schemes the shorter wording wins.

Words that would change if a threshold moved a little (a panel half in a row, a barely
visible gap) are refused: they are unclear to a reader, and they could change when an
augmentation rescales the boxes by a rounding pixel.
"""

from __future__ import annotations

from typing import Sequence

from benchkit.scene.geometry import Box


ORDINALS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth")
# Two boxes share a row (column) when their vertical (horizontal) extents overlap by at
# least this fraction of the shorter one.
SHARE = 0.6
# Ranks along an axis are only named when neighbouring centres differ by this fraction of
# the smallest panel side, so the order is visible at a glance.
RANK_GAP = 0.2
# Both thresholds are moved by this much either way; the words must not change.
SLACK = 0.05

# (low, high, middle) words per axis: 0 is x, 1 is y.
_SIDES = {0: ("left", "right", "middle"), 1: ("top", "bottom", "middle")}


class PositionError(ValueError):
    """The boxes cannot be told apart by position words."""


def describe_positions(boxes: Sequence[Box]) -> list[str]:
    """One description per box, unique within the layout; raises PositionError otherwise."""
    boxes = [tuple(int(v) for v in b) for b in boxes]
    if len(boxes) < 2:
        raise PositionError("need at least two boxes to describe positions")
    descriptions = _describe(boxes, SHARE, RANK_GAP)
    for ds in (-SLACK, SLACK):
        for dg in (-SLACK, SLACK):
            if _describe(boxes, SHARE + ds, RANK_GAP + dg) != descriptions:
                raise PositionError(f"positions of {boxes} are borderline: they depend on the thresholds")
    if len(set(descriptions)) != len(descriptions):
        raise PositionError(f"descriptions are not unique: {descriptions}")
    return descriptions


def _describe(boxes: list[Box], share: float, gap: float) -> list[str]:
    schemes = [s for s in (_grouped(boxes, 1, share), _grouped(boxes, 0, share)) if s is not None]
    if schemes:
        return min(schemes, key=lambda s: sum(len(d.split()) for d in s))
    return _ranked(boxes, gap)


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
    return box[axis] + box[axis + 2] / 2


def _overlap(a: Box, b: Box, axis: int) -> float:
    lo = max(a[axis], b[axis])
    hi = min(a[axis] + a[axis + 2], b[axis] + b[axis + 2])
    return max(0, hi - lo) / min(a[axis + 2], b[axis + 2])


def _groups(boxes: list[Box], axis: int, share: float) -> list[list[int]] | None:
    """Rows (axis=1) or columns (axis=0) ordered along axis, or None when not clean.

    Clean means every pair within a group shares the axis extent, no pair across groups
    does, and groups follow each other without interleaving.
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
    return [sorted(g, key=lambda i: _centre(boxes[i], other)) for g in groups]


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


def _grouped(boxes: list[Box], axis: int, share: float) -> list[str] | None:
    groups = _groups(boxes, axis, share)
    if groups is None:
        return None
    unit = "row" if axis == 1 else "column"
    out = [""] * len(boxes)
    for gi, group in enumerate(groups):
        g = _place(gi, len(groups), axis)
        for pi, idx in enumerate(group):
            p = _place(pi, len(group), 1 - axis)
            out[idx] = _combine(g, p, unit, axis)
    return out


def _combine(g: tuple[str, str] | None, p: tuple[str, str] | None, unit: str, axis: int) -> str:
    if g is None:
        return _alone(p)
    if p is None:
        return f"{g[1]} subfigure" if g[0] == "simple" else f"subfigure in the {_group_phrase(g, unit)}"
    if g[0] == p[0] == "simple":
        vertical, horizontal = (g[1], p[1]) if axis == 1 else (p[1], g[1])
        if vertical == horizontal == "middle":
            return "center subfigure"
        return f"{vertical} {horizontal} subfigure"
    return f"{_alone(p)} in the {_group_phrase(g, unit)}"


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


def _ranked(boxes: list[Box], gap_fraction: float) -> list[str]:
    """Name each box by its rank along x or y, nearest end first; raise when no rank is visible."""
    gap = gap_fraction * min(min(b[2], b[3]) for b in boxes)
    n = len(boxes)
    options: list[list[tuple[int, int, str]]] = [[] for _ in boxes]
    for axis in (0, 1):
        order = sorted(range(n), key=lambda i: _centre(boxes[i], axis))
        centres = [_centre(boxes[i], axis) for i in order]
        for k, idx in enumerate(order):
            before = k == 0 or centres[k] - centres[k - 1] >= gap
            after = k == n - 1 or centres[k + 1] - centres[k] >= gap
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
