"""Where an instance's marking lies on its glyph, and what a person reads a drawn marking as.

A marking is what makes one object this very object (the instance task): a sticker (one disc),
a band (a strip across the body) or spots (three small discs), in the object's accent colour.
The first release put each at fixed places of the glyph's box (`fixed_area`): a spot could fall
off the body or onto a hole, leaving one blob that reads as a sticker (the review's server rack),
a sticker could be cut into a crescent, and a band across a narrow body is a square. The audited
catalogue fits each marking to the body instead (`fitted_area`): every disc lies wholly on the
body with a ring of body colour round it, the three spots stay apart by a spot's width, and a
band crosses a stretch of body at least `BAND_LENGTH` times as long as it is thick, with body
colour above and below it. Where a marking does not fit at a size it is not drawn there.

The places are found once per glyph (as fractions of the glyph's ink box, `placement`), so
that they fit at each of `SIZES` with `SLACK` to spare, and are drawn at every size from there:
one instance shows its marking at the same place of its body at every size a scene draws it, and
`fitted_area` checks the fit again at the size drawn. `read_marking` is the independent check:
what a marking's pixels read as by their shape alone (how many pieces, how round, how alike),
which the audit measures on rendered objects (`dicobench.kit.scene.audit.marking_reads`,
`dicobench catalogue --markings`).
"""

from __future__ import annotations

import functools

import numpy as np

from dicobench.kit.scene.glyphs import body

MARKINGS = ("sticker", "band", "spots")
REF_SIZE = 48  # the smallest size a marked object is drawn at (`dicobench.tasks.instance.MIN_SIZE`)
SLACK = 1.0  # px a place keeps beyond the ring at the sizes it is found at: it fits at the sizes between
SIZES = (48, 52, 60, 72)  # the sizes the presets draw marked objects at, sampled (hard 48-52, extreme 48-72)
SPOT = 0.6  # a spot's radius, times a sticker's (the first release's)
FITTED_SPOT = 0.7  # ... fitted: at 48 px a spot 7 px across, not a 5 px square
BAND = 0.7  # a band's half thickness, times a sticker's radius
RING = 1.5  # px of body colour between a disc and the nearest pixel off the body (diagonal neighbours too)
SPOT_GAP = 2.0  # spots' centres lie at least 2 + this many spot radii apart: a spot's width between them
BAND_LENGTH = 3.0  # a band's length on the body, at least, times its thickness
MARGIN = 2  # glyph masks keep this margin round the ink (`dicobench.kit.scene.glyphs.glyph_mask`)
# the first release's places (fractions of the glyph's box), which fitted markings keep nearest to
STICKER_AT = (0.62, 0.4)
SPOTS_AT = ((0.3, 0.3), (0.55, 0.6), (0.75, 0.35))
BAND_AT = 0.55
# what `read_marking` calls round and long: a disc measures about 1, a band 3 or more
ROUND = 1.6
LONG = 2.4
ALIKE = 0.6  # spots are alike: the smallest piece at least this share of the largest
DOTS = (0.2, 2.0)  # a glyph's round hole passes for a marking's disc from 0.2 to 2 times its area


def radius(size: int) -> float:
    """A sticker's radius at glyph size `size` (spots and bands scale with it)."""
    return max(3.0, size * 0.1)


def fixed_area(marking: str, size: int, h: int, w: int) -> np.ndarray:
    """Where the first release draws a marking on an upright h x w glyph patch (HxW bool), before
    the glyph clips it (`easy` keeps it)."""
    yy, xx = np.mgrid[0:h, 0:w]
    r = radius(size)
    if marking == "sticker":
        return (xx - STICKER_AT[0] * w) ** 2 + (yy - STICKER_AT[1] * h) ** 2 < r**2
    if marking == "band":
        return np.abs(yy - BAND_AT * h) < r * BAND
    if marking == "spots":
        return np.logical_or.reduce([(xx - fx * w) ** 2 + (yy - fy * h) ** 2 < (SPOT * r) ** 2 for fx, fy in SPOTS_AT])
    raise ValueError(f"unknown marking {marking!r}")


