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


def intersect(a: Box, b: Box) -> Box | None:
    """Where the boxes meet, or None where they do not (touching edges do not meet)."""
    x0, y0 = max(a[0], b[0]), max(a[1], b[1])
    x1, y1 = min(a[0] + a[2], b[0] + b[2]), min(a[1] + a[3], b[1] + b[3])
    return (x0, y0, x1 - x0, y1 - y0) if x1 > x0 and y1 > y0 else None


def clipped(box: Box, width: int, height: int) -> Box | None:
    """The part of `box` inside a `width` x `height` image, or None."""
    return intersect(box, (0, 0, width, height))


def overlap_share(a: Box, b: Box) -> float:
    """The boxes' intersection over the smaller box's area (1.0: one holds the other)."""
    met = intersect(a, b)
    return 0.0 if met is None else met[2] * met[3] / min(a[2] * a[3], b[2] * b[3])


def xyxy(box: Box) -> tuple:
    """(x0, y0, x1, y1) of an (x, y, w, h) box."""
    return (box[0], box[1], box[0] + box[2], box[1] + box[3])


def xywh(corners: tuple) -> tuple:
    """(x, y, w, h) of an (x0, y0, x1, y1) box."""
    return (corners[0], corners[1], corners[2] - corners[0], corners[3] - corners[1])


def iou_xyxy(a: tuple, b: tuple) -> float:
    """Intersection over union of two (x0, y0, x1, y1) boxes (detectors give boxes so)."""
    ix = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    iy = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    inter = ix * iy
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return inter / union if union > 0 else 0.0


def iou(a: Box, b: Box) -> float:
    """Intersection over union of two (x, y, w, h) boxes."""
    return iou_xyxy(xyxy(a), xyxy(b))
