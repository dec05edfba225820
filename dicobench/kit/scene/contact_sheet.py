"""The catalogue at a glance: every object in every look the scene engine draws, at a given size.

An audit of what a person reads an object as must look at it the way a benchmark shows it: at
cue size, on a surface, in each style (plain, hollow, striped, dotted, two-tone) and with each
marking. `catalogue_pages` lays the objects out in a grid, one cell per object: its name, then
each look at the size drawn and enlarged (nearest neighbour, so no pixel is invented).
"""

from __future__ import annotations

import dataclasses
from typing import Sequence

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from dicobench.kit.scene.catalogue import CatalogueEntry
from dicobench.kit.scene.legibility import legible
from dicobench.kit.scene.model import STYLES, PlacedObject
from dicobench.kit.scene.render import Patch, object_patch

SURFACE = (178, 128, 80)  # a wood tone from the scene engine's surfaces
# (colour, accent) pairs the looks cycle through, so that a sheet shows light and dark objects
COLOURINGS = (("red", "white"), ("blue", "yellow"), ("green", "brown"), ("purple", "orange"),
              ("black", "pink"), ("teal", "white"), ("yellow", "blue"), ("grey", "black"))
MARKINGS = ("sticker", "band", "spots")
PAD, LABEL = 6, 16
STRUCK = (200, 0, 0)


@dataclasses.dataclass(frozen=True)
class Look:
    """One way an object is drawn on the sheet."""

    style: str
    marking: str | None = None


def looks(markings: bool = True) -> tuple[Look, ...]:
    """Every style, then (optionally) every marking on a plain object."""
    return tuple(Look(s) for s in STYLES) + (tuple(Look("plain", m) for m in MARKINGS) if markings else ())


def _patch_on_surface(patch: Patch, side: int) -> np.ndarray:
    """The patch centred on a `side` x `side` square of surface."""
    canvas = np.empty((side, side, 3), np.float32)
    canvas[:] = SURFACE
    ph, pw = patch.alpha.shape
    oy, ox = (side - ph) // 2, (side - pw) // 2
    y0, x0 = max(oy, 0), max(ox, 0)
    y1, x1 = min(oy + ph, side), min(ox + pw, side)
    a = patch.alpha[y0 - oy : y1 - oy, x0 - ox : x1 - ox, None]
    canvas[y0:y1, x0:x1] = canvas[y0:y1, x0:x1] * (1 - a) + patch.rgb[y0 - oy : y1 - oy, x0 - ox : x1 - ox] * a
    return np.clip(canvas + 0.5, 0, 255).astype(np.uint8)


def _object(entry: CatalogueEntry, look: Look, size: int, colouring: tuple[str, str], fitted: bool) -> PlacedObject:
    return PlacedObject(0, entry.name, colouring[0], size, 0, 0, style=look.style, accent=colouring[1],
                        marking=look.marking, marking_fit=fitted and look.marking is not None)


def drawn(entry: CatalogueEntry, look: Look, size: int, colouring: tuple[str, str], fitted: bool = True) -> np.ndarray:
    """The object as the scene engine draws it in `look` (upright), on a square of surface; a
    marking `fitted` to the body as the audited catalogue draws it, else at the first release's places."""
    return _patch_on_surface(object_patch(_object(entry, look, size, colouring, fitted)), int(size * 1.6) + 8)


def catalogue_pages(entries: Sequence[CatalogueEntry], size: int, *, zoom: int = 4, columns: int = 3,
                    rows: int = 16, markings: bool = True, rules: bool = True) -> list[Image.Image]:
    """Pages of `columns` x `rows` cells; each cell shows one object's name and every look at
    `size` px (top: as drawn; below: enlarged `zoom` times). With `rules` (the audited catalogue),
    markings are fitted to the body and a look the audited rules never draw at that size
    (`dicobench.kit.scene.legibility`) is struck through; without, markings lie where the first
    release put them."""
    kinds = looks(markings)
    tile = int(size * 1.6) + 8
    cell_w = PAD + len(kinds) * (tile * zoom + PAD)
    cell_h = LABEL + tile + PAD + tile * zoom + PAD
    font = ImageFont.load_default(size=13)
    pages = []
    per_page = columns * rows
    for start in range(0, len(entries), per_page):
        chunk = entries[start : start + per_page]
        used_rows = -(-len(chunk) // columns)
        page = Image.new("RGB", (columns * cell_w, used_rows * cell_h), "white")
        draw = ImageDraw.Draw(page)
        for k, entry in enumerate(chunk):
            left, top = (k % columns) * cell_w, (k // columns) * cell_h
            draw.text((left + PAD, top + 1), f"{entry.name}  ({entry.icon}, {entry.category})", fill="black",
                      font=font)
            for j, look in enumerate(kinds):
                pixels = drawn(entry, look, size, COLOURINGS[(start + k + j) % len(COLOURINGS)], rules)
                x = left + PAD + j * (tile * zoom + PAD)
                page.paste(Image.fromarray(pixels), (x, top + LABEL))
                page.paste(Image.fromarray(pixels).resize((tile * zoom, tile * zoom), Image.Resampling.NEAREST),
                           (x, top + LABEL + tile + PAD))
                if rules and not legible(_object(entry, look, size, COLOURINGS[(start + k + j) % len(COLOURINGS)],
                                                 rules), SURFACE):
                    y0 = top + LABEL + tile + PAD
                    draw.line((x, y0, x + tile * zoom, y0 + tile * zoom), fill=STRUCK, width=3)
        pages.append(page)
    return pages
