"""COCO-style annotation files as a photo source: `coco:ANNOTATIONS.json[:IMAGES_DIR]`.

The instances layout that COCO's tools, LVIS and most labelling tools write: `images` (`id`,
`file_name` or LVIS's `coco_url`, `width`, `height`, `license`), `categories` (`id`, `name`),
`annotations` (`image_id`, `category_id`, `bbox` xywh, `segmentation` as polygons or RLE,
`area`, `iscrowd`) and `licenses` (`id`, `name`, `url`). Masks are decoded with `pycocotools`
when a photo is loaded, so opening a file with a million objects decodes nothing. Objects keep
their category's name (LVIS's `bath_towel` reads "bath towel"); crowd regions, annotations marked
`ignore` (`dicobench annotate`'s unsure detections) and objects over `MAX_EDIT_SHARE` of the photo
stay in the photo as names that are present but are never edited. Annotations a person rejected
(`dicobench.kit.photos.annotation_review`, `dicobench review --dataset ANNOTATIONS.json`) are dropped.
"""

from __future__ import annotations

import contextlib
import io
import json
import warnings
from collections import Counter
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

import numpy as np

from dicobench.kit.errors import UserError
from dicobench.kit.photos.annotation_review import rejected
from dicobench.kit.photos.model import Photo, PhotoObject, PhotoSkipped, SizePolicy, clip_object
from dicobench.kit.photos.sources import PhotoSource, PhotoSubset

MAX_EDIT_SHARE = 0.05  # the paper's micro edits: objects larger than this share of the photo are not edited


def require_pycocotools():
    try:
        from pycocotools import coco, mask  # noqa: F401
    except ImportError:
        raise UserError("coco: sources need pycocotools, which the edit extra installs: "
                        "pip install 'dicobench[edit]'") from None
    return coco


def category_name(name: str) -> str:
    """How an option names the category: LVIS's snake case read as words."""
    return " ".join(name.replace("_", " ").split())


@dataclass(frozen=True)
class PhotoLicence:
    name: str
    url: str | None
    photos: int


class CocoSource(PhotoSource):
    """The photos of a COCO-style file, in the file's image order, with their objects."""

    def __init__(self, annotations: str | Path, images: str | Path | None = None, policy: SizePolicy = SizePolicy(),
                 max_edit_share: float = MAX_EDIT_SHARE):
        super().__init__(policy)
        # a spec's `~` is the user's home: no shell expands it after `coco:`
        self.path = Path(annotations).expanduser()
        self.images_dir = Path(images).expanduser() if images else self.path.parent
        if not self.images_dir.is_dir():
            raise UserError(f"coco: image folder {self.images_dir} does not exist")
        self.max_edit_share = max_edit_share
        self.coco = _index(_read(self.path), self.path)
        self.rejected = rejected(self.path)
        self.image_ids = [img["id"] for img in self.coco.dataset["images"]]
        self.names = {c["id"]: category_name(str(c["name"])) for c in self.coco.dataset["categories"]}
        self._objects: dict[int, tuple[PhotoObject, ...]] = {}

    def __len__(self) -> int:
        return len(self.image_ids)

    def image(self, index: int) -> dict:
        return self.coco.imgs[self.image_ids[index]]

    def file_name(self, index: int) -> str:
        img = self.image(index)
        name = img.get("file_name") or PurePosixPath(str(img.get("coco_url", ""))).name
        if not name:
            raise UserError(f"{self.path}: image {img['id']} has neither file_name nor coco_url")
        return str(name)

    def photo_id(self, index: int) -> str:
        return f"coco:{self.file_name(index)}"

    def _annotations(self, index: int) -> list[dict]:
        return sorted((a for a in self.coco.imgToAnns.get(self.image_ids[index], []) if a["id"] not in self.rejected),
                      key=lambda a: a["id"])

    def annotations(self, index: int) -> tuple[PhotoObject, ...]:
        if index not in self._objects:
            img = self.image(index)
            area = float(img["width"]) * float(img["height"])
            self._objects[index] = tuple(
                PhotoObject(tuple(a["bbox"]), self.names[a["category_id"]],
                            editable=not a.get("iscrowd", 0) and not a.get("ignore", 0)
                            and _area(a) <= self.max_edit_share * area)
                for a in self._annotations(index))
        return self._objects[index]

    def objects_in(self, index: int, pixels: np.ndarray) -> tuple[PhotoObject, ...]:
        """The objects with their masks decoded (pycocotools), each box the tight box of its mask."""
        from pycocotools import mask as mask_utils

        img = self.image(index)
        h, w = pixels.shape[:2]
        if (int(img["height"]), int(img["width"])) != (h, w):
            raise PhotoSkipped("annotation_mismatch",
                               f"{self.photo_id(index)}: annotated as {img['width']}x{img['height']}, "
                               f"the file is {w}x{h}")
        objects = []
        for ann, obj in zip(self._annotations(index), self.annotations(index)):
            full = decode_mask(mask_utils, self.coco.annToRLE(ann)) if ann.get("segmentation") else None
            if full is None or not full.any():
                objects.append(obj)  # a box alone: its object is segmented from the box like any other
                continue
            ys, xs = np.nonzero(full)
            x0, y0, x1, y1 = int(xs.min()), int(ys.min()), int(xs.max()) + 1, int(ys.max()) + 1
            objects.append(PhotoObject((x0, y0, x1 - x0, y1 - y0), obj.name, full[y0:y1, x0:x1], obj.editable))
        return tuple(o for o in (clip_object(o, w, h) for o in objects) if o is not None)

    def _bytes(self, index: int) -> bytes:
        name = self.file_name(index)
        path = self.images_dir / name
        if PurePosixPath(name).is_absolute() or not path.resolve().is_relative_to(self.images_dir.resolve()):
            raise UserError(f"{self.photo_id(index)}: its file_name {name!r} points outside the photo folder; "
                            "only files inside it are read")
        try:
            return path.read_bytes()
        except OSError as exc:
            raise UserError(f"{self.photo_id(index)}: cannot read {path.name} ({type(exc).__name__})") from None

    def load(self, index: int) -> Photo:
        require_pycocotools()
        return super().load(index)


