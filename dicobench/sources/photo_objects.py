"""What both photo tracks share: loading a row's photos and the size of an editable object."""

from __future__ import annotations

from benchkit.photos.sources import Photo, PhotoSkipped, PhotoSource
from dicobench.checks import Skipped

MIN_OBJECT_PIXELS = 400  # smaller regions cannot show MIN_VISIBLE_PIXELS clearly changed pixels
MAX_OBJECT_AREA = 0.01  # the edit's window, about twice the object's size, stays under the 5% bound


def load_photo(source: PhotoSource, index: int) -> Photo:
    """The photo, or the rejection that lets the build count it as skipped and draw again."""
    try:
        return source.load(index)
    except PhotoSkipped as exc:
        raise Skipped(exc.reason, str(exc)) from None
