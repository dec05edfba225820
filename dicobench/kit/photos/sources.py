"""Real photos as a source of base images: a folder, the V* benchmark or a Hugging Face dataset
(a COCO-style annotation file is `dicobench.kit.photos.coco`'s); the spec prefixes that open them
are declared in `dicobench.kit.photos.registry`.

Every source offers random access (`len(source)`, `source.load(index) -> Photo`), so a row
can pick its photo from its seed alone, and iteration that skips unusable photos. A photo is
unusable when it cannot be decoded (corrupt, truncated, a decompression bomb) or is smaller
than the size policy allows; `load` raises `PhotoSkipped` with a short reason and a clear
message, iteration counts the reason in `source.skipped` and moves on.

Photos are decoded upright in sRGB (`dicobench.kit.photos.pixels`: EXIF orientation, ICC profiles,
CMYK, 16-bit, palettes, transparency). Annotation boxes are read in that displayed frame, the
frame viewers and `datasets` show, and are xywh in pixels of the photo as returned (after any
upscaling). Sources that segment their objects (COCO) also give each object's mask, cropped to
its box and scaled with it. Photos without annotated objects get classical region proposals:
small salient contours.
"""

from __future__ import annotations

import abc
import functools
import hashlib
import json
import os
from collections import Counter
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Iterator

import numpy as np
from PIL import Image

from dicobench.kit.errors import UserError
from dicobench.kit.photos.pixels import decode_photo
from dicobench.kit.scene.geometry import Box, clipped, overlap_share
from dicobench.kit.io.jsonl import read_lines

PHOTO_SUFFIXES = (".jpg", ".jpeg", ".png", ".webp", ".bmp", ".tif", ".tiff")


@dataclass(frozen=True)
class PhotoObject:
    box: Box  # x, y, w, h in pixels
    name: str | None = None  # None for a region proposal: nothing is known about what it shows
    # the object's pixels within `box` (bool, box-sized), where the source segments them
    mask: np.ndarray | None = field(default=None, compare=False, repr=False)
    # False for what names a place but must never be edited or cut out: a crowd region, an
    # object too large for a micro edit. Its name still counts as present in the photo.
    editable: bool = True


@dataclass(frozen=True)
class Photo:
    id: str  # the row's `source`, e.g. "folder:kitchen.jpg", "vstar:sa_4690"
    pixels: np.ndarray  # HxWx3 uint8 RGB
    objects: tuple[PhotoObject, ...] = ()


@dataclass(frozen=True)
class SizePolicy:
    """Photos with a long side under `min_long_side` are refused, or upscaled to it when asked."""

    min_long_side: int = 1024
    upscale: bool = False


class PhotoSkipped(Exception):
    def __init__(self, reason: str, message: str):
        super().__init__(message)
        self.reason = reason  # "unreadable" or "too_small"


def apply_size_policy(photo: Photo, policy: SizePolicy) -> Photo:
    h, w = photo.pixels.shape[:2]
    long_side = max(h, w)
    if long_side >= policy.min_long_side:
        return photo
    if not policy.upscale:
        raise PhotoSkipped("too_small", f"{photo.id}: {w}x{h} is smaller than {policy.min_long_side} px on the "
                           "long side (ask for upscaling to use it)")
    scale = policy.min_long_side / long_side
    size = (round(w * scale), round(h * scale))
    pixels = np.asarray(Image.fromarray(photo.pixels).resize(size, Image.Resampling.LANCZOS))
    objects = tuple(_rescaled(o, scale) for o in photo.objects)
    return replace(photo, pixels=pixels, objects=objects)


def _rescaled(obj: PhotoObject, scale: float) -> PhotoObject:
    box = tuple(round(v * scale) for v in obj.box)
    if obj.mask is None:
        return replace(obj, box=box)
    size = (max(box[2], 1), max(box[3], 1))
    mask = np.asarray(Image.fromarray(obj.mask.astype(np.uint8) * 255).resize(size, Image.Resampling.BILINEAR)) >= 128
    return replace(obj, box=(box[0], box[1], *size), mask=mask)


