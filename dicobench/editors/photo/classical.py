"""Classical photo edits (OpenCV): recolour, remove, insert (paste), composite, move and traces.

Each op is a small callable with explicit parameters, `op(pixels, mask) -> PixelEdit`, that
returns a new image and the exact box of the pixels it changed. An op only touches pixels
where the mask's `alpha` is positive (the object, dilated by the feather), so everything
else stays bit-identical, which the difference checks then verify on the written pair.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from dicobench.kit.scene.geometry import Box, bounding, centre_px, intersect, xyxy


@dataclass(frozen=True)
class Mask:
    """A soft object mask: `alpha` (float32 in [0, 1]) covers `window` of the image."""

    window: Box
    alpha: np.ndarray

    def hard(self) -> np.ndarray:
        return self.alpha >= 0.5

    def support(self) -> Box:
        """The tight box of the mask's support: every pixel an op on it may change."""
        ys, xs = np.nonzero(self.alpha > 0)
        x, y = self.window[0] + int(xs.min()), self.window[1] + int(ys.min())
        return (x, y, int(xs.max() - xs.min() + 1), int(ys.max() - ys.min() + 1))

    def under(self, pixels: np.ndarray) -> np.ndarray:
        """The pixels of the mask's window (a view)."""
        return crop(pixels, self.window)

    def within(self, other: "Mask") -> "Mask":
        """This mask where `other` covers it too (alphas multiplied; nothing outside `other`'s window)."""
        (x, y, _, _), (ox, oy, _, _) = self.window, other.window
        theirs = np.zeros_like(self.alpha)
        met = intersect(self.window, other.window)
        if met is not None:
            x0, y0, x1, y1 = xyxy(met)
            theirs[y0 - y : y1 - y, x0 - x : x1 - x] = other.alpha[y0 - oy : y1 - oy, x0 - ox : x1 - ox]
        return Mask(self.window, self.alpha * theirs)


def crop(pixels: np.ndarray, box: Box) -> np.ndarray:
    """A view of `box` in `pixels`."""
    x, y, w, h = box
    return pixels[y : y + h, x : x + w]


@dataclass(frozen=True)
class PixelEdit:
    pixels: np.ndarray
    changed: Box | None  # the tight box of every changed pixel; None when nothing changed


def grow(box: Box, by: int, width: int, height: int) -> Box:
    """`box` grown by `by` pixels on every side, clipped to the image."""
    x0, y0 = max(box[0] - by, 0), max(box[1] - by, 0)
    x1, y1 = min(box[0] + box[2] + by, width), min(box[1] + box[3] + by, height)
    return (x0, y0, x1 - x0, y1 - y0)


def changed_box(a: np.ndarray, b: np.ndarray, within: Box | None = None) -> Box | None:
    """The tight box of the pixels where `a` and `b` differ; `within` (a box holding every
    possible change) spares comparing a whole 2K image."""
    x0, y0 = (within[0], within[1]) if within else (0, 0)
    if within:
        a, b = crop(a, within), crop(b, within)
    ys, xs = np.nonzero((a != b).any(axis=2))
    if len(xs) == 0:
        return None
    return (x0 + int(xs.min()), y0 + int(ys.min()), int(xs.max() - xs.min() + 1), int(ys.max() - ys.min() + 1))


def feather_kernel(feather: float) -> int:
    """The Gaussian kernel size for `feather` (sigma): the blur reaches exactly k // 2 pixels."""
    return 2 * math.ceil(3 * feather) + 1 if feather > 0 else 1


def soft(values: np.ndarray, window: Box, feather: float) -> Mask:
    """A mask from `values` in [0, 1] over `window`, blurred by `feather` (sigma)."""
    k = feather_kernel(feather)
    alpha = values.astype(np.float32)
    if k > 1:
        alpha = cv2.GaussianBlur(alpha, (k, k), feather)
    alpha[alpha < 1e-3] = 0.0  # rounding would keep these pixels anyway; now the support is exact
    return Mask(window, np.clip(alpha, 0, 1))


