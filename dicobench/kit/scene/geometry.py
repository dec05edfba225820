"""Boxes in image pixels, as every part of the project writes them: (x, y, w, h)."""

from __future__ import annotations

import math

Box = tuple[int, int, int, int]  # x, y, w, h


def bounding(boxes) -> Box:
    """The smallest box holding all `boxes`."""
    x0 = min(b[0] for b in boxes)
    y0 = min(b[1] for b in boxes)
    x1 = max(b[0] + b[2] for b in boxes)
    y1 = max(b[1] + b[3] for b in boxes)
    return (x0, y0, x1 - x0, y1 - y0)


def apart(a: Box, b: Box, gap: int) -> bool:
    """Whether the boxes are at least `gap` px apart, horizontally or vertically."""
    return (a[0] + a[2] + gap <= b[0] or b[0] + b[2] + gap <= a[0]
            or a[1] + a[3] + gap <= b[1] or b[1] + b[3] + gap <= a[1])


def point_gap(point: tuple[float, float], box: Box) -> float:
    """Distance from a point to a box (0 inside it)."""
    x, y, w, h = box
    return math.hypot(max(x - point[0], 0.0, point[0] - x - w), max(y - point[1], 0.0, point[1] - y - h))


def grown(box: Box, by: int) -> Box:
    """The box grown by `by` px on every side."""
    return (box[0] - by, box[1] - by, box[2] + 2 * by, box[3] + 2 * by)


def box_gap(a: Box, b: Box) -> float:
    """Distance between two boxes (0 where they meet)."""
    dx = max(b[0] - a[0] - a[2], a[0] - b[0] - b[2], 0)
    dy = max(b[1] - a[1] - a[3], a[1] - b[1] - b[3], 0)
    return math.hypot(dx, dy)