class PhotoSource(abc.ABC):
    """Random access plus skipping iteration. Ids and annotations are cheap (no decoding), so
    rows can choose photos and names can be indexed before any pixels are read."""

    def __init__(self, policy: SizePolicy = SizePolicy()):
        self.policy = policy
        self.skipped: Counter = Counter()

    @abc.abstractmethod
    def __len__(self) -> int: ...

    @abc.abstractmethod
    def photo_id(self, index: int) -> str:
        """The row's `source` value for photo `index`, e.g. "folder:kitchen.jpg"."""

    @abc.abstractmethod
    def annotations(self, index: int) -> tuple[PhotoObject, ...]:
        """The annotated objects of photo `index`, boxes as stored (before clipping and scaling)."""

    @abc.abstractmethod
    def _bytes(self, index: int) -> bytes:
        """The encoded photo."""

    def load(self, index: int) -> Photo:
        photo_id = self.photo_id(index)
        try:
            pixels = decode_photo(self._bytes(index), photo_id)
        except UserError as exc:
            raise PhotoSkipped("unreadable", str(exc)) from None
        return apply_size_policy(Photo(photo_id, pixels, self.objects_in(index, pixels)), self.policy)

    def objects_in(self, index: int, pixels: np.ndarray) -> tuple[PhotoObject, ...]:
        """Photo `index`'s objects in its decoded pixels: boxes clipped to the frame (sources
        with masks decode them here, once the photo's size is known)."""
        h, w = pixels.shape[:2]
        return tuple(o for o in (_clip(o, w, h) for o in self.annotations(index)) if o is not None)

    def __iter__(self) -> Iterator[Photo]:
        for index in range(len(self)):
            try:
                yield self.load(index)
            except PhotoSkipped as exc:
                self.skipped[exc.reason] += 1


class PhotoSubset(PhotoSource):
    """The photos of `source` at `indices`, in that order (a split's share of a source)."""

    def __init__(self, source: PhotoSource, indices: list[int]):
        super().__init__(source.policy)
        self.source, self.indices = source, indices

    def __len__(self) -> int:
        return len(self.indices)

    def photo_id(self, index: int) -> str:
        return self.source.photo_id(self.indices[index])

    def annotations(self, index: int) -> tuple[PhotoObject, ...]:
        return self.source.annotations(self.indices[index])

    def objects_in(self, index: int, pixels: np.ndarray) -> tuple[PhotoObject, ...]:
        return self.source.objects_in(self.indices[index], pixels)

    def _bytes(self, index: int) -> bytes:
        return self.source._bytes(self.indices[index])


