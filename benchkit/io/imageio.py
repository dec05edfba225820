"""Lossless image encoding and guarded decoding."""

from __future__ import annotations

import io

import numpy as np
from PIL import Image

from benchkit.cli.errors import UserError

MAX_PIXELS = 64_000_000  # refuse decompression bombs well before memory runs out


def encode_png(pixels: np.ndarray, compress_level: int = 1) -> bytes:
    buf = io.BytesIO()
    Image.fromarray(pixels).save(buf, format="PNG", compress_level=compress_level)
    return buf.getvalue()


def decode(data: bytes, what: str = "image") -> np.ndarray:
    """RGB pixels of an encoded image; a clear UserError for corrupt, truncated or huge input."""
    try:
        with Image.open(io.BytesIO(data)) as img:
            if img.width * img.height > MAX_PIXELS:
                raise UserError(f"{what}: {img.width}x{img.height} is larger than {MAX_PIXELS} pixels")
            return np.asarray(img.convert("RGB"))
    except UserError:
        raise
    except Exception as exc:  # PIL raises many types for bad files
        raise UserError(f"{what}: cannot decode ({type(exc).__name__}: {exc})") from None
