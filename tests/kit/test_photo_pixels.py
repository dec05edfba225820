"""Photos as cameras write them: EXIF orientation applied (annotations in the displayed frame),
CMYK, 16-bit, palette and alpha images, embedded ICC profiles converted to sRGB, and the
ImageFolder `metadata.jsonl` layout in `folder:` sources."""

import io
import json
import struct

import numpy as np
import pytest
from PIL import Image

from dicobench.kit.errors import UserError
from dicobench.kit.photos.model import SizePolicy
from dicobench.kit.photos.pixels import decode_photo
from dicobench.kit.photos.sources import FolderSource

RED, BLUE, GREY = (220, 30, 30), (30, 30, 220), (128, 128, 128)
BOX = (10, 60, 40, 30)  # x, y, w, h of the red block, in the displayed (upright) frame


def displayed() -> np.ndarray:
    """A 160x120 upright scene: grey, a red block at BOX, a blue band along the top."""
    pixels = np.full((120, 160, 3), GREY, np.uint8)
    x, y, w, h = BOX
    pixels[y:y + h, x:x + w] = RED
    pixels[:15] = BLUE
    return pixels


# EXIF 0x0112: how the stored pixels must be turned to be shown (TIFF/EXIF specification);
# here the stored array is made from the upright one by the inverse turn.
STORED = {
    1: lambda d: d,
    2: lambda d: d[:, ::-1],  # shown mirrored left-right
    3: lambda d: d[::-1, ::-1],  # shown rotated 180
    4: lambda d: d[::-1],  # shown mirrored top-bottom
    5: lambda d: d.transpose(1, 0, 2),  # shown transposed (mirror + rotate 270 CW)
    6: lambda d: np.rot90(d, 1),  # shown rotated 90 CW: stored turned 90 CCW
    7: lambda d: np.rot90(d, 2).transpose(1, 0, 2),  # shown transversed
    8: lambda d: np.rot90(d, -1),  # shown rotated 90 CCW: stored turned 90 CW
}


def jpeg(pixels: np.ndarray, orientation: int) -> bytes:
    image = Image.fromarray(np.ascontiguousarray(pixels))
    exif = Image.Exif()
    exif[0x0112] = orientation
    buf = io.BytesIO()
    image.save(buf, format="JPEG", quality=95, exif=exif.tobytes())
    return buf.getvalue()


def close(pixels, colour, tol=12) -> bool:
    return bool(np.abs(pixels.reshape(-1, 3).mean(axis=0) - colour).max() < tol)


@pytest.mark.parametrize("orientation", range(1, 9))
def test_exif_orientation_is_applied_and_boxes_read_upright(orientation, tmp_path):
    (tmp_path / "phone.jpg").write_bytes(jpeg(STORED[orientation](displayed()), orientation))
    (tmp_path / "annotations.jsonl").write_text(json.dumps({"file": "phone.jpg",
                                                            "objects": [{"name": "red tile", "box": list(BOX)}]}))
    photo = FolderSource(tmp_path, SizePolicy(min_long_side=100)).load(0)
    assert photo.pixels.shape == (120, 160, 3)
    (obj,) = photo.objects
    x, y, w, h = obj.box
    assert obj.box == BOX and close(photo.pixels[y + 3:y + h - 3, x + 3:x + w - 3], RED)
    assert close(photo.pixels[2:12, 20:140], BLUE) and close(photo.pixels[100:115, 100:150], GREY)


def test_cmyk_16_bit_palette_and_alpha_images():
    def encoded(image, fmt="PNG", **kw):
        buf = io.BytesIO()
        image.save(buf, format=fmt, **kw)
        return buf.getvalue()

    rgb = Image.fromarray(displayed())
    cmyk = decode_photo(encoded(rgb.convert("CMYK"), "JPEG", quality=95))
    assert cmyk.shape == (120, 160, 3) and close(cmyk[65:85, 15:45], RED, tol=20)

    grey16 = np.full((50, 60), 40000, np.uint16)  # 61% grey in 16 bits
    decoded = decode_photo(encoded(Image.fromarray(grey16)))
    assert decoded.dtype == np.uint8 and abs(int(decoded[0, 0, 0]) - round(40000 / 65535 * 255)) <= 1

    palette = decode_photo(encoded(rgb.quantize(colors=8)))
    assert close(palette[65:85, 15:45], RED, tol=8)

    rgba = np.zeros((40, 40, 4), np.uint8)
    rgba[:20] = (*RED, 255)  # opaque red top, fully transparent (black) bottom
    decoded = decode_photo(encoded(Image.fromarray(rgba, "RGBA")))
    assert tuple(decoded[5, 5]) == RED and tuple(decoded[30, 30]) == (255, 255, 255)  # shown over white

    transparent_palette = Image.fromarray(rgba[..., :3]).quantize(colors=4)
    black = transparent_palette.getpixel((30, 30))
    assert tuple(decode_photo(encoded(transparent_palette, transparency=black))[30, 30]) == (255, 255, 255)