def _clear_of(mask: np.ndarray, reach: float) -> np.ndarray:
    """The body pixels with no pixel off the body (or off the patch) nearer than `reach` px: the
    body eroded by a disc, row offset by row offset (each a run along the row, by cumulative sums)."""
    h, w = mask.shape
    k = int(np.ceil(reach))
    off = np.pad(~mask, k, constant_values=True).astype(np.int32)
    sums = np.pad(np.cumsum(off, axis=1), ((0, 0), (1, 0)))  # sums[y, x]: off-body pixels left of column x
    out = mask.copy()
    for dy in range(-k, k + 1):
        if dy * dy >= reach * reach:
            continue
        a = int(np.ceil(np.sqrt(reach * reach - dy * dy))) - 1  # |dx| <= a keeps dx^2 + dy^2 < reach^2
        rows = sums[k + dy : k + dy + h]
        out &= rows[:, k + a + 1 : k + a + 1 + w] - rows[:, k - a : k - a + w] == 0
    return out


def _to_box(shape: tuple[int, int], fx: float, fy: float) -> tuple[float, float]:
    """A point given as fractions of the ink box, in pixels of a patch of `shape`."""
    h, w = shape
    return MARGIN + fx * (w - 2 * MARGIN - 1), MARGIN + fy * (h - 2 * MARGIN - 1)


def _from_box(shape: tuple[int, int], x: float, y: float) -> tuple[float, float]:
    h, w = shape
    return (x - MARGIN) / max(w - 2 * MARGIN - 1, 1), (y - MARGIN) / max(h - 2 * MARGIN - 1, 1)


def _nearest(ok: np.ndarray, x: float, y: float) -> tuple[int, int] | None:
    """The pixel of `ok` nearest (x, y), the first in reading order on a tie; None if there is none."""
    ys, xs = np.nonzero(ok)
    if len(xs) == 0:
        return None
    k = int(np.argmin((xs - x) ** 2 + (ys - y) ** 2))
    return int(xs[k]), int(ys[k])


def _discs(shape: tuple[int, int], centres, r: float) -> np.ndarray:
    yy, xx = np.mgrid[0 : shape[0], 0 : shape[1]]
    return np.logical_or.reduce([(xx - cx) ** 2 + (yy - cy) ** 2 < r**2 for cx, cy in centres])


def _band_rows(h: int, yc: float, half: float) -> np.ndarray:
    return np.abs(np.arange(h) - yc) < half


def _runs(full: np.ndarray) -> list[tuple[int, int]]:
    """The runs of True in a 1-D array, as (first, last) index pairs."""
    edges = np.diff(np.concatenate(([0], full.astype(np.int8), [0])))
    return list(zip(np.nonzero(edges == 1)[0].tolist(), (np.nonzero(edges == -1)[0] - 1).tolist()))


def _band_span(mask: np.ndarray, yc: float, half: float) -> tuple[int, int] | None:
    """The longest stretch of columns where a band centred at row `yc` lies on the body with body
    colour above and below it (ring), if it is `BAND_LENGTH` times as long as thick."""
    ringed = _band_rows(mask.shape[0], yc, half + RING)
    if not ringed.any():
        return None
    full = mask[ringed].all(axis=0)
    runs = _runs(full)
    if not runs:
        return None
    first, last = max(runs, key=lambda r: (r[1] - r[0], -r[0]))
    return (first, last) if last - first + 1 >= BAND_LENGTH * 2 * half else None


@functools.lru_cache(maxsize=4096)
def _centres(name: str, size: int, marking: str, slack: float = 0.0) -> np.ndarray:
    """Where a disc of `marking` (a sticker, a spot) may be centred on glyph `name` at `size`: with
    its ring (and `slack` px more), wholly on the body (HxW bool)."""
    return _clear_of(body(name, size), _disc_radius(marking, size) + RING + slack)


def _disc_radius(marking: str, size: int) -> float:
    return radius(size) * (1.0 if marking == "sticker" else FITTED_SPOT)


