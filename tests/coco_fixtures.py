"""A COCO instances file made here, with its photos: small shaded objects on textured grounds,
segmented by polygons, compressed RLE and (for a crowd) uncompressed RLE, one object by its box
alone, a large table and licences. Every object is painted exactly where pycocotools decodes its
segmentation, so a mask read back is the truth of the pixels. The tests of `coco:` sources, of
edits on masks and the photo benchmark build from it."""

from __future__ import annotations

import io
import json
import warnings
from pathlib import Path

import cv2
import numpy as np
import pytest
from PIL import Image
from pycocotools import mask as mask_utils

from dicobench.kit.photos.model import SizePolicy
from dicobench.kit.photos.registry import open_source

WIDTH, HEIGHT = 1024, 768
LICENCES = [{"id": 1, "name": "Attribution License", "url": "http://creativecommons.org/licenses/by/2.0/"},
            {"id": 2, "name": "Attribution-NonCommercial License", "url": "http://creativecommons.org/licenses/by-nc/2.0/"}]
CATEGORIES = ["apple", "coin", "key", "leaf", "button", "ring", "shell", "feather", "dice", "candle", "badge",
              "marble", "cup", "spoon", "person", "dining_table"]
# per photo: (name, shape, RGB colour, cell) objects; cells of a 4x2 grid over the photo's top two thirds
PHOTOS = [
    ("p0.png", 1, [("apple", "ellipse", (200, 30, 30), 0), ("coin", "ellipse", (210, 170, 40), 1),
                   ("key", "star", (40, 90, 200), 2), ("leaf", "triangle", (40, 160, 60), 4),
                   ("button", "box", (150, 60, 170), 5)], {"crowd": "person", "large": "dining_table"}),
    ("p1.png", 1, [("apple", "star", (40, 170, 60), 0), ("coin", "box", (120, 120, 200), 2),
                   ("key", "ellipse", (220, 120, 30), 3), ("leaf", "ellipse", (190, 40, 120), 5),
                   ("ring", "triangle", (30, 150, 170), 6)], {}),
    ("p2.png", 2, [("shell", "ellipse", (230, 120, 160), 0), ("feather", "triangle", (60, 60, 200), 1),
                   ("dice", "box", (200, 40, 40), 3), ("candle", "star", (220, 200, 60), 4),
                   ("badge", "ellipse", (40, 140, 140), 6)], {}),
    ("p3.png", 2, [("shell", "box", (60, 180, 90), 1), ("feather", "ellipse", (200, 100, 40), 2),
                   ("dice", "star", (70, 70, 190), 4), ("marble", "ellipse", (180, 50, 160), 5),
                   ("badge", "triangle", (210, 60, 60), 7)], {}),
    ("p4.png", None, [("ring", "ellipse", (200, 60, 60), 0), ("marble", "box", (50, 120, 200), 2),
                      ("candle", "triangle", (60, 170, 70), 3), ("button", "star", (210, 170, 50), 5),
                      ("spoon", "bbox", (170, 60, 180), 7)], {}),
    ("p5.png", 1, [("cup", "ellipse", (210, 40, 40), 0), ("cup", "ellipse", (40, 80, 210), 2),
                   ("spoon", "box", (60, 160, 60), 3), ("shell", "star", (220, 170, 40), 5),
                   ("ring", "triangle", (160, 60, 170), 6)], {}),
]
SIZE = 64  # px across: about 0.5% of the photo, inside the editable share


def ground(rng: np.random.Generator) -> np.ndarray:
    """A smooth textured ground (low-frequency noise over a gradient), never flat."""
    base = np.array(rng.uniform(90, 170, 3))
    noise = cv2.resize(rng.normal(0, 18, (12, 16, 3)).astype(np.float32), (WIDTH, HEIGHT),
                       interpolation=cv2.INTER_CUBIC)
    grain = rng.normal(0, 3, (HEIGHT, WIDTH, 3))
    ramp = np.linspace(-15, 15, WIDTH)[None, :, None]
    return np.clip(base + noise + grain + ramp, 0, 255)


def cell_box(cell: int, rng: np.random.Generator) -> tuple[int, int, int, int]:
    col, row = cell % 4, cell // 4
    x = col * 256 + 96 + int(rng.integers(-30, 30))
    y = row * 256 + 96 + int(rng.integers(-30, 30))
    return x, y, SIZE, SIZE


