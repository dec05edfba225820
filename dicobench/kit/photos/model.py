"""Photos as every source gives them: a `Photo` (upright sRGB pixels, its id) and its
`PhotoObject`s (xywh boxes in the photo's pixels, optional masks cropped to the box), the size
policy that refuses or upscales small photos, and `PhotoSkipped` for a photo that cannot be used."""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np
from PIL import Image

from dicobench.kit.scene.geometry import Box, clipped

PHOTO_SUFFIXES = (".jpg", ".jpeg", ".png", ".webp", ".bmp", ".tif", ".tiff")


@dataclass(frozen=True)
class PhotoObject:
    box: Box  # x, y, w, h in pixels
    name: str | None = None  # None for a region proposal: nothing is known about what it shows
    # the object's pixels within `box` (bool, box-sized), where the source segments them
    mask: np.ndarray | None = field(default=None, compare=False, repr=False)
    # False for what names a place but must never be edited or cut out: a crowd region, an
    # object too large for a micro edit. Its name still counts as present in the photo.
    editable: bool = True


@dataclass(frozen=True)
class Photo:
    id: str  # the row's `source`, e.g. "folder:kitchen.jpg", "vstar:sa_4690"
    pixels: np.ndarray  # HxWx3 uint8 RGB
    objects: tuple[PhotoObject, ...] = ()


@dataclass(frozen=True)
class SizePolicy:
    """Photos with a long side under `min_long_side` are refused, or upscaled to it when asked."""

    min_long_side: int = 1024
    upscale: bool = False


class PhotoSkipped(Exception):
    def __init__(self, reason: str, message: str):
        super().__init__(message)
        self.reason = reason  # "unreadable" or "too_small"


def apply_size_policy(photo: Photo, policy: SizePolicy) -> Photo:
    h, w = photo.pixels.shape[:2]
    long_side = max(h, w)
    if long_side >= policy.min_long_side:
        return photo
    if not policy.upscale:
        raise PhotoSkipped("too_small", f"{photo.id}: {w}x{h} is smaller than {policy.min_long_side} px on the "
                           "long side (ask for upscaling to use it)")
    scale = policy.min_long_side / long_side
    size = (round(w * scale), round(h * scale))
    pixels = np.asarray(Image.fromarray(photo.pixels).resize(size, Image.Resampling.LANCZOS))
    objects = tuple(_rescaled(o, scale) for o in photo.objects)
    return replace(photo, pixels=pixels, objects=objects)


def _rescaled(obj: PhotoObject, scale: float) -> PhotoObject:
    box = tuple(round(v * scale) for v in obj.box)
    if obj.mask is None:
        return replace(obj, box=box)
    size = (max(box[2], 1), max(box[3], 1))
    mask = np.asarray(Image.fromarray(obj.mask.astype(np.uint8) * 255).resize(size, Image.Resampling.BILINEAR)) >= 128
    return replace(obj, box=(box[0], box[1], *size), mask=mask)


def clip_object(obj: PhotoObject, w: int, h: int) -> PhotoObject | None:
    """`obj` cut to the image (its mask with it), or None when nothing of it is inside."""
    x, y, bw, bh = (int(round(v)) for v in obj.box)
    inside = clipped((x, y, bw, bh), w, h)
    if inside is None:
        return None
    x0, y0, cw, ch = inside
    mask = None if obj.mask is None else obj.mask[y0 - y : y0 - y + ch, x0 - x : x0 - x + cw]
    return replace(obj, box=inside, mask=mask)