def _drawn(name: str, size: int, marking: str, places, slack: float = 0.0) -> tuple[np.ndarray, bool]:
    """`places` (fractions of the ink box) drawn at `size`: the marking's pixels and whether it fits
    (a band with `slack` px more ring; discs are found with theirs, `_fit_everywhere`)."""
    mask = body(name, size)
    shape = mask.shape
    points = [_to_box(shape, fx, fy) for fx, fy in places]
    if marking == "band":
        (x0, yc), (x1, _) = points
        yc, x0, x1 = round(yc * 2) / 2, round(x0), round(x1)
        half = BAND * radius(size)
        x = np.arange(shape[1])
        cols = (x >= x0) & (x <= x1)
        rows = _band_rows(shape[0], yc, half)
        core = (x > x0 + 1 + slack) & (x < x1 - 1 - slack)  # its ends may meet the outline
        fits = bool(core.any() and mask[_band_rows(shape[0], yc, half + RING + slack)][:, core].all()) \
            and int(cols.sum()) >= BAND_LENGTH * 2 * half + 2 * slack
        return rows[:, None] & cols[None, :] & mask, fits
    r = _disc_radius(marking, size)
    centres = [(round(x), round(y)) for x, y in points]
    ok = _centres(name, size, marking)
    fits = all(0 <= y < shape[0] and 0 <= x < shape[1] and ok[y, x] for x, y in centres)
    fits &= all((ax - bx) ** 2 + (ay - by) ** 2 >= ((2 + SPOT_GAP) * r) ** 2
                for i, (ax, ay) in enumerate(centres) for bx, by in centres[i + 1 :])
    return _discs(shape, centres, r), fits


def _fit_everywhere(name: str, marking: str) -> np.ndarray:
    """Which pixels of the glyph at `REF_SIZE` may centre a disc of `marking` that fits, with
    `SLACK` to spare, at each of `SIZES`."""
    shape = body(name, REF_SIZE).shape
    yy, xx = np.mgrid[0 : shape[0], 0 : shape[1]]
    fx, fy = _from_box(shape, xx, yy)
    ok = np.ones(shape, bool)
    for size in SIZES:
        there = _centres(name, size, marking, SLACK)
        px, py = (np.rint(v).astype(int) for v in _to_box(there.shape, fx, fy))
        inside = (px >= 0) & (px < there.shape[1]) & (py >= 0) & (py < there.shape[0])
        ok &= inside & there[np.clip(py, 0, there.shape[0] - 1), np.clip(px, 0, there.shape[1] - 1)]
    return ok


def own_dots(name: str, marking: str) -> int:
    """How many of the glyph's own dots (round holes: a dice's pips, a palette's wells, a robot's
    eyes, at `REF_SIZE`) are about the size of `marking`'s discs, from `DOTS` times a disc's area
    to a sticker's `DOTS[1]` times: spots among them cannot be counted, and a sticker among two or
    more is one more dot."""
    mask = body(name, REF_SIZE)
    h, w = mask.shape
    area = np.pi * _disc_radius(marking, REF_SIZE) ** 2
    count = 0
    for hole in _pieces8(~mask):
        ys, xs = hole[:, 0], hole[:, 1]
        if ys.min() > 0 and xs.min() > 0 and ys.max() < h - 1 and xs.max() < w - 1 \
                and DOTS[0] * area <= len(hole) <= DOTS[1] * area and _elongation(hole) <= ROUND:
            count += 1
    return count


