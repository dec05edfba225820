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
small salient contours (`dicobench.kit.photos.proposals`); the data model is `dicobench.kit.photos.model`.
"""

from __future__ import annotations

import abc
import functools
import hashlib
import json
import os
from collections import Counter
from pathlib import Path
from typing import Iterator

import numpy as np

from dicobench.kit.errors import UserError
from dicobench.kit.io.jsonl import read_lines
from dicobench.kit.photos.model import (
    PHOTO_SUFFIXES,
    Photo,
    PhotoObject,
    PhotoSkipped,
    SizePolicy,
    apply_size_policy,
    clip_object,
)
from dicobench.kit.photos.pixels import decode_photo


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
        return tuple(o for o in (clip_object(o, w, h) for o in self.annotations(index)) if o is not None)

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
    return PhotoSubset(source, [i for i in range(len(source))
                                if in_test_share(source.photo_id(i), test_share) == (split == "test")])


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
            self.objects.update(_jsonl(path, functools.partial(_imagefolder_entry,
                                                               path.parent.relative_to(self.root))))

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
        return tuple(PhotoObject(tuple(box), name)
                     for name, box in zip(meta["target_object"], meta["bbox"], strict=True))
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