def _s15(v: float) -> bytes:
    return struct.pack(">i", round(v * 65536))


def swapped_profile() -> bytes:
    """A minimal ICC v2 RGB display profile whose red and blue colorants are sRGB's blue and
    red (gamma 2.2 curves): red stored under it is blue in sRGB."""
    xyz = lambda x, y, z: b"XYZ \0\0\0\0" + _s15(x) + _s15(y) + _s15(z)  # noqa: E731
    curve = b"curv\0\0\0\0" + struct.pack(">IH", 1, 0x0233) + b"\0\0"
    text = b"swapped"
    desc = b"desc\0\0\0\0" + struct.pack(">I", len(text) + 1) + text + b"\0" + b"\0" * 8 + b"\0" * 3 + b"\0" * 67
    tags = [(b"wtpt", xyz(0.9642, 1.0, 0.8249)), (b"rXYZ", xyz(0.1431, 0.0606, 0.7141)),
            (b"gXYZ", xyz(0.3851, 0.7169, 0.0971)), (b"bXYZ", xyz(0.4361, 0.2225, 0.0139)),
            (b"rTRC", curve), (b"gTRC", curve), (b"bTRC", curve), (b"desc", desc)]
    offset = 128 + 4 + 12 * len(tags)
    table, data = b"", b""
    for sig, body in tags:
        body += b"\0" * (-len(body) % 4)
        table += sig + struct.pack(">II", offset + len(data), len(body))
        data += body
    size = offset + len(data)
    header = (struct.pack(">I", size) + b"lcms" + struct.pack(">I", 0x02100000) + b"mntrRGB XYZ "
              + b"\0" * 12 + b"acsp" + b"\0" * 24 + struct.pack(">I", 0) + _s15(0.9642) + _s15(1.0) + _s15(0.8249)
              + b"\0" * 48)
    assert len(header) == 128
    return header + struct.pack(">I", len(tags)) + table + data


def test_icc_profiles_are_converted_to_srgb():
    buf = io.BytesIO()
    Image.new("RGB", (32, 32), (255, 0, 0)).save(buf, format="PNG", icc_profile=swapped_profile())
    pixel = decode_photo(buf.getvalue())[4, 4]
    assert pixel[2] > 200 and pixel[0] < 60  # red under the swapped profile is blue in sRGB


def test_imagefolder_metadata_layout_is_read(tmp_path):
    (tmp_path / "train").mkdir()
    Image.fromarray(displayed()).save(tmp_path / "train" / "kitchen.png")
    Image.fromarray(displayed()).save(tmp_path / "train" / "hall.png")
    lines = [{"file_name": "kitchen.png",
              "objects": {"bbox": [list(BOX), [100, 70, 20, 20]], "category": ["red tile", 3]}},
             {"file_name": "hall.png", "caption": "no objects here"}]
    (tmp_path / "train" / "metadata.jsonl").write_text("\n".join(map(json.dumps, lines)))
    source = FolderSource(tmp_path, SizePolicy(min_long_side=100))
    ids = [source.photo_id(i) for i in range(len(source))]
    assert ids == ["folder:train/hall.png", "folder:train/kitchen.png"]
    kitchen = source.load(1)
    assert [(o.box, o.name) for o in kitchen.objects] == [(BOX, "red tile"), ((100, 70, 20, 20), None)]
    assert source.load(0).objects == ()


def test_malformed_metadata_is_one_clear_error(tmp_path):
    Image.fromarray(displayed()).save(tmp_path / "a.png")
    (tmp_path / "metadata.jsonl").write_text('{"file_name": "a.png", '
                                             '"objects": {"bbox": [[1, 2, 3, 4]], "category": []}}\n')
    with pytest.raises(UserError, match=r"metadata.jsonl:1: not an annotation"):
        FolderSource(tmp_path)
    (tmp_path / "metadata.jsonl").write_text('{"objects": {"bbox": []}}\n')
    with pytest.raises(UserError, match=r"metadata.jsonl:1: .*file_name"):
        FolderSource(tmp_path)