def polygon(shape: str, box) -> list[float]:
    x, y, w, h = box
    cx, cy = x + w / 2, y + h / 2
    if shape == "ellipse":
        points = cv2.ellipse2Poly((int(cx), int(cy)), (w // 2, h // 3), 20, 0, 360, 10)
    elif shape == "star":
        angles = np.linspace(0, 2 * np.pi, 11)[:-1]
        radii = np.where(np.arange(10) % 2 == 0, w / 2, w / 5)
        points = np.stack([cx + radii * np.cos(angles), cy + radii * np.sin(angles)], axis=1)
    elif shape == "triangle":
        points = np.array([(cx, y), (x + w, y + h), (x, y + h)])
    else:
        points = np.array([(x, y), (x + w, y), (x + w, y + h * 0.7), (x, y + h * 0.7)])
    return [float(v) for v in np.asarray(points, float).reshape(-1)]


def decode(segmentation) -> np.ndarray:
    with warnings.catch_warnings():  # pycocotools' Cython trips numpy 2's copy-keyword deprecation
        warnings.simplefilter("ignore", DeprecationWarning)
        return _decode(segmentation)


def _decode(segmentation) -> np.ndarray:
    if isinstance(segmentation, list):
        return mask_utils.decode(mask_utils.merge(mask_utils.frPyObjects(segmentation, HEIGHT, WIDTH))).astype(bool)
    if isinstance(segmentation["counts"], list):
        return mask_utils.decode(mask_utils.frPyObjects(segmentation, HEIGHT, WIDTH)).astype(bool)
    return mask_utils.decode(segmentation).astype(bool)


def rle(mask: np.ndarray) -> dict:
    encoded = mask_utils.encode(np.asfortranarray(mask.astype(np.uint8)))
    return {"size": encoded["size"], "counts": encoded["counts"].decode("ascii")}


def uncompressed_rle(mask: np.ndarray) -> dict:
    """COCO's crowd layout: run lengths of the column-major mask, starting with zeros."""
    flat = mask.astype(np.uint8).reshape(-1, order="F")
    edges = np.flatnonzero(np.diff(flat)) + 1
    runs = np.diff(np.concatenate([[0], edges, [flat.size]]))
    counts = ([0] if flat[0] else []) + [int(v) for v in runs]
    return {"size": [HEIGHT, WIDTH], "counts": counts}


def paint(pixels: np.ndarray, mask: np.ndarray, colour, box) -> None:
    """The object's colour, shaded top to bottom (lightness varies across it, as on a real object)."""
    x, y, w, h = box
    shade = 0.7 + 0.45 * (np.arange(HEIGHT) - y)[:, None] / max(h, 1)
    shaded = np.clip(np.asarray(colour, float)[None, None, :] * np.clip(shade, 0.7, 1.15)[..., None], 0, 255)
    pixels[mask] = np.broadcast_to(shaded, pixels.shape)[mask]


def make_coco(root: Path, *, lvis: bool = False) -> Path:
    """Write the photos under `root/images` and the annotation file `root/instances.json`
    (`lvis`: LVIS's layout, `coco_url` instead of `file_name`, no `iscrowd`); return the file."""
    images_dir = root / "images"
    images_dir.mkdir(parents=True, exist_ok=True)
    cat_ids = {name: i + 1 for i, name in enumerate(CATEGORIES)}
    images, annotations = [], []
    rng = np.random.default_rng(22)
    for image_id, (file, licence, objects, extra) in enumerate(PHOTOS, 1):
        pixels = ground(rng)
        anns = []
        for n, (name, shape, colour, cell) in enumerate(objects):
            box = cell_box(cell, rng)
            seg = polygon("box" if shape == "bbox" else shape, box)
            mask = decode([seg])
            paint(pixels, mask, colour, box)
            if shape == "bbox":
                segmentation = []  # a box alone
            elif n % 2:
                segmentation = rle(mask)
            else:
                segmentation = [seg]
            anns.append((name, segmentation, mask, 0))
        if "large" in extra:
            seg = [100.0, 560.0, 700.0, 560.0, 700.0, 740.0, 100.0, 740.0]  # 600 x 180 px: about 14% of the photo
            mask = decode([seg])
            paint(pixels, mask, (140, 100, 60), (100, 560, 600, 180))
            anns.append((extra["large"], [seg], mask, 0))
        if "crowd" in extra:
            mask = np.zeros((HEIGHT, WIDTH), bool)
            for cx in (800, 850, 900):
                cv2.ellipse(mask.view(np.uint8), (cx, 650), (18, 40), 0, 0, 360, 1, -1)
            paint(pixels, mask, (90, 70, 60), (780, 610, 140, 80))
            anns.append((extra["crowd"], uncompressed_rle(mask), mask, 1))
        out = np.clip(np.rint(pixels), 0, 255).astype(np.uint8)
        buf = io.BytesIO()
        Image.fromarray(out).save(buf, format="PNG", compress_level=1)
        (images_dir / file).write_bytes(buf.getvalue())
        image = {"id": image_id, "width": WIDTH, "height": HEIGHT}
        image.update({"coco_url": f"http://images.example/val/{file}"} if lvis else {"file_name": file})
        if licence is not None:
            image["license"] = licence
        images.append(image)
        for name, segmentation, mask, crowd in anns:
            ys, xs = np.nonzero(mask)
            ann = {"id": len(annotations) + 1, "image_id": image_id, "category_id": cat_ids[name],
                   "bbox": [int(xs.min()), int(ys.min()), int(xs.max() - xs.min() + 1), int(ys.max() - ys.min() + 1)],
                   "area": int(mask.sum()), "segmentation": segmentation}
            if not lvis:
                ann["iscrowd"] = crowd
            annotations.append(ann)
    path = root / "instances.json"
    data = {"info": {"description": "dicobench test photos"}, "licenses": LICENCES, "images": images,
            "annotations": annotations,
            "categories": [{"id": i, "name": n, "supercategory": "thing"} for n, i in cat_ids.items()]}
    path.write_text(json.dumps(data))
    return path


def truth_masks(path: Path) -> dict[int, np.ndarray]:
    """Annotation id -> the full-image mask its segmentation (or, for a box alone, nothing) decodes to."""
    data = json.loads(Path(path).read_text())
    return {a["id"]: decode(a["segmentation"]) for a in data["annotations"] if a["segmentation"]}


POLICY = SizePolicy(768)  # the fixture's photos are 1024 px on their long side


@pytest.fixture(scope="module")
def coco(tmp_path_factory):
    """The COCO file of `make_coco`, written once per test module."""
    return make_coco(tmp_path_factory.mktemp("coco"))


@pytest.fixture(scope="module")
def source(coco):
    """That file opened as `--source coco:FILE:DIR` opens it."""
    return open_source(f"coco:{coco}:{coco.parent / 'images'}", POLICY)
