"""What both photo tracks share: loading a row's photos, the size of an editable object, its
mask (the source's segmentation where it has one, else GrabCut inside the box) and names."""

from __future__ import annotations

import numpy as np

from dicobench.checks import Skipped
from dicobench.editors.photo.classical import Mask, feather_kernel, grow, object_mask, soft
from dicobench.kit.photos.model import Photo, PhotoObject, PhotoSkipped
from dicobench.kit.photos.sources import PhotoSource

MIN_OBJECT_PIXELS = 400  # smaller regions cannot show MIN_VISIBLE_PIXELS clearly changed pixels
MAX_OBJECT_AREA = 0.01  # the edit's window, about twice the object's size, stays under the 5% bound
FEATHER = 1.5  # sigma of every object mask's soft edge


def load_photo(source: PhotoSource, index: int) -> Photo:
    """The photo, or the rejection that lets the build count it as skipped and draw again."""
    try:
        return source.load(index)
    except PhotoSkipped as exc:
        raise Skipped(exc.reason, str(exc)) from None


def normalised(name: str | None) -> str:
    return (name or "").strip().lower()


def region_mask(pixels: np.ndarray, obj: PhotoObject, feather: float = FEATHER) -> Mask:
    """The object's soft mask: its segmentation feathered (the window holds the feather's whole
    reach), or, for a box alone, GrabCut's segmentation inside the box."""
    if obj.mask is None:
        return object_mask(pixels, obj.box, feather)
    h, w = pixels.shape[:2]
    window = grow(obj.box, feather_kernel(feather), w, h)
    values = np.zeros((window[3], window[2]), np.float32)
    x, y = obj.box[0] - window[0], obj.box[1] - window[1]
    values[y : y + obj.box[3], x : x + obj.box[2]] = obj.mask
    return soft(values, window, feather)