def pattern_mask(pattern: np.ndarray, at: tuple[int, int], shape: tuple[int, ...], feather: float = 1.0) -> Mask:
    """A mask drawn from `pattern` (float in [0, 1]) with its top left at `at`, clipped to the image."""
    h, w = pattern.shape
    x, y = at
    window = grow((x, y, w, h), 0, shape[1], shape[0])
    return soft(pattern[window[1] - y : window[1] - y + window[3], window[0] - x : window[0] - x + window[2]], window,
                feather)


def object_mask(pixels: np.ndarray, box: Box, feather: float = 1.5, iterations: int = 3) -> Mask:
    """The object inside `box`, segmented by GrabCut (initialised with the box), feathered.
    Where GrabCut finds almost nothing, the ellipse inscribed in the box stands in."""
    h, w = pixels.shape[:2]
    window = grow(box, max(box[2], box[3]) // 2 + feather_kernel(feather), w, h)
    patch = np.ascontiguousarray(crop(pixels, window))
    rect = (box[0] - window[0], box[1] - window[1], box[2], box[3])
    labels = np.zeros(patch.shape[:2], np.uint8)
    cv2.setRNGSeed(0)  # GrabCut's k-means start is random: fix it, the same input gives the same mask
    cv2.grabCut(cv2.cvtColor(patch, cv2.COLOR_RGB2BGR), labels, rect, np.zeros((1, 65)), np.zeros((1, 65)),
                iterations, cv2.GC_INIT_WITH_RECT)
    hard = (labels == cv2.GC_FGD) | (labels == cv2.GC_PR_FGD)
    if hard.sum() < 0.15 * box[2] * box[3]:
        hard = np.zeros(patch.shape[:2], np.uint8)
        centre = centre_px(rect)
        cv2.ellipse(hard, centre, (rect[2] // 2, rect[3] // 2), 0, 0, 360, 1, thickness=cv2.FILLED)
    return soft(hard > 0, window, feather)


def _blend(pixels: np.ndarray, mask: Mask, new_window: np.ndarray) -> PixelEdit:
    """`pixels` with `new_window` (float or uint8, window-sized) blended in by the mask's alpha."""
    out = pixels.copy()
    region = mask.under(out)
    a = mask.alpha[..., None]
    mixed = region.astype(np.float32) * (1 - a) + new_window.astype(np.float32) * a
    region[...] = np.where(a > 0, np.clip(np.rint(mixed), 0, 255), region).astype(np.uint8)
    return PixelEdit(out, changed_box(pixels, out, mask.window))


@dataclass(frozen=True)
class Recolour:
    """Rotate the object's hue by `hue_degrees` and scale its chroma in CIE Lab; pixels with
    less than `min_chroma` get a tint of that chroma at `hue_degrees`, so grey objects change too."""

    hue_degrees: float
    chroma_scale: float = 1.0
    min_chroma: float = 0.0

    def __call__(self, pixels: np.ndarray, mask: Mask) -> PixelEdit:
        lab = cv2.cvtColor(mask.under(pixels).astype(np.float32) / 255.0, cv2.COLOR_RGB2Lab)
        t = math.radians(self.hue_degrees)
        a, b = lab[..., 1], lab[..., 2]
        ra = (a * math.cos(t) - b * math.sin(t)) * self.chroma_scale
        rb = (a * math.sin(t) + b * math.cos(t)) * self.chroma_scale
        if self.min_chroma > 0:
            lack = np.clip(1 - np.hypot(ra, rb) / self.min_chroma, 0, 1)
            ra, rb = ra + lack * self.min_chroma * math.cos(t), rb + lack * self.min_chroma * math.sin(t)
        return _blend(pixels, mask, in_gamut(lab[..., 0], ra, rb) * 255.0)


GAMUT_STEPS = (0.9, 0.8, 0.7)  # chroma kept at least this far; past it, the channels clip


def in_gamut(lightness: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """RGB in [0, 1] of the Lab colours, each pixel outside sRGB brought in by lowering its chroma
    (clipping the channels instead darkens or lightens the shading), down to GAMUT_STEPS[-1] of it:
    a near-white object would lose all its new colour before it reached the gamut."""
    target = np.stack([lightness, a, b], axis=-1).astype(np.float32)
    rgb = cv2.cvtColor(target, cv2.COLOR_Lab2RGB)  # OpenCV clips to [0, 1]: a colour it clipped comes back other
    outside = np.abs(cv2.cvtColor(rgb, cv2.COLOR_RGB2Lab)[..., 0] - lightness) > 0.5
    for factor in GAMUT_STEPS:
        if not outside.any():
            break
        lab = np.stack([lightness[outside], a[outside] * factor, b[outside] * factor], axis=-1)[:, None, :]
        fitted = cv2.cvtColor(lab.astype(np.float32), cv2.COLOR_Lab2RGB)
        rgb[outside] = fitted[:, 0, :]
        still = np.abs(cv2.cvtColor(fitted, cv2.COLOR_RGB2Lab)[:, 0, 0] - lab[:, 0, 0]) > 0.5
        outside[outside] = still
    return rgb


@dataclass(frozen=True)
class Remove:
    """Fill the object (its mask dilated by `grow` pixels) from its surroundings with `cv2.inpaint`."""

    radius: float = 5.0
    grow: int = 2
    method: int = cv2.INPAINT_TELEA

    def __call__(self, pixels: np.ndarray, mask: Mask) -> PixelEdit:
        hole = cv2.dilate(mask.hard().astype(np.uint8), np.ones((2 * self.grow + 1,) * 2, np.uint8))
        hole &= (mask.alpha > 0).astype(np.uint8)  # never past the mask's support
        filled = cv2.inpaint(np.ascontiguousarray(mask.under(pixels)), hole, self.radius, self.method)
        out = pixels.copy()
        region = mask.under(out)
        region[hole > 0] = filled[hole > 0]
        return PixelEdit(out, changed_box(pixels, out, mask.window))


@dataclass(frozen=True)
class Insert:
    """Blend the masked part of `source` into the image, rescaled by `scale`, with the mask's
    (rescaled) window's top left at `at`; only pixels under the placed mask's support change.
    Poisson blending (`cv2.seamlessClone`) keeps the object's gradients and pulls its colours
    towards the new surroundings: seamless for a move within one photo, but a blue badge
    inserted on a red table turns brown. Without it the object keeps its own colours, blended
    by the mask's feathered alpha: what an object must keep to stay recognisably itself."""

    source: np.ndarray
    at: tuple[int, int]
    scale: float = 1.0
    poisson: bool = True

    def placed(self, mask: Mask) -> Mask:
        """The mask as it lands in the image: its support holds every pixel the insert may change."""
        alpha = mask.alpha
        if self.scale != 1.0:
            size = (max(3, round(alpha.shape[1] * self.scale)), max(3, round(alpha.shape[0] * self.scale)))
            alpha = np.clip(cv2.resize(alpha, size, interpolation=cv2.INTER_LINEAR), 0, 1)
            alpha[alpha < 1e-3] = 0.0  # as in `soft`: the support stays exact
        return Mask((int(self.at[0]), int(self.at[1]), alpha.shape[1], alpha.shape[0]), alpha)

    def __call__(self, pixels: np.ndarray, mask: Mask) -> PixelEdit:
        target = self.placed(mask)
        x, y, w, h = target.window
        height, width = pixels.shape[:2]
        if not (0 < x and x + w < width and 0 < y and y + h < height):
            raise ValueError(f"inserting {mask.window} at {(x, y)} (scale {self.scale:g}) "
                             f"leaves the {width}x{height} image")
        patch = np.ascontiguousarray(mask.under(self.source))
        if (w, h) != (patch.shape[1], patch.shape[0]):
            patch = cv2.resize(patch, (w, h), interpolation=cv2.INTER_AREA if self.scale < 1 else cv2.INTER_CUBIC)
        if not self.poisson:
            return _blend(pixels, target, patch)
        # Poisson blending keeps the gradients inside the clone mask, so it must reach past the
        # object's edges (the feathered support does); it also needs a background border.
        inside = (target.alpha > 0).astype(np.uint8) * 255
        inside[[0, -1], :] = 0
        inside[:, [0, -1]] = 0
        # seamlessClone centres the mask's bounding box, not the patch, on `centre`
        bx, by, bw, bh = cv2.boundingRect(inside)
        centre = (x + bx + bw // 2, y + by + bh // 2)
        cloned = cv2.seamlessClone(patch, np.ascontiguousarray(pixels), inside, centre, cv2.NORMAL_CLONE)
        return _blend(pixels, target, target.under(cloned))


@dataclass(frozen=True)
class Composite:
    """A cut-out of another photo (`source`) laid into the image as if photographed there: its
    colours moved `match` of the way towards the target photo's light (grey-world: each
    channel's gain between the two photos' means, within 1/MAX_GAIN..MAX_GAIN), a soft contact
    shadow darkening the ground under its lower edge by up to `shadow`, then the object blended
    by its feathered mask, keeping its own texture (no Poisson blending: a look is what makes an
    instance). `placed` holds the object and its shadow: every pixel the composite may change."""

    source: np.ndarray
    at: tuple[int, int]
    scale: float = 1.0
    match: float = 0.35
    shadow: float = 0.35

    MAX_GAIN = 1.15

    def _object(self, mask: Mask) -> Mask:
        return Insert(self.source, self.at, self.scale).placed(mask)

    def _shadow(self, obj: Mask) -> Mask:
        """A blurred ellipse tucked under the object's lower edge, in its window grown downwards."""
        x, y, w, h = obj.support()
        reach = max(3, h // 8)
        wx, wy, ww, wh = obj.window
        window = (wx, wy, ww, max(wh, y + h + 2 * reach - wy))
        canvas = np.zeros((window[3], window[2]), np.float32)
        centre = (x - wx + w // 2, y + h - wy - reach)
        cv2.ellipse(canvas, centre, (max(2, int(w * 0.42)), reach), 0, 0, 360, 1.0, thickness=cv2.FILLED)
        return soft(canvas, window, reach / 2)

    def placed(self, mask: Mask) -> Mask:
        obj = self._object(mask)
        shade = self._shadow(obj)
        alpha = shade.alpha.copy()
        top = alpha[: obj.alpha.shape[0], : obj.alpha.shape[1]]
        top[...] = np.maximum(top, obj.alpha)
        return Mask(shade.window, alpha)

    def gain(self, pixels: np.ndarray) -> np.ndarray:
        """Per-channel gain from the source photo's light to the target's (grey-world), `match` of the way."""
        source, target = (p[::8, ::8].reshape(-1, 3).astype(np.float64).mean(axis=0) + 1
                          for p in (self.source, pixels))
        return np.clip((target / source) ** self.match, 1 / self.MAX_GAIN, self.MAX_GAIN).astype(np.float32)

    def __call__(self, pixels: np.ndarray, mask: Mask) -> PixelEdit:
        obj = self._object(mask)
        shade = self._shadow(obj)
        x, y, w, h = shade.window
        height, width = pixels.shape[:2]
        if not (0 < x and x + w < width and 0 < y and y + h < height):
            raise ValueError(f"compositing {mask.window} at {(x, y)} (scale {self.scale:g}) "
                             f"leaves the {width}x{height} image")
        out = pixels.copy()
        region = shade.under(out)
        darker = region.astype(np.float32) * (1 - self.shadow * shade.alpha[..., None])
        region[...] = np.where(shade.alpha[..., None] > 0, np.clip(np.rint(darker), 0, 255), region).astype(np.uint8)
        patch = np.ascontiguousarray(mask.under(self.source))
        ow, oh = obj.window[2:]
        if (ow, oh) != (patch.shape[1], patch.shape[0]):
            patch = cv2.resize(patch, (ow, oh), interpolation=cv2.INTER_AREA if self.scale < 1 else cv2.INTER_CUBIC)
        lit = np.clip(patch.astype(np.float32) * self.gain(pixels), 0, 255)
        blended = _blend(out, obj, lit).pixels
        return PixelEdit(blended, changed_box(pixels, blended, shade.window))


@dataclass(frozen=True)
class Paste:
    """Insert the masked part of `source` with the mask's window moved by (dx, dy)."""

    source: np.ndarray
    dx: int
    dy: int
    poisson: bool = True

    def __call__(self, pixels: np.ndarray, mask: Mask) -> PixelEdit:
        return Insert(self.source, (mask.window[0] + self.dx, mask.window[1] + self.dy),
                      poisson=self.poisson)(pixels, mask)


@dataclass(frozen=True)
class Move:
    """Remove the object (inpaint its dilated mask) and paste it again (dx, dy) pixels away:
    Poisson-blended for a mask guessed by GrabCut (its edges carry some ground), by the feathered
    mask alone (`poisson=False`) for a true segmentation, whose object keeps its colours."""

    dx: int
    dy: int
    remove: Remove = Remove()
    poisson: bool = True

    def __call__(self, pixels: np.ndarray, mask: Mask) -> PixelEdit:
        removed = self.remove(pixels, mask)
        pasted = Paste(pixels, self.dx, self.dy, self.poisson)(removed.pixels, mask)
        touched = [box for box in (removed.changed, pasted.changed) if box is not None]
        return PixelEdit(pasted.pixels, changed_box(pixels, pasted.pixels, bounding(touched)) if touched else None)


@dataclass(frozen=True)
class Trace:
    """A visual trace by feathered multiply blending: the image under the mask is multiplied
    by `colour` (RGB in [0, 1]) at `strength` times the mask's alpha. Masks come from
    `pattern_mask` with `crack_pattern` or `stain_pattern`."""

    colour: tuple[float, float, float] = (0.35, 0.27, 0.22)
    strength: float = 0.85

    def __call__(self, pixels: np.ndarray, mask: Mask) -> PixelEdit:
        weaker = Mask(mask.window, mask.alpha * self.strength)
        multiplied = mask.under(pixels).astype(np.float32) * np.asarray(self.colour, np.float32)
        return _blend(pixels, weaker, multiplied)


def crack_pattern(rng: np.random.Generator, height: int, width: int, branches: int = 3,
                  thickness: int = 2) -> np.ndarray:
    """A random crack: a few jagged polylines from the centre outwards."""
    canvas = np.zeros((height, width), np.float32)
    for _ in range(branches):
        point = np.array([width / 2, height / 2])
        angle = rng.uniform(0, 2 * math.pi)
        for _ in range(8):
            angle += rng.normal(0, 0.5)
            step = min(height, width) / 10
            nxt = point + step * np.array([math.cos(angle), math.sin(angle)])
            cv2.line(canvas, tuple(int(v) for v in point), tuple(int(v) for v in nxt), 1.0, thickness)
            point = nxt
    return canvas


def stain_pattern(rng: np.random.Generator, height: int, width: int, blobs: int = 5) -> np.ndarray:
    """A random stain: overlapping ellipses, strongest in the middle."""
    canvas = np.zeros((height, width), np.float32)
    for _ in range(blobs):
        centre = (int(rng.uniform(0.3, 0.7) * width), int(rng.uniform(0.3, 0.7) * height))
        axes = (int(rng.uniform(0.15, 0.3) * width), int(rng.uniform(0.15, 0.3) * height))
        cv2.ellipse(canvas, centre, axes, float(rng.uniform(0, 180)), 0, 360, 1.0, thickness=cv2.FILLED)
    return canvas
