"""Whether a person reads a drawn look as what an option says it is: the audited look rules.

A pattern or a marking that cannot be seen, or that breaks an object's outline into pieces, makes
an option untrue ("the red-and-white striped mug" where nobody sees stripes) or the object
unreadable (a two-tone satellite dish whose radio waves end in two stray white blocks). Each rule
below is measured on the glyph at the size it is drawn, so it holds for every glyph x colouring x
pattern x marking x size the scene engine draws. They apply to the `audited` catalogue
(`dicobench.kit.scene.catalogue`); the first release's looks are drawn as they always were.

- Patterns (striped, dotted) need room: at least `PATTERN_MIN_SIZE` px, so that a stripe or a dot
  is small beside the object's parts (the audit's contact sheets show striped and dotted glyphs at
  18-24 px as noise that hides the shape), and a broad body: at most `MAX_EDGE_SHARE` of the
  glyph's pixels on its edges (stripes across a chessboard's squares or a bicycle's spokes hide
  the very detail that names it).
- A second colour (pattern, two-tone half, marking) is clearly different (`CLEARLY_DIFFERENT` in
  Lab) from the main colour (else it is not there), and from the surface where it reaches the
  outline (patterns, a band across the body): a stripe that matches the surface cuts the
  silhouette into blobs. A sticker or spots lie inside the body and are seen against it.
- Two-tone splits the glyph at half height; no piece of either colour may be a speck
  (`MIN_PIECE` of the glyph): the pieces must read as halves of one object.
- Hollow (outline) must empty a visible share of the body (`MIN_HOLLOW`), counting only what it
  empties in places at least 3 px wide: on a glyph of thin strokes (a television's frame, a
  laptop's) the ring leaves hairlines and the hollow look is the plain one.
- No look in which the glyph reads as something else (`catalogue.MISREAD_LOOKS`: a hollow spoon
  is a magnifying glass, a brown snowman a gingerbread man).
- No black body for a glyph whose inner detail is fine (`hides_detail`): the rim covers holes up
  to 2 px wide in 0.4 times the body's colour, a line on every body but black (7 Lab units from
  its rim; every other colour 30 or more), so a black chessboard is a black square and a black
  waffle a black disc.
- A marking (sticker, band, spots) lies on a plain body (on a pattern in its own accent colour it
  vanishes), fitted to it (`dicobench.kit.scene.markings`): never clipped by the outline or a hole,
  spots apart, a band long, so that no marking reads as another; and its colour stands off the
  body's more than a pattern's must (`MARK_CONTRAST`), as a marking is small.
"""

from __future__ import annotations

import functools

import numpy as np
from PIL import Image, ImageDraw, ImageFilter

from dicobench.kit.scene.catalogue import MISREAD_LOOKS, by_name
from dicobench.kit.scene.glyphs import mask as _mask
from dicobench.kit.scene.markings import fitted_area
from dicobench.kit.scene.model import PlacedObject
from dicobench.kit.scene.palette import CLEARLY_DIFFERENT, COLOURS, lab_distance

PATTERN_MIN_SIZE = 32
MAX_EDGE_SHARE = 0.33
MIN_PIECE = 0.08
MIN_HOLLOW = 0.2
MARK_CONTRAST = 60.0  # Lab distance of a marking's colour from the body's: green spots on teal (52) fade at 48 px
DETAIL_SIZE = 18  # the smallest em an audited build draws an object at (`hard`)
HIDDEN_DETAIL = 0.10  # inner detail under the rim, as a share of the filled outline: a black waffle's grid (0.30)
KEPT_DETAIL = 0.06  # inner detail the rim leaves open: a bus's windows (0.08) still show on a black bus


def _pieces(mask: np.ndarray) -> np.ndarray:
    """The 4-connected pieces of a boolean mask, as each piece's pixel count on each row
    (pieces x rows). Traced run by run: a row's runs of set pixels join the pieces of the runs
    they touch on the row above (a union-find over a few hundred runs, not over pixels)."""
    edges = np.diff(np.pad(mask.astype(np.int8), ((0, 0), (1, 1))), axis=1)
    ys, starts = (v.tolist() for v in np.nonzero(edges == 1))
    ends = np.nonzero(edges == -1)[1].tolist()  # row by row, so the k-th end closes the k-th start
    parent = list(range(len(ys)))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    above, here = [], []  # the runs on the row above and on this row
    for r, y in enumerate(ys):
        if here and ys[here[0]] != y:
            above, here = (here if ys[here[0]] == y - 1 else []), []
        for q in above:
            if starts[r] < ends[q] and starts[q] < ends[r]:  # the runs share a column
                parent[root(r)] = root(q)
        here.append(r)
    roots = [root(i) for i in range(len(ys))]
    index = {r: n for n, r in enumerate(dict.fromkeys(roots))}
    counts = np.zeros((len(index), mask.shape[0]), np.int64)
    np.add.at(counts, ([index[r] for r in roots], ys), np.subtract(ends, starts))
    return counts


