"""Lossless image encoding and guarded decoding."""

from __future__ import annotations

import io
import struct

import numpy as np
from PIL import Image
from zlib_ng import zlib_ng

from dicobench.kit.errors import UserError

MAX_PIXELS = 64_000_000  # refuse decompression bombs well before memory runs out
WRITERS = ("pillow", "sub-up")  # see encode_png
BAND = 256  # rows filtered at a time: the filters' scratch arrays stay small for an 8K image
IDAT_SIZE = 1 << 20  # bytes per IDAT chunk
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def encode_png(pixels: np.ndarray, compress_level: int = 1, writer: str = "pillow") -> bytes:
    """PNG bytes of `pixels` at `compress_level`, written by Pillow (zlib, the filter of each row
    chosen among all five) or, for an 8-bit RGB image, by `sub_up_png` (`writer="sub-up"`): on
    `hard`'s grainy 2K renders at level 5 and `extreme`'s 4K ones at level 6 smaller than Pillow's
    level 6 in a fraction of its time, and at level 1 on `easy`'s clean ones 16% smaller than
    Pillow's level 1 (benchmarks/bench_png.py)."""
    if writer not in WRITERS:
        raise ValueError(f"unknown PNG writer {writer!r}; expected one of {', '.join(WRITERS)}")
    if writer == "sub-up" and pixels.dtype == np.uint8 and pixels.ndim == 3 and pixels.shape[2] == 3:
        return sub_up_png(pixels, compress_level)
    buf = io.BytesIO()
    Image.fromarray(pixels).save(buf, format="PNG", compress_level=compress_level)
    return buf.getvalue()


def sub_up_png(pixels: np.ndarray, level: int) -> bytes:
    """Each row Sub- or Up-filtered, whichever costs less by PNG's usual rule, deflated by
    zlib-ng at `level`. Pillow tries every filter per row (on grainy renders mostly picking
    Paeth): there the two cheap filters compress as well under deflate. The bytes hold for one
    zlib-ng version: its generic C build and its AVX-512 build wrote the same bytes on `hard`
    renders at levels 1-6. On those renders its level 5 writes 1% fewer bytes than libdeflate's
    level 6, which this writer used before, in 74% of its time."""
    h, w, _ = pixels.shape
    rows = pixels.reshape(h, w * 3)
    filtered = np.empty((h, w * 3 + 1), np.uint8)
    for top in range(0, h, BAND):
        band = rows[top : top + BAND]
        out = filtered[top : top + len(band)]
        sub = out[:, 1:]  # Sub-filtered in place, Up-filtered rows copied over it where they cost less
        sub[:, :3] = band[:, :3]
        np.subtract(band[:, 3:], band[:, :-3], out=sub[:, 3:])
        up = np.empty_like(band)
        if top:
            np.subtract(band, rows[top - 1 : top - 1 + len(band)], out=up)
        else:
            up[0] = band[0]
            np.subtract(band[1:], band[:-1], out=up[1:])
        use_up = _cost(up) < _cost(sub)
        sub[use_up] = up[use_up]
        out[:, 0] = np.where(use_up, 2, 1)
    stream = zlib_ng.compress(filtered.data, level)
    del filtered
    header = struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)  # 8-bit RGB, no interlace
    parts = [PNG_SIGNATURE, _chunk(b"IHDR", header)]
    parts += [_chunk(b"IDAT", stream[i : i + IDAT_SIZE]) for i in range(0, len(stream), IDAT_SIZE)]
    parts.append(_chunk(b"IEND", b""))
    return b"".join(parts)


def _cost(filtered: np.ndarray) -> np.ndarray:
    """PNG's filter heuristic, per row: the sum of each byte's distance from zero as a signed
    byte (|-128| wraps to 128 read back as unsigned, exactly that distance)."""
    return np.abs(filtered.view(np.int8)).view(np.uint8).sum(axis=1, dtype=np.uint32)


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib_ng.crc32(data, zlib_ng.crc32(kind)))


def decode(data: bytes, what: str = "image") -> np.ndarray:
    """RGB pixels of an encoded image; a clear UserError for corrupt, truncated or huge input."""
    return _pixels(_opened(data, what))


def decodes_to(data: bytes, pixels: np.ndarray, what: str = "image") -> bool:
    """Whether `data` decodes to exactly `pixels` (HxWx3 uint8). A plain 8-bit RGB PNG (IHDR,
    IDAT, IEND, as both writers write it) whose rows are filtered with None, Sub or Up (as
    `sub_up_png` writes them) is checked without undoing its filters: its stream is inflated, each
    row of `pixels` filtered as the stream says and compared with it. That holds exactly when the
    stream decodes to `pixels`, row by row from the top (a row is undone from the row above, already
    equal, and from its own bytes to the left), in about a quarter of the time Pillow takes to
    decode. Anything else is decoded by Pillow and compared as bytes."""
    stream = _plain_rgb_stream(data, pixels.shape)
    if stream is not None:
        return _filters_match(stream, np.ascontiguousarray(pixels).reshape(len(pixels), -1))
    img = _opened(data, what)
    return img.size == (pixels.shape[1], pixels.shape[0]) and img.tobytes() == pixels.tobytes()


