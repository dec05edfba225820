"""Named colours whose names a person would agree on, and the distance that says
whether two of them are clearly different (CIE76 distance in Lab)."""

from __future__ import annotations

import functools
import math

COLOURS: dict[str, tuple[int, int, int]] = {
    "red": (214, 40, 40),
    "orange": (245, 130, 32),
    "yellow": (250, 210, 30),
    "green": (46, 160, 67),
    "teal": (0, 150, 150),
    "blue": (35, 95, 220),
    "purple": (130, 60, 180),
    "pink": (240, 110, 170),
    "brown": (125, 75, 40),
    "black": (28, 28, 30),
    "white": (245, 245, 242),
    "grey": (135, 135, 135),
}

# Clearly different: well above the ~2.3 just-noticeable difference, and far enough that
# the two names are never confused.
CLEARLY_DIFFERENT = 40.0
# A colour this far from a surface reads clearly on it (and can be named with confidence).
STANDS_OUT = 30.0


def _linear(c: float) -> float:
    c /= 255.0
    return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4


@functools.lru_cache(maxsize=4096)  # scene generation asks for the same few colours all the time
def to_lab(rgb: tuple[int, int, int]) -> tuple[float, float, float]:
    r, g, b = (_linear(v) for v in rgb)
    x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047
    y = 0.2126 * r + 0.7152 * g + 0.0722 * b
    z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883

    def f(t: float) -> float:
        return t ** (1 / 3) if t > 0.008856 else 7.787 * t + 16 / 116

    fx, fy, fz = f(x), f(y), f(z)
    return 116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz)


def lab_distance(a: tuple[int, int, int], b: tuple[int, int, int]) -> float:
    """CIE76 distance between two RGB colours."""
    return math.dist(to_lab(tuple(a)), to_lab(tuple(b)))


def distance(a: str, b: str) -> float:
    return lab_distance(COLOURS[a], COLOURS[b])


def stands_out(colour: str, surface: tuple[int, int, int]) -> bool:
    """Whether the named colour reads clearly on a surface of RGB colour `surface`."""
    return lab_distance(COLOURS[colour], surface) >= STANDS_OUT


def clearly_different(a: str, b: str) -> bool:
    return distance(a, b) >= CLEARLY_DIFFERENT
