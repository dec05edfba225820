"""Glyphs as the scene engine draws them: a catalogue object's icon rasterised at a size, its
coverage kept across rows, and the body it shows when drawn plain (what the renderer, the look
rules and the markings' fitting all read)."""

from __future__ import annotations

import functools

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from dicobench.kit.scene.catalogue import by_name, font_path


@functools.lru_cache(maxsize=64)
def _font(style: str, size: int) -> ImageFont.FreeTypeFont:
    return ImageFont.truetype(str(font_path(style)), size)


def glyph_mask(codepoint: int, style: str, size: int) -> np.ndarray:
    """The glyph's coverage (HxW float32 in [0, 1]) cropped to its ink with a 2 px margin."""
    return _coverage(codepoint, style, size) / np.float32(255)


# Every glyph at every size a build draws (hard: about 8,000, under 15 MiB as bytes): a long
# build then rasterises each glyph once per process.
GLYPHS_KEPT = 16384


@functools.lru_cache(maxsize=GLYPHS_KEPT)
def _coverage(codepoint: int, style: str, size: int) -> np.ndarray:
    """The glyph's coverage as drawn (HxW uint8, read-only), kept across rows in its bytes."""
    font = _font(style, size)
    char = chr(codepoint)
    left, top, right, bottom = font.getbbox(char)
    img = Image.new("L", (right - left + 4, bottom - top + 4), 0)
    ImageDraw.Draw(img).text((2 - left, 2 - top), char, font=font, fill=255)
    coverage = np.array(img, np.uint8)
    coverage.setflags(write=False)
    return coverage


def mask(name: str, size: int, style: str = "solid") -> np.ndarray:
    """Where catalogue object `name`'s glyph in `style` (its solid one where it has no such style) is ink at `size`."""
    entry = by_name()[name]
    return glyph_mask(entry.codepoint, style if style in entry.styles else "solid", size) > 0.5


@functools.lru_cache(maxsize=8192)
def body(name: str, size: int) -> np.ndarray:
    """Where glyph `name` drawn plain at `size` shows its body colour (HxW bool, read-only, the glyph
    mask's shape)."""
    drawn = mask(name, size)
    drawn.setflags(write=False)
    return drawn
