"""The one module of box arithmetic: its examples run as doctests, and the helpers the
benchmarks call agree with each other on integer boxes."""

import doctest
import itertools

from dicobench.kit.scene import geometry
from dicobench.kit.scene.geometry import (
    centre,
    centre_px,
    chebyshev_gap,
    contains,
    grown,
    inset,
    intersect,
    meets,
    span_overlap,
    touching,
    xywh,
    xyxy,
)


def test_the_modules_examples_run_as_doctests():
    result = doctest.testmod(geometry)
    assert result.attempted >= 10 and result.failed == 0


# boxes along one line and around a 10 x 10 box at (0, 0): apart, touching at a side or a
# corner, overlapping, inside, with one pixel to spare or none
BOXES = [(0, 0, 10, 10), (10, 0, 5, 5), (10, 10, 5, 5), (9, 9, 5, 5), (2, 2, 4, 4), (0, 0, 10, 3), (12, 0, 3, 3),
         (-5, 4, 5, 2), (4, -3, 2, 3), (3, 3, 1, 1), (-1, -1, 12, 12)]


def test_meets_is_a_nonempty_intersection_and_a_negative_gap():
    for a, b in itertools.product(BOXES, repeat=2):
        assert meets(a, b) == (intersect(a, b) is not None) == (chebyshev_gap(a, b) < 0), (a, b)
        assert meets(a, b) == (span_overlap(a, b, 0) > 0 and span_overlap(a, b, 1) > 0), (a, b)


def test_touching_is_a_zero_gap_along_a_shared_stretch():
    for a, b in itertools.product(BOXES, repeat=2):
        shares = span_overlap(a, b, 0) > 0 or span_overlap(a, b, 1) > 0
        assert touching(a, b) == (chebyshev_gap(a, b) == 0 and shares), (a, b)
    assert touching((0, 0, 10, 10), (10, 0, 5, 5)) and not touching((0, 0, 10, 10), (10, 10, 5, 5))


def test_containment_with_an_inset_region():
    region = (10, 20, 100, 80)
    assert contains(region, region) and not contains(region, grown(region, 1))
    assert contains(inset(region, 4), (14, 24, 92, 72)) and not contains(inset(region, 4), (13, 24, 92, 72))
    assert inset(region, 4) == grown(region, -4) == (14, 24, 92, 72)
    for a, b in itertools.product(BOXES, repeat=2):
        assert contains(a, b) == (intersect(a, b) == b), (a, b)


def test_centres_in_pixels_and_floats():
    assert centre((3, 4, 5, 7)) == (5.5, 7.5) and centre_px((3, 4, 5, 7)) == (5, 7)
    assert all(isinstance(v, int) for v in centre_px((3, 4, 5, 7)))
    assert all(isinstance(v, int) for v in xyxy((3, 4, 5, 7)) + xywh((3, 4, 8, 11)))
