"""Procedural floor and table textures, pure functions of (kind, size, seed).

Textures are built from smooth value noise (low-resolution random grids upsampled), which
looks like a surface at 2K and keeps lossless PNGs compact, unlike per-pixel noise.
"""

from __future__ import annotations

import dataclasses
import functools
import math
from dataclasses import dataclass

import numpy as np
from PIL import Image, ImageDraw, ImageFilter

from dicobench.kit.scene.row_caches import per_row
from dicobench.kit.scene.warping import warp

KINDS = ("wood", "fabric", "paper", "desk", "carpet", "tiles", "concrete", "grass")

BASE_COLOURS = {
    "wood": [(150, 100, 60), (178, 128, 80), (120, 80, 50), (196, 152, 104)],
    "fabric": [(70, 90, 130), (150, 60, 60), (90, 120, 90), (200, 190, 170)],
    "paper": [(236, 230, 214), (226, 222, 210), (240, 236, 226)],
    "desk": [(200, 200, 196), (96, 104, 112), (220, 210, 190), (60, 64, 70)],
    "carpet": [(120, 40, 50), (60, 70, 110), (150, 140, 120), (80, 100, 80)],
    "tiles": [(210, 210, 205), (180, 190, 200), (200, 180, 160)],
    "concrete": [(150, 150, 146), (170, 165, 158), (128, 130, 132)],
    "grass": [(70, 120, 50), (90, 135, 60), (60, 105, 45)],
}

# Named lighting tints: multiplied into the whole scene, like a lamp's colour.
TINTS = {
    "neutral": (1.0, 1.0, 1.0),
    "warm": (1.06, 1.0, 0.9),
    "cool": (0.92, 0.98, 1.06),
    "dim": (0.85, 0.85, 0.85),
    "bright": (1.08, 1.08, 1.08),
}


LUT_SCALE, LUT_SIZE = 2048, 4096  # brightness resolution 1/2048, up to 2x the base colour

# how a shot samples each surface's shading: bilinear, so that a seam or grout line turned by a
# fraction of a degree stays one smooth line that moves with the camera, not a staircase whose steps
# fall elsewhere in each shot (careful readers saw those at zoom); nearest for fabric, whose weave
# of checks a few pixels wide has no long line to step and costs a fifth more PNG bytes bilinearly
SAMPLED = {"fabric": Image.Resampling.NEAREST}


def value_noise(rng: np.random.Generator, height: int, width: int, cell: int) -> np.ndarray:
    """Smooth noise in [0, 1] with features about `cell` pixels wide."""
    gh, gw = height // cell + 2, width // cell + 2
    grid = Image.fromarray(rng.random((gh, gw), dtype=np.float32), mode="F")
    big = grid.resize((gw * cell, gh * cell), Image.Resampling.BICUBIC)
    return np.asarray(big, dtype=np.float32)[:height, :width]


def _fractal(rng, h, w, cells, weights) -> np.ndarray:
    out = sum(wt * value_noise(rng, h, w, c) for c, wt in zip(cells, weights))
    return out / sum(weights)


