"""Dataset images opened without decoding, remembering the bytes they came from.

An API runner can then send a row's PNG exactly as stored (base64 of the file, no decode and
no re-encode, so lossless by construction and cheap), while a local model or a crop view that
touches pixels decodes them on first use, in whatever thread does so.
"""

from __future__ import annotations

import io

from PIL import Image

_SOURCE = "_dicobench_source"  # attribute holding (format, bytes) on an image opened here


def open_image(cell: dict) -> Image.Image:
    """A `datasets` image cell (`{"bytes", "path"}`, read with `decode=False`) opened lazily."""
    data = cell.get("bytes")
    if data is None:
        with open(cell["path"], "rb") as f:
            data = f.read()
    image = Image.open(io.BytesIO(data))
    setattr(image, _SOURCE, (image.format, data))
    return image


def source_bytes(image: Image.Image, fmt: str = "PNG") -> bytes | None:
    """The encoded file `image` was opened from when it is in `fmt`, else None. Derived images
    (crops, resizes, copies) are new objects without it; images are never changed in place."""
    source = getattr(image, _SOURCE, None)
    return source[1] if source is not None and source[0] == fmt else None
