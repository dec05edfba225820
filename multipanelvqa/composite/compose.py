"""Rendering a multipanel image from a composition spec.

A `Composition` says everything that ends up in the pixels (boxes, panel images,
background, texts); augmentations edit the spec (see augment.py) and `render` draws
it once, so boxes stored in a row are exactly where the panels were drawn and panels
are resampled only once. Fonts come from Pillow's bundled default (no system font).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Sequence

import numpy as np
from PIL import Image, ImageDraw, ImageFont, ImageOps

from dicobench.kit.scene.geometry import Box, centre, xywh, xyxy
from multipanelvqa.composite.layouts import Layout
from multipanelvqa.schema import CANVAS

HEADER_HEIGHT = 60  # band at the top of the canvas that holds a header text
MIN_FONT = 10


@dataclass(frozen=True)
class Composition:
    boxes: tuple[Box, ...]
    panels: tuple[Image.Image, ...]
    size: int = CANVAS
    chessboard: int | None = None  # side of a chessboard square in px; None: white background
    captions: tuple[str, ...] = ()  # one mark per panel, in its top-left corner (Set-of-Mark)
    hints: tuple[str, ...] = ()  # one text per panel, along its bottom edge
    header: str | None = None  # text in the top HEADER_HEIGHT px of the canvas

    def __post_init__(self):
        if len(self.panels) != len(self.boxes):
            raise ValueError(f"{len(self.panels)} panels for {len(self.boxes)} boxes")
        for texts, name in ((self.captions, "captions"), (self.hints, "hints")):
            if texts and len(texts) != len(self.boxes):
                raise ValueError(f"{len(texts)} {name} for {len(self.boxes)} boxes")

    @classmethod
    def of(cls, layout: Layout, panels: Sequence[Image.Image]) -> "Composition":
        return cls(boxes=layout.boxes, panels=tuple(panels))


def compose(
    layout: Layout,
    panels: Sequence[Image.Image],
    *,
    chessboard: int | None = None,
    captions: Sequence[str] = (),
) -> Image.Image:
    """Panels centre-cropped to their boxes' shape and pasted on a white (or chessboard) canvas."""
    spec = Composition(layout.boxes, tuple(panels), chessboard=chessboard, captions=tuple(captions))
    return render(spec)


def render(spec: Composition) -> Image.Image:
    canvas = _background(spec.size, spec.chessboard)
    for (x, y, w, h), panel in zip(spec.boxes, spec.panels):
        fitted = ImageOps.fit(panel.convert("RGB"), (w, h), Image.Resampling.LANCZOS)
        canvas.paste(fitted, (x, y))
    draw = ImageDraw.Draw(canvas)
    for box, text in zip(spec.boxes, spec.captions):
        _caption(draw, box, text)
    for box, text in zip(spec.boxes, spec.hints):
        _hint(draw, box, text)
    if spec.header is not None:
        _text_band(draw, (0, 0, spec.size, HEADER_HEIGHT), spec.header, HEADER_HEIGHT // 2)
    return canvas


def chessboard(size: int, square: int) -> Image.Image:
    """Black and white squares of side `square`, white in the top-left corner."""
    if square < 1:
        raise ValueError("chessboard square must be at least 1 px")
    idx = np.arange(size) // square
    black = (idx[:, None] + idx[None, :]) % 2 == 1
    return Image.fromarray(np.where(black, 0, 255).astype(np.uint8), "L").convert("RGB")


def transform_boxes(boxes: Sequence[Box], src: Box, dst: Box) -> tuple[Box, ...]:
    """Map boxes from the square region src to dst (both x, y, w, h), keeping the aspect ratio.

    Edges are mapped rather than widths, so panels that touch still touch and never overlap
    after rounding.
    """
    if src[2] != src[3] or dst[2] != dst[3]:
        raise ValueError("regions must be square to keep the aspect ratio")
    k = dst[2] / src[2]

    def edge(v: int, axis: int) -> int:
        return round(dst[axis] + (v - src[axis]) * k)

    def mapped(box: Box) -> Box:
        x0, y0, x1, y1 = xyxy(box)
        return xywh((edge(x0, 0), edge(y0, 1), edge(x1, 0), edge(y1, 1)))

    return tuple(mapped(box) for box in boxes)


@functools.lru_cache(maxsize=64)
def font(size: int) -> ImageFont.FreeTypeFont:
    return ImageFont.load_default(size=size)


def fit_font(text: str, width: int, size: int) -> ImageFont.FreeTypeFont:
    """The largest font up to `size` whose rendering of text fits in width; raises if none does."""
    for s in range(size, MIN_FONT - 1, -1):
        left, _, right, _ = font(s).getbbox(text)
        if right - left <= width:
            return font(s)
    raise ValueError(f"text {text!r} does not fit in {width} px")


def _background(size: int, square: int | None) -> Image.Image:
    return Image.new("RGB", (size, size), "white") if square is None else chessboard(size, square)


def _caption(draw: ImageDraw.ImageDraw, box: Box, text: str) -> None:
    x, y, w, h = box
    f = fit_font(text, w // 2, max(MIN_FONT, min(w, h) // 6))
    left, top, right, bottom = f.getbbox(text)
    pad = max(2, f.size // 5)
    draw.rectangle((x, y, x + right - left + 2 * pad, y + bottom - top + 2 * pad), fill="white", outline="black")
    draw.text((x + pad - left, y + pad - top), text, fill="black", font=f)


def _hint(draw: ImageDraw.ImageDraw, box: Box, text: str) -> None:
    x, y, w, h = box
    size = max(MIN_FONT, min(w, h) // 9)
    band = size + size // 2
    _text_band(draw, (x, y + h - band, w, band), text, size)


def _text_band(draw: ImageDraw.ImageDraw, region: Box, text: str, size: int) -> None:
    """White band over region with text centred in it, shrunk to fit its width."""
    x, y, w, h = region
    f = fit_font(text, w - 4, size)
    draw.rectangle((x, y, x + w - 1, y + h - 1), fill="white")
    draw.text(centre(region), text, fill="black", font=f, anchor="mm")