@functools.lru_cache(maxsize=4096)
def placement(name: str, marking: str) -> tuple[tuple[float, float], ...] | None:
    """Where `marking` lies on glyph `name`, as fractions of its ink box: disc centres (a sticker:
    one, spots: three) or, for a band, (left end, centre height) and (right end, centre height);
    each nearest the first release's place among those that fit at every size of `SIZES`. None
    where it fits nowhere, or where the glyph's own dots would pass for it (`own_dots`)."""
    mask = body(name, REF_SIZE)
    shape = mask.shape
    if marking != "band" and own_dots(name, marking) >= (1 if marking == "spots" else 2):
        return None
    if marking == "band":
        half = BAND * radius(REF_SIZE)
        target = _to_box(shape, 0.5, BAND_AT)[1]
        for yc in sorted(np.arange(0, shape[0], 0.5).tolist(), key=lambda y: (abs(y - target), y)):
            span = _band_span(mask, yc, half)
            if span is not None:
                places = (_from_box(shape, span[0], yc), _from_box(shape, span[1], yc))
                if all(_drawn(name, size, marking, places, SLACK)[1] for size in SIZES):
                    return places
        return None
    ok = _fit_everywhere(name, marking)
    if marking == "sticker":
        found = _nearest(ok, *_to_box(shape, *STICKER_AT))
        return None if found is None else (_from_box(shape, *found),)
    if marking == "spots":
        yy, xx = np.mgrid[0 : shape[0], 0 : shape[1]]
        apart = (2 + SPOT_GAP) * _disc_radius(marking, REF_SIZE) + 1  # a pixel more: rounding at other sizes
        centres = []
        for fx, fy in SPOTS_AT:
            for cx, cy in centres:
                ok &= (xx - cx) ** 2 + (yy - cy) ** 2 >= apart**2
            found = _nearest(ok, *_to_box(shape, fx, fy))
            if found is None:
                return None
            centres.append(found)
        places = tuple(_from_box(shape, *c) for c in centres)
        return places if all(_drawn(name, size, marking, places)[1] for size in SIZES) else None
    raise ValueError(f"unknown marking {marking!r}")


@functools.lru_cache(maxsize=8192)
def fitted_area(name: str, size: int, marking: str) -> tuple[np.ndarray, bool]:
    """Where the audited catalogue draws `marking` on glyph `name` at `size` (HxW bool, read-only,
    the glyph mask's shape), and whether it fits there: every disc with its ring on the body, spots
    apart, a band long and ringed. `placement` makes it fit at every size of `SIZES`; elsewhere
    it is measured again."""
    places = placement(name, marking)
    if places is None:
        area, fits = np.zeros(body(name, size).shape, bool), False
    else:
        area, fits = _drawn(name, size, marking, places)
    area.setflags(write=False)
    return area, fits


def read_marking(mark: np.ndarray) -> str:
    """What a person reads a drawn marking as from its pixels alone (HxW bool: where the accent
    colour shows on the object): "sticker" (one round piece), "spots" (several round pieces of
    about one size), "band" (long pieces only), "unclear" (a crescent, a stub, a clipped spot
    beside whole ones, long and round pieces mixed) or "none". Pieces are 8-connected: spots that
    touch at a corner are one blob."""
    pieces = _pieces8(mark)
    if not pieces:
        return "none"
    shapes = [_elongation(p) for p in pieces]
    if all(e >= LONG for e in shapes):
        return "band"
    if all(e <= ROUND for e in shapes):
        if len(pieces) == 1:
            return "sticker"
        sizes = [len(p) for p in pieces]
        # a spot cut by the outline is a bit, not a spot
        return "spots" if min(sizes) >= ALIKE * max(sizes) else "unclear"
    return "unclear"


def _elongation(points: np.ndarray) -> float:
    """sqrt of the ratio of a piece's principal second moments (a disc about 1, a bar its length
    over its width), each pixel a unit square."""
    if len(points) < 2:
        return 1.0
    cov = np.cov(points.T.astype(np.float64), bias=True) + np.eye(2) / 12
    low, high = np.linalg.eigvalsh(cov)
    return float(np.sqrt(high / max(low, 1e-9)))


def _pieces8(mask: np.ndarray) -> list[np.ndarray]:
    """The 8-connected pieces of a small boolean mask, each as its (y, x) pixels."""
    seen = np.zeros(mask.shape, bool)
    out = []
    h, w = mask.shape
    for y, x in zip(*np.nonzero(mask)):
        if seen[y, x]:
            continue
        seen[y, x] = True
        stack, piece = [(y, x)], []
        while stack:
            cy, cx = stack.pop()
            piece.append((cy, cx))
            for ny in range(max(cy - 1, 0), min(cy + 2, h)):
                for nx in range(max(cx - 1, 0), min(cx + 2, w)):
                    if mask[ny, nx] and not seen[ny, nx]:
                        seen[ny, nx] = True
                        stack.append((ny, nx))
        out.append(np.array(piece))
    return out