def decode_mask(mask_utils, rle: dict) -> np.ndarray:
    """The full-image bool mask of a pycocotools RLE."""
    with warnings.catch_warnings():  # pycocotools' Cython trips numpy 2's copy-keyword deprecation
        warnings.simplefilter("ignore", DeprecationWarning)
        return mask_utils.decode(rle).astype(bool)


def _area(ann: dict) -> float:
    if ann.get("area"):
        return float(ann["area"])
    return float(ann["bbox"][2]) * float(ann["bbox"][3])


def _read(path: Path) -> dict:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise UserError(f"coco: annotation file {path} does not exist") from None
    except (OSError, ValueError) as exc:
        raise UserError(f"coco: {path} is not a JSON file ({type(exc).__name__}: {exc})") from None
    if not isinstance(data, dict) or not all(isinstance(data.get(k), list)
                                             for k in ("images", "annotations", "categories")):
        raise UserError(f"coco: {path} is not a COCO instances file "
                        "(it needs images, annotations and categories lists)")
    return data


def _index(data: dict, path: Path):
    """pycocotools' index of the file, every annotation checked first (one clear line for the
    first malformed one, never a traceback from inside a worker)."""
    coco = require_pycocotools()
    categories = {c.get("id") for c in data["categories"] if isinstance(c, dict) and "name" in c}
    images = {}
    for img in data["images"]:
        if not isinstance(img, dict) or not all(isinstance(img.get(k), int) for k in ("id", "width", "height")):
            raise UserError(f"coco: {path}: image {img!r:.80} needs integer id, width and height")
        images[img["id"]] = img
    for ann in data["annotations"]:
        problem = _problem(ann, images, categories)
        if problem:
            raise UserError(f"coco: {path}: annotation {ann.get('id') if isinstance(ann, dict) else ann!r:.40}: "
                            f"{problem}")
    with contextlib.redirect_stdout(io.StringIO()):  # pycocotools prints its progress
        index = coco.COCO()
        index.dataset = data
        index.createIndex()
    return index


def _problem(ann, images: dict, categories: set) -> str | None:
    if not isinstance(ann, dict) or "id" not in ann:
        return "not an object with an id"
    if ann.get("image_id") not in images:
        return f"unknown image_id {ann.get('image_id')!r}"
    if ann.get("category_id") not in categories:
        return f"unknown category_id {ann.get('category_id')!r}"
    box = ann.get("bbox")
    if not (isinstance(box, list) and len(box) == 4 and all(isinstance(v, (int, float)) for v in box)):
        return "bbox must be [x, y, w, h]"
    seg = ann.get("segmentation")
    if seg in (None, [], {}):
        return None
    if isinstance(seg, list):
        if not all(isinstance(p, list) and len(p) >= 6 and len(p) % 2 == 0
                   and all(isinstance(v, (int, float)) for v in p)
                   for p in seg):
            return "a polygon segmentation is a list of [x1, y1, x2, y2, ...] lists of 3 points or more"
        return None
    if isinstance(seg, dict) and isinstance(seg.get("counts"), (list, str)) and isinstance(seg.get("size"), list):
        img = images[ann["image_id"]]
        if list(seg["size"]) != [img["height"], img["width"]]:
            return f"RLE size {seg['size']} is not the image's [height, width] [{img['height']}, {img['width']}]"
        return None
    return "segmentation must be polygons or an RLE {counts, size}"


def photo_licences(source: PhotoSource) -> tuple[list[PhotoLicence], int] | None:
    """The licences the file's `licenses` and `images[].license` give the photos of `source`
    (a COCO source or a split's share of one), most photos first, and how many photos name
    none; None for other sources."""
    indices = None
    while isinstance(source, PhotoSubset):
        indices = [source.indices[i] for i in (indices if indices is not None else range(len(source)))]
        source = source.source
    if not isinstance(source, CocoSource):
        return None
    known = {lic.get("id"): lic for lic in source.coco.dataset.get("licenses") or [] if isinstance(lic, dict)}
    counts, unstated = Counter(), 0
    for i in indices if indices is not None else range(len(source)):
        lic = known.get(source.image(i).get("license"))
        if lic is None:
            unstated += 1
        else:
            counts[(str(lic.get("name") or f"licence {lic.get('id')}"), lic.get("url") or None)] += 1
    ordered = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0][0]))
    return [PhotoLicence(name, url, n) for (name, url), n in ordered], unstated

