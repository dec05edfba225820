"""Photos as cameras and editors write them, decoded to the 8-bit sRGB pixels a viewer shows.

A phone stores a portrait shot sideways with an EXIF orientation tag; a print workflow stores
CMYK; scanners and raw converters write 16-bit samples; editors embed ICC profiles of wider
gamuts; graphics come as palettes with transparency. Read naively (`convert("RGB")`) these give
sideways pixels whose annotation boxes no longer match, wrong colours, white 16-bit images and
black transparent areas. Here the orientation is applied (so boxes are read in the displayed
frame, as viewers and `datasets` show the photo), embedded profiles are converted to sRGB,
16-bit samples are scaled to 8 bits, and transparency is composited over white.
"""

from __future__ import annotations

import io

import numpy as np
from PIL import Image, ImageCms, ImageOps

from dicobench.kit.errors import UserError
from dicobench.kit.io.imageio import MAX_PIXELS

BACKGROUND = (255, 255, 255)  # what transparent areas are shown on
SRGB = ImageCms.ImageCmsProfile(ImageCms.createProfile("sRGB"))
WIDE_MODES = ("I;16", "I;16B", "I;16L", "I;16N", "I")  # 16-bit (and 32-bit int) greyscale


def decode_photo(data: bytes, what: str = "photo") -> np.ndarray:
    """HxWx3 uint8 sRGB pixels of an encoded photo, upright; a UserError for bad input."""
    try:
        with Image.open(io.BytesIO(data)) as img:
            if img.width * img.height > MAX_PIXELS:
                raise UserError(f"{what}: {img.width}x{img.height} is larger than {MAX_PIXELS} pixels")
            upright = ImageOps.exif_transpose(img)
            return np.asarray(to_srgb(upright, img.info.get("icc_profile")))
    except UserError:
        raise
    except Exception as exc:  # PIL raises many types for bad files
        raise UserError(f"{what}: cannot decode ({type(exc).__name__}: {exc})") from None


def to_srgb(img: Image.Image, icc: bytes | None = None) -> Image.Image:
    """`img` as 8-bit RGB in sRGB: wide samples scaled, the embedded profile `icc` converted,
    transparency composited over white."""
    if img.mode in WIDE_MODES or img.mode == "F":
        img = _to_8bit(img)
    if img.mode == "P" or "transparency" in img.info:
        img = img.convert("RGBA")
    alpha = img.getchannel("A") if "A" in img.getbands() else None
    colour = img.convert("L" if img.mode in ("L", "LA") else "CMYK" if img.mode == "CMYK" else "RGB")
    if icc:
        colour = ImageCms.profileToProfile(colour, ImageCms.ImageCmsProfile(io.BytesIO(icc)), SRGB, outputMode="RGB")
    colour = colour.convert("RGB")
    if alpha is None:
        return colour
    background = Image.new("RGB", colour.size, BACKGROUND)
    return Image.composite(colour, background, alpha)


def _to_8bit(img: Image.Image) -> Image.Image:
    """Greyscale of more than 8 bits, scaled to 0-255 by the range its mode can hold."""
    values = np.asarray(img, dtype=np.float64)
    top = 1.0 if img.mode == "F" else 65535.0
    return Image.fromarray(np.clip(np.round(values / top * 255), 0, 255).astype(np.uint8), "L")
