"""PNG encoding: every writer and level decodes to the same pixels; `sub-up` filters rows with Sub or Up."""

import io
import zlib

import numpy as np
import pytest
from PIL import Image

from dicobench.kit.errors import UserError
from dicobench.kit.io.imageio import BAND, IDAT_SIZE, WRITERS, decode, decodes_to, encode_png


def grainy(h: int, w: int, seed: int = 0) -> np.ndarray:
    """A flat surface with grain and a few flat rows, like a render (and rows the Up filter wins)."""
    rng = np.random.default_rng(seed)
    pixels = np.clip(120 + rng.normal(0, 6, (h, w, 3)), 0, 255).astype(np.uint8)
    pixels[h // 3 : h // 3 + 5] = (30, 200, 90)
    return pixels


def chunks(png: bytes) -> list[tuple[bytes, bytes]]:
    out, pos = [], 8
    while pos < len(png):
        n = int.from_bytes(png[pos : pos + 4], "big")
        kind, data = png[pos + 4 : pos + 8], png[pos + 8 : pos + 8 + n]
        assert int.from_bytes(png[pos + 8 + n : pos + 12 + n], "big") == zlib.crc32(kind + data)
        out.append((kind, data))
        pos += 12 + n
    return out


@pytest.mark.parametrize("shape", [(1, 1), (2, 3), (BAND + 3, 17), (2 * BAND, 640)])
@pytest.mark.parametrize("level", [0, 1, 6, 9])
@pytest.mark.parametrize("writer", WRITERS)
def test_every_writer_and_level_decodes_to_the_same_pixels(shape, level, writer):
    pixels = grainy(*shape)
    png = encode_png(pixels, level, writer)
    assert np.array_equal(decode(png), pixels)
    with Image.open(io.BytesIO(png)) as img:
        img.verify()


def test_sub_up_filters_each_row_with_sub_or_up_and_uses_both():
    pixels = grainy(BAND + 40, 300)
    png = encode_png(pixels, 6, "sub-up")
    found = chunks(png)
    assert [k for k, _ in found][:1] == [b"IHDR"] and found[-1] == (b"IEND", b"")
    stream = zlib.decompress(b"".join(d for k, d in found if k == b"IDAT"))
    filters = np.frombuffer(stream, np.uint8).reshape(len(pixels), -1)[:, 0]
    assert set(filters) == {1, 2}  # flat rows go Up, grainy rows go Sub
    assert filters[len(pixels) // 3 + 1] == 2


def test_large_streams_are_split_into_idat_chunks():
    pixels = np.random.default_rng(1).integers(0, 256, (1024, 1024, 3), dtype=np.uint8)  # incompressible: ~3 MiB
    png = encode_png(pixels, 6, "sub-up")
    idat = [d for k, d in chunks(png) if k == b"IDAT"]
    assert len(idat) > 1 and all(len(d) == IDAT_SIZE for d in idat[:-1])
    assert np.array_equal(decode(png), pixels)


def test_pillow_writes_what_pillow_writes_and_sub_up_leaves_grey_images_to_it():
    pixels = grainy(50, 60)
    buf = io.BytesIO()
    Image.fromarray(pixels).save(buf, format="PNG", compress_level=3)
    assert encode_png(pixels, 3) == buf.getvalue()
    grey = pixels[..., 0]
    assert encode_png(grey, 6, "sub-up") == encode_png(grey, 6)


def test_unknown_writer_is_refused():
    with pytest.raises(ValueError, match="unknown PNG writer"):
        encode_png(grainy(4, 4), 6, "fast")


def test_sub_up_chooses_each_filter_by_pngs_rule():
    # the rule written out byte by byte: a filtered byte costs its distance from zero as a signed byte
    pixels = grainy(BAND + 9, 41, seed=3)
    pixels[5:9] = np.random.default_rng(4).integers(0, 256, (4, 41, 3), dtype=np.uint8)  # costs near 128 a byte
    rows = pixels.reshape(len(pixels), -1).astype(np.int64)
    sub = (rows - np.pad(rows, ((0, 0), (3, 0)))[:, :-3]) % 256
    up = (rows - np.pad(rows, ((1, 0), (0, 0)))[:-1]) % 256
    cost = lambda f: np.minimum(f, 256 - f).sum(axis=1)  # noqa: E731
    expected = np.where(cost(up) < cost(sub), 2, 1)
    found = chunks(encode_png(pixels, 6, "sub-up"))
    stream = np.frombuffer(zlib.decompress(b"".join(d for k, d in found if k == b"IDAT")),
                           np.uint8).reshape(len(pixels), -1)
    assert np.array_equal(stream[:, 0], expected) and set(expected) == {1, 2}
    assert np.array_equal(stream[:, 1:], np.where(expected[:, None] == 2, up, sub))


@pytest.mark.parametrize("shape", [(1536, 2048), (3000, 4000)])  # one block of Pillow's memory, then several
def test_decode_gives_the_pixels_read_only_at_any_size(shape):
    pixels = grainy(*shape)
    decoded = decode(encode_png(pixels, 0))
    assert decoded.shape == pixels.shape and np.array_equal(decoded, pixels) and not decoded.flags.writeable
    grey = decode(encode_png(pixels[..., 1], 0))
    assert np.array_equal(grey, np.repeat(pixels[..., 1:2], 3, axis=2))


def test_decodes_to_is_true_only_for_the_very_pixels():
    pixels = np.random.default_rng(3).integers(0, 256, (67, 91, 3), dtype=np.uint8)
    png = encode_png(pixels, 6, "sub-up")
    assert decodes_to(png, pixels) and decodes_to(png, pixels[:, ::-1][:, ::-1])  # a strided view of the same pixels
    off_by_one = pixels.copy()
    off_by_one[40, 17, 2] ^= 1
    assert not decodes_to(png, off_by_one)
    assert not decodes_to(png, pixels[:-1]) and not decodes_to(png, pixels.transpose(1, 0, 2))
    with pytest.raises(UserError, match="shot: cannot decode"):
        decodes_to(png[: len(png) // 2], pixels, "shot")


def png_filtered_with(pixels: np.ndarray, kinds: list[int]) -> bytes:
    """A PNG whose row i is filtered with kinds[i] (0-4), written out from PNG's definitions."""
    h, w, _ = pixels.shape
    x = pixels.reshape(h, -1).astype(np.int64)
    above = np.vstack([np.zeros_like(x[:1]), x[:-1]])
    left, corner = (np.pad(v, ((0, 0), (3, 0)))[:, :-3] for v in (x, above))
    p = left + above - corner
    paeth = np.where((abs(p - left) <= abs(p - above)) & (abs(p - left) <= abs(p - corner)), left,
                     np.where(abs(p - above) <= abs(p - corner), above, corner))
    predicted = [0 * x, left, above, (left + above) // 2, paeth]
    rows = [bytes([k]) + ((x[i] - predicted[k][i]) % 256).astype(np.uint8).tobytes() for i, k in enumerate(kinds)]
    header = w.to_bytes(4, "big") + h.to_bytes(4, "big") + bytes([8, 2, 0, 0, 0])
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(b"".join(rows)))
            + chunk(b"IEND", b""))


@pytest.mark.parametrize("kinds", [[0], [1], [2], [3], [4], [0, 1, 2], [1, 2, 3, 4, 0]])
def test_decodes_to_agrees_with_pillow_for_every_filter(kinds):
    rng = np.random.default_rng(len(kinds) * 10 + kinds[0])
    pixels = grainy(BAND + 30, 23, seed=kinds[0])
    png = png_filtered_with(pixels, [kinds[i % len(kinds)] for i in range(len(pixels))])
    assert np.array_equal(np.asarray(Image.open(io.BytesIO(png)).convert("RGB")), pixels)  # the writer above is right
    assert decodes_to(png, pixels)
    for _ in range(30):  # any one byte off, at any row or filter, is found
        wrong = pixels.copy()
        wrong[tuple(int(rng.integers(n)) for n in wrong.shape)] ^= np.uint8(1 << int(rng.integers(8)))
        assert not decodes_to(png, wrong)


def pillow_verdict(png: bytes, pixels: np.ndarray):
    """What decoding with Pillow says: the same pixels or not, or that it cannot decode."""
    try:
        with Image.open(io.BytesIO(png)) as img:
            return np.array_equal(np.asarray(img.convert("RGB")), pixels)
    except Exception:
        return "cannot decode"


def chunk(kind: bytes, data: bytes) -> bytes:
    return len(data).to_bytes(4, "big") + kind + data + zlib.crc32(kind + data).to_bytes(4, "big")


def test_decodes_to_agrees_with_pillow_on_damaged_and_unusual_files():
    pixels = grainy(40, 30)
    png = encode_png(pixels, 6, "sub-up")
    _, (_, idat), _ = chunks(png)
    stream = zlib.decompress(idat)
    at = png.index(b"IDAT") + 20
    variants = {
        "as written": png,
        "a byte of the stream flipped": png[:at] + bytes([png[at] ^ 4]) + png[at + 1 :],
        "truncated": png[: len(png) // 2],
        "no IEND": png[:-12],
        "a text chunk": png[:-12] + chunk(b"tEXt", b"k\x00v") + png[-12:],
        "rows to spare": png[:33] + chunk(b"IDAT", zlib.compress(stream + stream[: 91])) + png[-12:],
        "a row short": png[:33] + chunk(b"IDAT", zlib.compress(stream[:-91])) + png[-12:],
        "an unknown filter": png[:33] + chunk(b"IDAT", zlib.compress(b"\x07" + stream[1:])) + png[-12:],
        "two IDAT chunks": png[:33] + chunk(b"IDAT", idat[:100]) + chunk(b"IDAT", idat[100:]) + png[-12:],
    }
    for name, data in variants.items():
        for expected in (pixels, grainy(40, 30, seed=1), pixels[:, :-1]):
            verdict = pillow_verdict(data, expected)
            if verdict == "cannot decode":
                with pytest.raises(UserError, match="cannot decode"):
                    decodes_to(data, expected)
            else:
                assert decodes_to(data, expected) is verdict, name