def in_test_share(photo_id: str, test_share: float) -> bool:
    """Whether a photo belongs to the test split when `test_share` of a source is held out for
    it: a stable hash of the id decides, so the choice never depends on build order or size."""
    digest = hashlib.sha256(photo_id.encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64 < test_share


def split_photos(source: PhotoSource, split: str, test_share: float | None) -> PhotoSource:
    """The photos a split may use: all of them without a `test_share`, else the test split's
    share or the rest, disjoint by construction."""
    if test_share is None:
        return source
    return PhotoSubset(source, [i for i in range(len(source)) if in_test_share(source.photo_id(i), test_share) == (split == "test")])


def _clip(obj: PhotoObject, w: int, h: int) -> PhotoObject | None:
    x, y, bw, bh = (int(round(v)) for v in obj.box)
    inside = clipped((x, y, bw, bh), w, h)
    if inside is None:
        return None
    x0, y0, cw, ch = inside
    mask = None if obj.mask is None else obj.mask[y0 - y : y0 - y + ch, x0 - x : x0 - x + cw]
    return replace(obj, box=inside, mask=mask)


def _objects(entries) -> tuple[PhotoObject, ...]:
    return tuple(PhotoObject(tuple(e["box"]), e.get("name")) for e in entries)


def _imagefolder_entry(folder: Path, entry: dict) -> tuple[str, tuple[PhotoObject, ...]]:
    """A `metadata.jsonl` line of `folder` (relative to the root): the photo and its objects."""
    return (folder / entry["file_name"]).as_posix(), _imagefolder_objects(entry.get("objects") or {"bbox": []})


def _imagefolder_objects(objects: dict) -> tuple[PhotoObject, ...]:
    """ImageFolder's `{"bbox": [...], "category": [...]}` (categories optional)."""
    boxes = objects["bbox"]
    names = objects.get("category", [None] * len(boxes))
    if len(names) != len(boxes):
        raise ValueError(f"{len(boxes)} boxes but {len(names)} categories")
    return tuple(PhotoObject(tuple(box), name if isinstance(name, str) else None) for box, name in zip(boxes, names))


def _jsonl(path: Path, parse) -> dict[str, tuple[PhotoObject, ...]]:
    """{photo: objects} from an annotation file, `parse` turning a line's object into a pair;
    a malformed line is a UserError naming it."""
    out = {}
    for number, line in enumerate(read_lines(path), 1):
        if not line.strip():
            continue
        try:
            entry = json.loads(line)
            if not isinstance(entry, dict):
                raise TypeError("not a JSON object")
            key, objects = parse(entry)
            out[key] = objects
        except (ValueError, KeyError, TypeError) as exc:
            raise UserError(f"{path}:{number}: not an annotation ({type(exc).__name__}: {exc})") from None
    return out


class FolderSource(PhotoSource):
    """Every photo under `root` (recursively, sorted), with annotations in either layout:

    - `annotations.jsonl` at the root, one line per photo:
      `{"file": "<path relative to root>", "objects": [{"name": ..., "box": [x, y, w, h]}]}`;
    - the Hub's ImageFolder layout, a `metadata.jsonl` in any folder, one line per photo:
      `{"file_name": "<path relative to that folder>", "objects": {"bbox": [[x, y, w, h], ...],
      "category": [...]}}` (string categories are the names; numbers, whose names are not
      in the folder, leave the object unnamed).
    """

    def __init__(self, root: str | Path, policy: SizePolicy = SizePolicy()):
        super().__init__(policy)
        self.root = Path(root).expanduser()  # a spec's `~` is the user's home: no shell expands it after `folder:`
        if not self.root.is_dir():
            raise UserError(f"photo folder {self.root} does not exist")
        self.files = sorted(p for p in self.root.rglob("*") if p.suffix.lower() in PHOTO_SUFFIXES)
        if not self.files:
            raise UserError(f"no photos ({', '.join(PHOTO_SUFFIXES)}) under {self.root}")
        self.objects: dict[str, tuple[PhotoObject, ...]] = {}
        path = self.root / "annotations.jsonl"
        if path.exists():
            self.objects.update(_jsonl(path, lambda e: (e["file"], _objects(e["objects"]))))
        for path in sorted(self.root.rglob("metadata.jsonl")):
            self.objects.update(_jsonl(path, functools.partial(_imagefolder_entry, path.parent.relative_to(self.root))))

    def __len__(self) -> int:
        return len(self.files)

    def _relative(self, index: int) -> str:
        return self.files[index].relative_to(self.root).as_posix()

    def photo_id(self, index: int) -> str:
        return f"folder:{self._relative(index)}"

    def annotations(self, index: int) -> tuple[PhotoObject, ...]:
        return self.objects.get(self._relative(index), ())

    def _bytes(self, index: int) -> bytes:
        return self.files[index].read_bytes()


class VStarSource(PhotoSource):
    """The V* benchmark's layout: `<id>.jpg` beside `<id>.json` holding `target_object` (names)
    and `bbox` (xywh boxes, one per name), in any subfolders (direct_attributes, relative_position)."""

    def __init__(self, root: str | Path, policy: SizePolicy = SizePolicy()):
        super().__init__(policy)
        self.root = Path(root).expanduser()  # a spec's `~` is the user's home: no shell expands it after `folder:`
        self.files = sorted(p for p in self.root.rglob("*.json") if _photo_beside(p) is not None)
        if not self.files:
            raise UserError(f"no V* samples (<id>.json beside <id>.jpg) under {self.root}")
        self.objects = [_vstar_objects(p) for p in self.files]

    def __len__(self) -> int:
        return len(self.files)

    def photo_id(self, index: int) -> str:
        return f"vstar:{self.files[index].stem}"

    def annotations(self, index: int) -> tuple[PhotoObject, ...]:
        return self.objects[index]

    def _bytes(self, index: int) -> bytes:
        return _photo_beside(self.files[index]).read_bytes()


def _vstar_objects(meta_path: Path) -> tuple[PhotoObject, ...]:
    try:
        meta = json.loads(meta_path.read_text())
        return tuple(PhotoObject(tuple(box), name) for name, box in zip(meta["target_object"], meta["bbox"], strict=True))
    except (ValueError, KeyError, TypeError) as exc:
        raise UserError(f"{meta_path}: not a V* annotation ({type(exc).__name__}: {exc})") from None


def _photo_beside(meta: Path) -> Path | None:
    return next((p for p in (meta.with_suffix(s) for s in PHOTO_SUFFIXES) if p.exists()), None)


class HubSource(PhotoSource):
    """A Hugging Face image dataset (a Hub id or a local folder, through `datasets.load_dataset`).
    Images are read as bytes and decoded with the bomb guard. An optional objects column in the
    Hub's detection layout, `{"bbox": [[x, y, w, h], ...], "category": [...]}`, gives the
    objects; a ClassLabel category is turned into its name."""

    def __init__(self, repo: str, split: str = "train", policy: SizePolicy = SizePolicy(),
                 image_column: str = "image", objects_column: str = "objects"):
        super().__init__(policy)
        import datasets

        try:
            ds = datasets.load_dataset(os.path.expanduser(repo), split=split)  # a local folder may start with ~
        except Exception as exc:  # the Hub, the network and the files all raise their own types
            raise UserError(f"cannot load dataset {repo!r} split {split!r} ({type(exc).__name__}: {exc})") from None
        if image_column not in ds.column_names:
            raise UserError(f"dataset {repo!r} has no {image_column!r} column (columns: {', '.join(ds.column_names)})")
        self.repo, self.image_column = repo, image_column
        self.dataset = ds.cast_column(image_column, datasets.Image(decode=False))
        self.objects_column = objects_column if objects_column in ds.column_names else None
        # one projection per use, so that reading annotations never reads image bytes
        self.images = self.dataset.select_columns([image_column])
        self.objects = self.dataset.select_columns([self.objects_column]) if self.objects_column else None
        self.category_names = _category_names(ds.features.get(objects_column))

    def __len__(self) -> int:
        return len(self.dataset)

    def photo_id(self, index: int) -> str:
        return f"hf:{self.repo}:{index}"

    def annotations(self, index: int) -> tuple[PhotoObject, ...]:
        if self.objects is None:
            return ()
        found = self.objects[index][self.objects_column]
        names = found.get("category") or found.get("name") or [None] * len(found["bbox"])
        return tuple(PhotoObject(tuple(box), self.category_names(name)) for box, name in zip(found["bbox"], names))

    def _bytes(self, index: int) -> bytes:
        image = self.images[index][self.image_column]
        return image["bytes"] if image["bytes"] is not None else Path(image["path"]).read_bytes()


def _category_names(feature):
    """How to turn a stored category into a name: ClassLabel ints to their names, strings kept."""
    inner = getattr(feature, "feature", feature)  # List({...}) or {...: List(...)}
    category = inner.get("category") if isinstance(inner, dict) else None
    category = getattr(category, "feature", category)
    if hasattr(category, "int2str"):
        return lambda value: None if value is None else category.int2str(int(value))
    return lambda value: None if value is None else str(value)


def require_opencv() -> None:
    """Photo sources find and edit regions with OpenCV, which only the `edit` extra installs."""
    try:
        import cv2  # noqa: F401
    except ImportError:
        raise UserError("photo sources need OpenCV, which the edit extra installs: pip install 'dicobench[edit]'") from None


# ---- region proposals for photos without annotations -----------------------------------

@dataclass(frozen=True)
class ProposalConfig:
    """Small salient regions: contours of strong edges whose box covers between `min_area` and
    `max_area` of the photo and whose colour stands off the ring around them."""

    max_area: float = 0.01
    min_area: float = 0.0004
    min_contrast: float = 12.0  # Lab distance between the region and its surrounding ring
    max_regions: int = 24
    max_overlap: float = 0.0  # proposals may not overlap each other (edits on them stay apart)
    canny: tuple[int, int] = field(default=(60, 160))
    work_side: int = 1024  # larger photos are searched at this long side: edges look alike at any resolution


def propose_regions(pixels: np.ndarray, cfg: ProposalConfig = ProposalConfig()) -> list[PhotoObject]:
    """Salient small regions, most contrasting first (deterministic)."""
    import cv2

    scale = cfg.work_side / max(pixels.shape[:2])
    if scale < 1:
        size = (round(pixels.shape[1] * scale), round(pixels.shape[0] * scale))
        found = propose_regions(cv2.resize(pixels, size, interpolation=cv2.INTER_AREA), replace(cfg, work_side=max(size)))
        return [_scaled(p, 1 / scale, pixels.shape) for p in found]
    h, w = pixels.shape[:2]
    lab = cv2.cvtColor(pixels, cv2.COLOR_RGB2LAB).astype(np.float32)
    edges = cv2.Canny(cv2.GaussianBlur(cv2.cvtColor(pixels, cv2.COLOR_RGB2GRAY), (5, 5), 0), *cfg.canny)
    closed = cv2.morphologyEx(edges, cv2.MORPH_CLOSE, np.ones((5, 5), np.uint8))
    contours, _ = cv2.findContours(closed, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    scored = []
    for contour in contours:
        x, y, bw, bh = cv2.boundingRect(contour)
        if not cfg.min_area * h * w <= bw * bh <= cfg.max_area * h * w or max(bw, bh) > 4 * min(bw, bh):
            continue
        if x == 0 or y == 0 or x + bw == w or y + bh == h:
            continue  # cut by the frame: not a whole object
        inside = np.zeros((bh, bw), np.uint8)
        cv2.drawContours(inside, [contour - [x, y]], -1, 1, thickness=cv2.FILLED)
        if inside.sum() < 0.3 * bw * bh:
            continue
        pad = max(bw, bh) // 2
        rx0, ry0, rx1, ry1 = max(x - pad, 0), max(y - pad, 0), min(x + bw + pad, w), min(y + bh + pad, h)
        ring = np.ones((ry1 - ry0, rx1 - rx0), bool)
        ring[y - ry0 : y - ry0 + bh, x - rx0 : x - rx0 + bw] = False
        region = lab[y : y + bh, x : x + bw][inside.astype(bool)].mean(axis=0)
        contrast = float(np.linalg.norm(region - lab[ry0:ry1, rx0:rx1][ring].mean(axis=0)))
        if contrast >= cfg.min_contrast:
            scored.append((-contrast, (x, y, bw, bh)))
    chosen: list[Box] = []
    for _, box in sorted(scored):
        if all(overlap_share(box, other) <= cfg.max_overlap for other in chosen):
            chosen.append(box)
        if len(chosen) == cfg.max_regions:
            break
    return [PhotoObject(box) for box in chosen]


def _scaled(obj: PhotoObject, factor: float, shape: tuple[int, ...]) -> PhotoObject:
    """A box found on a reduced copy, in the photo's pixels (grown by a pixel against rounding)."""
    x0, y0 = max(int(obj.box[0] * factor) - 1, 0), max(int(obj.box[1] * factor) - 1, 0)
    x1 = min(int(np.ceil((obj.box[0] + obj.box[2]) * factor)) + 1, shape[1])
    y1 = min(int(np.ceil((obj.box[1] + obj.box[3]) * factor)) + 1, shape[0])
    return replace(obj, box=(x0, y0, x1 - x0, y1 - y0))