def _wood(rng, h, w):
    plank = int(rng.integers(140, 260))
    warp = _fractal(rng, h, w, (256, 64), (1.0, 0.4))
    y = np.arange(h, dtype=np.float32)[:, None]
    grain = 0.5 + 0.5 * np.sin(2 * np.pi * (y / rng.uniform(9, 16) + 6.0 * warp))
    shade = 0.86 + 0.14 * grain + 0.08 * (value_noise(rng, h, w, 128) - 0.5)
    rows = (np.arange(h) // plank)
    plank_tone = 1.0 + 0.06 * (rng.random(rows.max() + 1) - 0.5)
    shade = shade * plank_tone[rows][:, None]
    seams = (np.arange(h) % plank) < 2
    shade[seams, :] *= 0.6
    return shade


def _fabric(rng, h, w):
    period = int(rng.integers(6, 10))
    yy, xx = np.ogrid[0:h, 0:w]
    weave = ((xx // (period // 2) + yy // (period // 2)) % 2).astype(np.float32)
    return 0.9 + 0.06 * weave + 0.1 * (value_noise(rng, h, w, 96) - 0.5)


def _paper(rng, h, w):
    return 0.97 + 0.05 * (_fractal(rng, h, w, (300, 40), (1.0, 0.3)) - 0.5)


def _desk(rng, h, w):
    x = np.linspace(0, 1, w, dtype=np.float32)[None, :]
    return 0.94 + 0.05 * x + 0.04 * (value_noise(rng, h, w, 220) - 0.5)


def _carpet(rng, h, w):
    return 0.88 + 0.24 * (_fractal(rng, h, w, (160, 24, 8), (1.0, 0.6, 0.35)) - 0.5)


def _tiles(rng, h, w):
    tile = int(rng.integers(120, 220))
    rows, cols = np.arange(h) // tile, np.arange(w) // tile
    tones = 0.95 + 0.06 * rng.random((rows.max() + 1, cols.max() + 1), dtype=np.float32)
    shade = tones[rows][:, cols]
    grout = ((np.arange(h) % tile) < 4)[:, None] | ((np.arange(w) % tile) < 4)[None, :]
    return np.where(grout, 0.7, shade) + 0.03 * (value_noise(rng, h, w, 64) - 0.5)


def _concrete(rng, h, w):
    return 0.92 + 0.16 * (_fractal(rng, h, w, (240, 30), (1.0, 0.4)) - 0.5)


def _grass(rng, h, w):
    return 0.9 + 0.3 * (_fractal(rng, h, w, (180, 20, 6), (1.0, 0.5, 0.3)) - 0.5)


_SHADERS = {
    "wood": _wood, "fabric": _fabric, "paper": _paper, "desk": _desk,
    "carpet": _carpet, "tiles": _tiles, "concrete": _concrete, "grass": _grass,
}


@per_row(2)
def shading(kind: str, height: int, width: int, seed: int) -> np.ndarray:
    """The surface's texture shading (HxW float32, read-only), before any view of it: a scene's
    clean render and both cameras' shots share it (a row has at most two surfaces)."""
    shade = _SHADERS[kind](np.random.default_rng(seed), height, width).astype(np.float32)
    shade.setflags(write=False)
    return shade


@functools.lru_cache(maxsize=2)
def _vignette(height: int, width: int) -> np.ndarray:
    """The lens's soft vignette (HxW float32, read-only), the same for every view of a canvas."""
    yy = np.linspace(-1, 1, height, dtype=np.float32)[:, None]
    xx = np.linspace(-1, 1, width, dtype=np.float32)[None, :]
    factor = 1.0 - 0.06 * (xx**2 + yy**2)
    factor.setflags(write=False)
    return factor


def base_colour(kind: str, variant: int) -> tuple[int, int, int]:
    colours = BASE_COLOURS[kind]
    return colours[variant % len(colours)]


@dataclass(frozen=True)
class SurfaceView:
    """How one shot sees the surface (see `dicobench.kit.scene.camera`): `matrix`, the affine map from
    the surface's pixels to the shot's (six numbers, row by row), the exposure's per-channel
    `gains`, and the seed of the shot's own grain."""

    matrix: tuple[float, ...]
    gains: tuple[float, float, float]
    grain_seed: int

    def affine(self) -> np.ndarray:
        return np.asarray(self.matrix, float).reshape(2, 3)

    def at_cell(self, cell: int) -> "SurfaceView":
        """The same view of the surface drawn at 1/cell of the canvas."""
        a, b, c, d, e, f = self.matrix
        return dataclasses.replace(self, matrix=(a, b, c / cell, d, e, f / cell))


def make_background(kind: str, variant: int, tint: str, width: int, height: int, seed: int,
                    marks: int = 0, grain: float = 0.0, cell: int = 1, view: SurfaceView | None = None) -> np.ndarray:
    """An HxWx3 uint8 surface: texture shading x base colour x lighting tint x soft vignette,
    with `marks` unnamed small marks per megapixel and per-pixel `grain` (levels) on top.

    With `cell` > 1 the surface is drawn at 1/cell of the size (the same marks per megapixel of
    the full canvas) and each of its pixels enlarged to a cell x cell block: PNG's filters turn
    repeated pixels into zeros, so grain and fine texture cost about a quarter of the bytes at 2.

    Seen through a shot's `view`, the same surface is taken again: its shading sampled where the
    shot sees it (the vignette stays with the lens, in image coordinates), its marks
    drawn again where they land, the exposure applied through the colour table, and the grain, the
    sensor's noise, drawn anew from the shot's own seed."""
    if cell > 1:
        small = make_background(kind, variant, tint, -(-width // cell), -(-height // cell), seed, marks * cell * cell,
                                grain, view=None if view is None else view.at_cell(cell))
        wide = small.repeat(cell, axis=1)[:, :width]
        out = np.empty((height, width, 3), np.uint8)
        for row in range(cell):  # each row of cells is `cell` rows of the canvas
            out[row::cell] = wide[: -(-(height - row) // cell)]
        return out
    if kind not in _SHADERS:
        raise ValueError(f"unknown background {kind!r}; expected one of {', '.join(KINDS)}")
    shade = shading(kind, height, width, seed)
    if view is not None:
        shade = warp(shade, view.affine(), resample=SAMPLED.get(kind, Image.Resampling.BILINEAR))
    shade = shade * _vignette(height, width)
    # brightness -> colour through a lookup table: one gather instead of float maths per channel
    colour = np.asarray(base_colour(kind, variant), np.float32) * np.asarray(TINTS[tint], np.float32)
    if view is not None:
        colour = colour * np.asarray(view.gains, np.float32)
    levels = np.arange(LUT_SIZE, dtype=np.float32)[:, None] / LUT_SCALE
    lut = np.clip(levels * colour + 0.5, 0, 255).astype(np.uint8)
    index = np.clip(shade * LUT_SCALE + 0.5, 0, LUT_SIZE - 1).astype(np.uint16)
    rng = np.random.default_rng([seed, 1])
    marked = _marks(rng, width, height, marks, view) if marks else None
    if view is not None:
        rng = np.random.default_rng(view.grain_seed)
    return _coloured(lut, index, marked, rng, grain)


MARK_TONES = (0.55, 0.7, 1.25, 1.4)  # darker and lighter specks, relative to the surface
MARK_SUPERSAMPLE = 2
MARK_SOFTNESS = 0.6  # px: the lens's blur of a mark (Gaussian radius)
# grain takes three values (standard deviation 1, times `grain`): as fine as Gaussian grain to the
# eye, and about a third fewer PNG bytes, as the filtered residuals repeat
GRAIN_STEPS = np.array([-np.sqrt(2), 0, 0, np.sqrt(2)], np.float32)
ROWS_AT_ONCE = 512  # grain is added band by band, so memory stays flat at 8K


def _marks(rng: np.random.Generator, w: int, h: int, marks: int, view: SurfaceView | None) -> tuple:
    """Where small marks (specks, dot clusters, scratches) darken or lighten the surface: the
    kind of detail a real surface has and a cue must be found against. Through a `view` the
    marks are the same ones, drawn where the shot sees them. Gives the marked pixels' rows and
    columns (row by row) and each one's factor, in hundredths."""
    # drawn at MARK_SUPERSAMPLE times the size and averaged down, so each mark's edge pixels take
    # their covered share: a camera's sub-pixel shift then moves a speck rather than redrawing it
    # as another shape (a plus here, a bar there), which a reader comparing the images would see
    s = MARK_SUPERSAMPLE
    layer = Image.new("L", (w * s, h * s), 100)  # 100: leave the surface as it is
    draw = ImageDraw.Draw(layer)
    at, k = _seen(view, s)
    for _ in range(int(marks * w * h / 1e6)):
        x, y = float(rng.uniform(0, w)), float(rng.uniform(0, h))
        tone = int(100 * MARK_TONES[rng.integers(len(MARK_TONES))])
        kind, r = int(rng.integers(3)), float(rng.uniform(1.2, 4.0))
        if kind == 0:
            _ellipse(draw, at(x, y), r * k, r * 0.8 * k, tone)
        elif kind == 1:
            for _ in range(3):
                dx, dy = rng.normal(0, 2.5 * r, 2)
                _ellipse(draw, at(x + dx, y + dy), r / 2 * k, r / 2 * k, tone)
        else:
            a, length = float(rng.uniform(0, np.pi)), float(rng.uniform(6, 20))
            draw.line(at(x, y) + at(x + length * np.cos(a), y + length * np.sin(a)), fill=tone,
                      width=round(int(rng.integers(1, 3)) * k))
    # and softened by about a pixel, as a lens does before the sensor samples it: a speck of two
    # or three pixels then reads as the same soft dot wherever it falls between pixels
    factor = np.asarray(layer.reduce(s).filter(ImageFilter.GaussianBlur(MARK_SOFTNESS)), np.uint8)
    ys, xs = np.nonzero(factor != 100)  # elsewhere the factor is 1: each pixel stays as it is
    return ys, xs, factor[ys, xs]


def _coloured(lut: np.ndarray, index: np.ndarray, marked: tuple | None, rng: np.random.Generator,
              grain: float) -> np.ndarray:
    """The surface's pixels: `lut[index]`, the `marked` pixels scaled by their factors, then
    `grain` drawn from `rng` (the sensor's noise) added to every pixel, band by band.

    Grain takes four steps and a pixel 256 values, so colour and grain are one table per
    channel (step x brightness -> level): one gather per channel makes the pixels, and only the
    marked ones are worked out apart, in the order the table folds together."""
    h, w = index.shape
    steps = GRAIN_STEPS * np.float32(grain) if grain else np.zeros(1, np.float32)
    # step x level
    with_grain = np.clip(np.arange(256, dtype=np.uint8) + steps[:, None] + 0.5, 0, 255).astype(np.uint8)
    tables = [with_grain[:, lut[:, c]].ravel() for c in range(3)]  # step x brightness, for each channel
    out = np.empty((h, w, 3), np.uint8)
    for y0 in range(0, h, ROWS_AT_ONCE):
        band = slice(y0, y0 + ROWS_AT_ONCE)
        step = rng.integers(len(GRAIN_STEPS), size=index[band].shape + (1,))[..., 0] if grain else 0
        at = np.multiply(step, LUT_SIZE, dtype=np.intp)
        at += index[band]
        for c, table in enumerate(tables):
            np.take(table, at, out=out[band, :, c])
        if marked is not None:
            first, end = np.searchsorted(marked[0], (y0, y0 + ROWS_AT_ONCE))  # the marked pixels in this band
            ys, xs, factor = (v[first:end] for v in marked)
            level = np.clip(lut[index[ys, xs]] * (factor[:, None] / np.float32(100)) + 0.5, 0, 255).astype(np.uint8)
            out[ys, xs] = with_grain[(step[ys - y0, xs] if grain else 0), level.T].T
    return out


def _seen(view: SurfaceView | None, scale: float = 1.0):
    """Where a point of the surface lands in the shot drawn `scale` times the size, and how much
    longer a length gets there."""
    m = scale * (np.eye(2, 3) if view is None else view.affine())
    return ((lambda x, y: (m[0, 0] * x + m[0, 1] * y + m[0, 2], m[1, 0] * x + m[1, 1] * y + m[1, 2])),
            math.hypot(m[0, 0], m[1, 0]))


def _ellipse(draw: ImageDraw.ImageDraw, centre: tuple[float, float], rx: float, ry: float, tone: int) -> None:
    x, y = centre
    draw.ellipse((x - rx, y - ry, x + rx, y + ry), fill=tone)
