"""Layouts: count, determinism, geometry of each style, and the prefix property."""

from collections import Counter
from itertools import combinations

import pytest

from dicobench.kit.scene.geometry import chebyshev_gap as _gap
from multipanelvqa.composite.layouts import (
    MAX_PANELS,
    SIZE_RANGE,
    SPLASH_MIN_GAP,
    SPLASH_NEAR,
    generate_layouts,
)
from multipanelvqa.composite.positions import describe_positions
from multipanelvqa.schema import CANVAS, LAYOUT_STYLES


@pytest.fixture(scope="module", params=["short", "layout"])
def layouts(request):
    return generate_layouts(0, request.param)


def _area_overlap(a, b):
    w = min(a[0] + a[2], b[0] + b[2]) - max(a[0], b[0])
    h = min(a[1] + a[3], b[1] + b[3]) - max(a[1], b[1])
    return max(0, w) * max(0, h)


def _shares_band(a, b):
    rows = a[1] < b[1] + b[3] and b[1] < a[1] + a[3]
    cols = a[0] < b[0] + b[2] and b[0] < a[0] + a[2]
    return rows or cols


def test_counts_and_ids(layouts):
    assert [l.layout_id for l in layouts] == list(range(210))
    assert Counter(l.style for l in layouts) == {s: 70 for s in LAYOUT_STYLES}
    assert Counter(l.num_panels for l in layouts) == {k: 30 for k in range(2, 9)}


def test_deterministic_and_seeded(layouts):
    assert generate_layouts(0, "layout" if layouts != generate_layouts(0) else "short") == layouts
    assert generate_layouts(1) != layouts


def test_inside_canvas_without_overlap(layouts):
    for l in layouts:
        for x, y, w, h in l.boxes:
            assert 0 <= x and 0 <= y and x + w <= CANVAS and y + h <= CANVAS, l
        for a, b in combinations(l.boxes, 2):
            assert _area_overlap(a, b) == 0, l


def test_prefix_property(layouts):
    # Ordered by style, base, then 2..8 panels: each layout extends the previous one.
    for base in range(0, 210, 7):
        group = layouts[base : base + 7]
        assert len({l.style for l in group}) == 1
        full = group[-1].boxes
        assert len(full) == MAX_PANELS
        for l in group:
            assert l.boxes == full[: l.num_panels]


def test_splash_geometry(layouts):
    for l in (l for l in layouts if l.style == "splash"):
        sizes = {(w, h) for _, _, w, h in l.boxes}
        assert len(sizes) == 1
        (w, h), = sizes
        assert w == h and SIZE_RANGE[0] <= w <= SIZE_RANGE[1]
        for a, b in combinations(l.boxes, 2):
            assert _gap(a, b) >= SPLASH_MIN_GAP
        for i in range(1, l.num_panels):
            assert min(_gap(l.boxes[i], b) for b in l.boxes[:i]) <= SPLASH_NEAR


@pytest.mark.parametrize("style", ["grid_same", "grid_mixed"])
def test_grid_geometry(layouts, style):
    for l in (l for l in layouts if l.style == style):
        s = min(w for _, _, w, _ in l.boxes)
        sides = {w for _, _, w, _ in l.boxes}
        assert all(w == h for _, _, w, h in l.boxes)
        if style == "grid_same":
            assert sides == {s} and SIZE_RANGE[0] <= s <= SIZE_RANGE[1]
        else:
            assert sides == {s, 2 * s}, "every mixed layout, even with two panels, has both sizes"
        offset = (CANVAS - (CANVAS // s) * s) // 2
        assert all((x - offset) % s == 0 and (y - offset) % s == 0 for x, y, _, _ in l.boxes)
        for prev, new in zip(l.boxes, l.boxes[1:]):
            assert _shares_band(prev, new) and _gap(prev, new) == 0, "new panel touches the previous one"


def test_sizes_vary_across_layouts(layouts):
    assert len({l.boxes[0][2] for l in layouts if l.style == "splash"}) > 3


def test_every_layout_has_unique_positions(layouts):
    for l in layouts:
        d = describe_positions(l.boxes)
        assert len(set(d)) == l.num_panels