@functools.lru_cache(maxsize=8192)
def two_tone_holds(name: str, size: int) -> bool:
    """Both halves of the glyph read as parts of it: where the split cuts a part of the glyph,
    neither side of the cut is a speck of that part."""
    mask = _mask(name, size)
    lower = np.arange(mask.shape[0]) > mask.shape[0] / 2  # as the renderer splits it
    for rows in _pieces(mask):
        size_of = int(rows.sum())
        sides = (int(rows[lower].sum()), int(rows[~lower].sum()))
        if min(sides) and min(sides) < MIN_PIECE * size_of:
            return False
    return True


@functools.lru_cache(maxsize=8192)
def edge_share(name: str, size: int) -> float:
    """The share of the glyph's pixels that lie on its edges (outline and holes): low for broad bodies."""
    mask = _mask(name, size)
    return float((mask & ~_eroded(mask, 3)).sum()) / max(int(mask.sum()), 1)


@functools.lru_cache(maxsize=8192)
def hollow_share(name: str, size: int) -> float:
    """The share of the solid body that the hollow look leaves empty in places a person sees
    as empty (at least 3 px across)."""
    entry = by_name()[name]
    solid = _mask(name, size)
    if "regular" in entry.styles:
        hollow = _mask(name, size, "regular")
        h, w = min(solid.shape[0], hollow.shape[0]), min(solid.shape[1], hollow.shape[1])
        emptied = solid[:h, :w] & ~hollow[:h, :w]
    else:
        k = max(3, (size // 10) | 1)  # the renderer's ring for a glyph with no outline style
        emptied = _eroded(solid, k)
    return float(_eroded(emptied, 3).sum()) / max(int(solid.sum()), 1)


def _eroded(mask: np.ndarray, k: int) -> np.ndarray:
    return np.asarray(Image.fromarray(mask.astype(np.uint8) * 255).filter(ImageFilter.MinFilter(k))) > 127


def _holes(mask: np.ndarray) -> np.ndarray:
    """What the glyph's outline encloses that is not ink: the background no 4-connected path of
    background joins to the border."""
    outside = Image.fromarray(np.pad(~mask, 1, constant_values=True).astype(np.uint8)).copy()  # a copy: fill in place
    ImageDraw.floodfill(outside, (0, 0), 2)
    return (np.asarray(outside) == 1)[1:-1, 1:-1]


@functools.lru_cache(maxsize=1024)
def detail_shares(name: str, size: int) -> tuple[float, float]:
    """The glyph's inner detail (its holes) as shares of its filled outline: what the renderer's
    1 px rim covers, and what it leaves showing the surface."""
    mask = _mask(name, size)
    holes = _holes(mask)
    rim = np.asarray(Image.fromarray(mask.astype(np.uint8) * 255).filter(ImageFilter.MaxFilter(3))) > 127
    filled = max(int((mask | holes).sum()), 1)
    return float((holes & rim).sum()) / filled, float((holes & ~rim).sum()) / filled


def hides_detail(name: str) -> bool:
    """Whether a black body hides what names the glyph: at the smallest size drawn, much of its inner
    detail lies under the rim, which black cannot tell from itself, and little lies open."""
    hidden, kept = detail_shares(name, DETAIL_SIZE)
    return hidden >= HIDDEN_DETAIL and kept < KEPT_DETAIL


def marking_holds(name: str, size: int, marking: str) -> bool:
    """The marking fits the body at this size (`dicobench.kit.scene.markings.fitted_area`)."""
    return fitted_area(name, size, marking)[1]


def _distinct(a: str, b: tuple[int, int, int]) -> bool:
    return lab_distance(COLOURS[a], b) >= CLEARLY_DIFFERENT


@functools.lru_cache(maxsize=4096)
def misread_colours(name: str, version: str) -> frozenset[str]:
    """The colours in which catalogue `version`'s object `name` reads as another thing
    (`catalogue.MISREAD_LOOKS`: a brown snowman is a gingerbread man) or loses what names it (black,
    `hides_detail`); none in the first release."""
    if version == "first-release":
        return frozenset()
    return frozenset(MISREAD_LOOKS.get(name, {})) & frozenset(COLOURS) | ({"black"} if hides_detail(name) else set())


def legible(obj: PlacedObject, surface: tuple[int, int, int]) -> bool:
    """Whether every part of `obj`'s look is seen as the look's words say, on `surface`."""
    if obj.style in MISREAD_LOOKS.get(obj.name, {}) or obj.colour in misread_colours(obj.name, "audited"):
        return False
    patterned = obj.style in ("striped", "dotted", "two_tone")
    if (patterned or obj.marking is not None) and not _distinct(obj.accent, COLOURS[obj.colour]):
        return False
    if (patterned or obj.marking == "band") and not _distinct(obj.accent, surface):  # what reaches the outline
        return False
    if obj.style in ("striped", "dotted") and (obj.size < PATTERN_MIN_SIZE
                                               or edge_share(obj.name, obj.size) > MAX_EDGE_SHARE):
        return False
    if obj.style == "two_tone" and not two_tone_holds(obj.name, obj.size):
        return False
    if obj.style == "outline" and hollow_share(obj.name, obj.size) < MIN_HOLLOW:
        return False
    if obj.marking is not None and (obj.style != "plain" or not obj.marking_fit
                                    or not marking_holds(obj.name, obj.size, obj.marking)
                                    or lab_distance(COLOURS[obj.accent], COLOURS[obj.colour]) < MARK_CONTRAST):
        return False
    return True
