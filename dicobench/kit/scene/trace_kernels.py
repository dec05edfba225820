"""Surface traces as a table of drawing kernels, one row per kind (torchvision v2's pattern: what
differs between kinds is declared in the row, the drawing is a small pure function).

A kernel draws a trace's coverage onto an L layer around an origin; `render` blurs it, scales it by
the kind's and the trace's opacity and colours it. Trails (prints along a heading) start near the
patch corner their heading leaves from; the other traces are blots centred in their patch. Editors
read the same rows (which kinds are trails, a trail's step), so a new kind is one function and one row.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

import numpy as np
from PIL import ImageDraw

from dicobench.kit.scene.model import Trace

MARGIN = 40.0  # px from a trail patch's corner to the trail's start

Kernel = Callable[[Trace, ImageDraw.ImageDraw, float, float, np.random.Generator], None]


@dataclass(frozen=True)
class TraceKernel:
    draw: Kernel  # coverage onto an L layer, around the origin (ox, oy)
    opacity: float  # the kind's own opacity (times the trace's)
    extent: Callable[[Trace], int]  # side of the square patch the trace is drawn in
    trail: bool = False  # prints along a heading from a corner of the patch, else a blot centred in it
    step: int = 0  # px between a trail's prints (0: not a trail of prints)


def _polygon(cx: float, cy: float, rx: float, ry: float, angle: float, n: int = 18) -> list[tuple[float, float]]:
    t = np.linspace(0, 2 * np.pi, n, endpoint=False)
    ca, sa = math.cos(angle), math.sin(angle)
    xs, ys = rx * np.cos(t), ry * np.sin(t)
    return [(cx + x * ca - y * sa, cy + x * sa + y * ca) for x, y in zip(xs, ys)]


def _steps(trace: Trace, step: float) -> list[tuple[float, float, float, int]]:
    a = math.radians(trace.angle)
    n = max(2, trace.length)
    return [(i * step * math.cos(a), i * step * math.sin(a), a, (-1) ** i) for i in range(n)]


def _footprints(trace: Trace, draw: ImageDraw.ImageDraw, ox: float, oy: float, rng: np.random.Generator) -> None:
    for dx, dy, a, side in _steps(trace, 34):
        px, py = ox + dx - 9 * side * math.sin(a), oy + dy + 9 * side * math.cos(a)
        draw.polygon(_polygon(px, py, 11, 5, a), fill=255)
        draw.polygon(_polygon(px - 15 * math.cos(a), py - 15 * math.sin(a), 5, 4.5, a), fill=255)


def _paw_prints(trace: Trace, draw: ImageDraw.ImageDraw, ox: float, oy: float, rng: np.random.Generator) -> None:
    for dx, dy, a, side in _steps(trace, 26):
        px, py = ox + dx - 7 * side * math.sin(a), oy + dy + 7 * side * math.cos(a)
        draw.ellipse((px - 5, py - 4, px + 5, py + 4), fill=255)
        for k in (-1.0, -0.35, 0.35, 1.0):
            tx = px + 8 * math.cos(a + 0.6 * k)
            ty = py + 8 * math.sin(a + 0.6 * k)
            draw.ellipse((tx - 2.2, ty - 2.2, tx + 2.2, ty + 2.2), fill=255)


def _blots(trace: Trace, draw: ImageDraw.ImageDraw, ox: float, oy: float, rng: np.random.Generator) -> None:
    for _ in range(9):
        r = rng.uniform(0.12, 0.3) * trace.length
        cx, cy = ox + rng.uniform(-0.25, 0.25) * trace.length, oy + rng.uniform(-0.15, 0.15) * trace.length
        draw.ellipse((cx - r, cy - r * 0.7, cx + r, cy + r * 0.7), fill=255)


# The first release's crumbs scatter 24 specks over 50-80 px. A difficulty's trace scale shrinks the
# scatter (`Difficulty.trace_scale`, `Trace.scale`): 24 specks of the same size in a smaller scatter
# merge into one brown blot that reads as a stain, not crumbs. A scaled scatter keeps the density of
# the first release's middle one (fewer crumbs) and keeps each crumb apart from the others, so that
# it still reads as scattered crumbs; unscaled scatters keep their draws.
CRUMBS_GAP = 3.0  # px of bare surface between two crumbs of a scaled scatter
CRUMBS_LEAST_SPREAD = 40  # px: a scaled scatter spreads as a 40 px one at least, so its six crumbs find room


def _crumbs(trace: Trace, draw: ImageDraw.ImageDraw, ox: float, oy: float, rng: np.random.Generator) -> None:
    if trace.scale != 1.0:
        _scattered_crumbs(trace, draw, ox, oy, rng)
        return
    for _ in range(24):
        cx, cy = ox + rng.normal(0, 0.25) * trace.length, oy + rng.normal(0, 0.18) * trace.length
        r = rng.uniform(2.5, 4.5)
        draw.ellipse((cx - r, cy - r * 0.8, cx + r, cy + r * 0.8), fill=255)


def _scattered_crumbs(trace: Trace, draw: ImageDraw.ImageDraw, ox: float, oy: float, rng: np.random.Generator) -> None:
    """A scaled crumbs scatter: as many crumbs as keep the density of a 65 px scatter (at least 6,
    spread as a `CRUMBS_LEAST_SPREAD` scatter at least), each drawn where it keeps `CRUMBS_GAP` from
    every crumb drawn before it (a crumb that finds no such place in 12 draws is left out)."""
    crumbs: list[tuple[float, float, float]] = []
    spread = max(trace.length, CRUMBS_LEAST_SPREAD)
    for _ in range(max(6, round(24 * (trace.length / 65) ** 2))):
        r = rng.uniform(2.5, 4.5)
        for _ in range(12):
            cx, cy = ox + rng.normal(0, 0.25) * spread, oy + rng.normal(0, 0.18) * spread
            if all(math.hypot(cx - x, cy - y) >= r + q + CRUMBS_GAP for x, y, q in crumbs):
                crumbs.append((cx, cy, r))
                draw.ellipse((cx - r, cy - r * 0.8, cx + r, cy + r * 0.8), fill=255)
                break


def _shards(trace: Trace, draw: ImageDraw.ImageDraw, ox: float, oy: float, rng: np.random.Generator) -> None:
    for _ in range(9):
        cx, cy = ox + rng.normal(0, 0.25) * trace.length, oy + rng.normal(0, 0.2) * trace.length
        pts = [(cx + rng.uniform(-7, 7), cy + rng.uniform(-7, 7)) for _ in range(3)]
        draw.polygon(pts, fill=255)


def _tyre_tracks(trace: Trace, draw: ImageDraw.ImageDraw, ox: float, oy: float, rng: np.random.Generator) -> None:
    a = math.radians(trace.angle)
    for side in (-1, 1):
        for i in range(0, trace.length, 9):
            px = ox + i * math.cos(a) - 14 * side * math.sin(a)
            py = oy + i * math.sin(a) + 14 * side * math.cos(a)
            draw.polygon(_polygon(px, py, 2.5, 5, a), fill=255)


def _prints_extent(trace: Trace) -> int:
    return int(max(2, trace.length) * 34 + 80)


def _blot_extent(trace: Trace) -> int:
    return int(trace.length * 1.6 + 30)


def _crumbs_extent(trace: Trace) -> int:
    return _blot_extent(trace) if trace.scale == 1.0 else int(max(trace.length, CRUMBS_LEAST_SPREAD) * 1.6 + 30)


KERNELS: dict[str, TraceKernel] = {
    "footprints": TraceKernel(_footprints, 0.6, _prints_extent, trail=True, step=34),
    "paw_prints": TraceKernel(_paw_prints, 0.65, _prints_extent, trail=True, step=26),
    "spill": TraceKernel(_blots, 0.75, _blot_extent),
    "puddle": TraceKernel(_blots, 0.45, _blot_extent),
    "crumbs": TraceKernel(_crumbs, 0.95, _crumbs_extent),
    "shards": TraceKernel(_shards, 0.85, _blot_extent),
    "tyre_tracks": TraceKernel(_tyre_tracks, 0.75, lambda trace: int(trace.length + 80), trail=True),
}


def kernel(kind: str) -> TraceKernel:
    try:
        return KERNELS[kind]
    except KeyError:
        raise ValueError(f"unknown trace kind {kind!r}") from None


def origin(trace: Trace, side: int) -> tuple[float, float]:
    """Where in its patch (of `side` px) a trace is drawn from: a trail from the corner its heading
    leaves from, any other trace from the centre."""
    if not kernel(trace.kind).trail:
        return side / 2, side / 2
    a = math.radians(trace.angle)
    return (MARGIN if math.cos(a) >= 0 else side - MARGIN), (MARGIN if math.sin(a) >= 0 else side - MARGIN)