def _plain_rgb_stream(data: bytes, shape: tuple) -> np.ndarray | None:
    """The inflated rows (filter byte first) of a PNG of `shape` that is nothing but an 8-bit RGB
    IHDR, IDAT chunks and IEND, every checksum right, each row filtered with None, Sub or Up;
    None for anything else (Pillow decides)."""
    if len(shape) != 3 or shape[2] != 3 or not data.startswith(PNG_SIGNATURE):
        return None
    h, w = shape[:2]
    view, pos, kinds, idat = memoryview(data), len(PNG_SIGNATURE), [], []
    while pos + 12 <= len(data):
        n = int.from_bytes(view[pos : pos + 4], "big")
        kind, body, end = bytes(view[pos + 4 : pos + 8]), view[pos + 8 : pos + 8 + n], pos + 12 + n
        if end > len(data) or zlib_ng.crc32(body, zlib_ng.crc32(kind)) != int.from_bytes(view[end - 4 : end], "big"):
            return None
        kinds.append(kind)
        idat += [body] if kind == b"IDAT" else []
        pos = end
    header = struct.pack(">I4sIIBBBBB", 13, b"IHDR", w, h, 8, 2, 0, 0, 0)  # 8-bit RGB, not interlaced
    if pos != len(data) or view[8:29] != header or kinds[-1:] != [b"IEND"] or set(kinds[1:-1]) != {b"IDAT"}:
        return None
    size = h * (3 * w + 1)
    inflate = zlib_ng.decompressobj()
    try:
        stream = inflate.decompress(b"".join(idat), size + 1)  # at most one byte more than the rows hold
    except zlib_ng.error:
        return None
    if len(stream) != size or not inflate.eof or inflate.unused_data:
        return None
    rows = np.frombuffer(stream, np.uint8).reshape(h, 3 * w + 1)
    return rows if rows[:, 0].max() <= 2 else None  # Average and Paeth rows: Pillow undoes them faster


def _filters_match(stream: np.ndarray, rows: np.ndarray) -> bool:
    """Whether filtering each of `rows` (H x 3W bytes) as `stream` says gives `stream`'s bytes:
    a band's rows are Up-filtered (each minus the row above) in one pass, the Sub rows (each
    byte minus the one 3 back, the pixel to the left) and None rows (as they are) put in place of
    theirs, and the band compared with the stream's."""
    kinds = stream[:, 0]
    for top in range(0, len(rows), BAND):
        x, raw, kind = rows[top : top + BAND], stream[top : top + BAND, 1:], kinds[top : top + BAND]
        expected = np.empty_like(x)
        if top:
            np.subtract(x, rows[top - 1 : top - 1 + len(x)], out=expected)
        else:  # above the first row: zeros
            expected[0] = x[0]
            np.subtract(x[1:], x[:-1], out=expected[1:])
        sub = np.flatnonzero(kind == 1)
        if len(sub):
            pixels = x[sub]
            filtered = np.empty_like(pixels)
            filtered[:, :3] = pixels[:, :3]
            np.subtract(pixels[:, 3:], pixels[:, :-3], out=filtered[:, 3:])
            expected[sub] = filtered
        plain = np.flatnonzero(kind == 0)
        expected[plain] = x[plain]
        if not np.array_equal(expected, raw):
            return False
    return True


def _opened(data: bytes, what: str) -> Image.Image:
    """The decoded RGB image, loaded; a clear UserError for corrupt, truncated or huge input."""
    try:
        img = Image.open(io.BytesIO(data))
        if img.width * img.height > MAX_PIXELS:
            raise UserError(f"{what}: {img.width}x{img.height} is larger than {MAX_PIXELS} pixels")
        img.load()
        return img if img.mode == "RGB" else img.convert("RGB")
    except UserError:
        raise
    except Exception as exc:  # PIL raises many types for bad files
        raise UserError(f"{what}: cannot decode ({type(exc).__name__}: {exc})") from None


def _pixels(img: Image.Image) -> np.ndarray:
    """An RGB image's pixels, read-only. Pillow keeps RGB as four bytes a pixel; where the image
    lies in one block of memory (up to about 2K with Pillow's default block size) its Arrow
    export is viewed without a copy, a third of the time `np.asarray`'s copies take on a 2K image."""
    if hasattr(img, "__arrow_c_array__"):  # Pillow 11.2+
        import pyarrow as pa

        try:
            rgbx = pa.array(img).flatten().to_numpy(zero_copy_only=True)
        except ValueError:  # rows in several blocks: a larger image
            pass
        else:
            return rgbx.reshape(img.height, img.width, 4)[..., :3]
    return np.asarray(img)
