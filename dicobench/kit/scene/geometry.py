"""Boxes in image pixels, as every part of the project writes them: (x, y, w, h).

The one place for box arithmetic (intersect, clip, overlap, IoU, corners, centres, gaps,
containment, growing and insetting): code elsewhere calls these rather than writing
`x + w` by hand. Integer boxes give integer results wherever the arithmetic allows (a
centre in pixels `centre_px`, gaps, spans); `centre` and the shares are floats.
"""

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


def centre(box: Box) -> tuple[float, float]:
    """The box's centre, (x + w / 2, y + h / 2).

    >>> centre((10, 20, 5, 8))
    (12.5, 24.0)
    """
    return (box[0] + box[2] / 2, box[1] + box[3] / 2)


def centre_px(box: Box) -> tuple[int, int]:
    """The pixel at the box's centre, rounded down: (x + w // 2, y + h // 2).

    >>> centre_px((10, 20, 5, 8))
    (12, 24)
    """
    return (box[0] + box[2] // 2, box[1] + box[3] // 2)


def centre_distance(a: Box, b: Box) -> float:
    """Euclidean distance between the boxes' centres.

    >>> centre_distance((0, 0, 2, 2), (3, 4, 2, 2))
    5.0
    """
    (ax, ay), (bx, by) = centre(a), centre(b)
    return ((ax - bx) ** 2 + (ay - by) ** 2) ** 0.5


def chebyshev_gap(a: Box, b: Box) -> int:
    """The larger of the horizontal and the vertical gap between the boxes: 0 where they touch
    (at a side or a corner), negative where they overlap.

    >>> chebyshev_gap((0, 0, 10, 10), (15, 3, 4, 4)), chebyshev_gap((0, 0, 10, 10), (10, 10, 2, 2))
    (5, 0)
    >>> chebyshev_gap((0, 0, 10, 10), (8, 6, 5, 5))
    -2
    """
    dx = max(a[0] - (b[0] + b[2]), b[0] - (a[0] + a[2]))
    dy = max(a[1] - (b[1] + b[3]), b[1] - (a[1] + a[3]))
    return max(dx, dy)


def span_overlap(a: Box, b: Box, axis: int) -> int:
    """How far the boxes' extents along `axis` (0: x, 1: y) overlap; 0 where they do not.

    >>> span_overlap((0, 0, 10, 10), (6, 50, 10, 10), 0), span_overlap((0, 0, 10, 10), (6, 50, 10, 10), 1)
    (4, 0)
    """
    return max(0, min(a[axis] + a[axis + 2], b[axis] + b[axis + 2]) - max(a[axis], b[axis]))


def meets(a: Box, b: Box) -> bool:
    """Whether the boxes' insides meet (touching edges do not); for boxes of positive size,
    `intersect(a, b) is not None`.

    >>> meets((0, 0, 10, 10), (9, 9, 5, 5)), meets((0, 0, 10, 10), (10, 0, 5, 5))
    (True, False)
    """
    return a[0] < b[0] + b[2] and b[0] < a[0] + a[2] and a[1] < b[1] + b[3] and b[1] < a[1] + a[3]


def touching(a: Box, b: Box) -> bool:
    """Whether the boxes share a stretch of edge (a corner alone is not enough) without overlapping.

    >>> touching((0, 0, 10, 10), (10, 5, 10, 10)), touching((0, 0, 10, 10), (10, 10, 5, 5))
    (True, False)
    """
    side_by_side = span_overlap(a, b, 1) > 0 and (a[0] + a[2] == b[0] or b[0] + b[2] == a[0])
    stacked = span_overlap(a, b, 0) > 0 and (a[1] + a[3] == b[1] or b[1] + b[3] == a[1])
    return side_by_side or stacked


def contains(outer: Box, inner: Box) -> bool:
    """Whether `inner` lies wholly in `outer` (edges may coincide).

    >>> contains((0, 0, 10, 10), (0, 2, 10, 3)), contains((0, 0, 10, 10), (5, 5, 6, 1))
    (True, False)
    """
    return (inner[0] >= outer[0] and inner[1] >= outer[1]
            and inner[0] + inner[2] <= outer[0] + outer[2] and inner[1] + inner[3] <= outer[1] + outer[3])


def inset(box: Box, by: int) -> Box:
    """The box shrunk by `by` px on every side (`grown` by -by).

    >>> inset((10, 10, 20, 30), 4)
    (14, 14, 12, 22)
    """
    return grown(box, -by)
