"""Annotate plain photos with open-vocabulary models, once, as a COCO file `coco:` reads.

`annotate(PHOTOS, OUT, options)` runs a zero-shot detector over a vocabulary on every photo under
PHOTOS, keeps the detections scoring at least `absent_threshold` after per-label non-maximum
suppression, refines their boxes to masks with a promptable segmenter when one is given, and
writes OUT in the COCO instances layout (categories: the vocabulary; `info`: the models and
thresholds). A detection scoring under `score_threshold` is written with `ignore: 1`: too unsure to
be an object an option names, sure enough that its name is not "absent" from the photo.

Each photo's result is appended to `OUT.partial.jsonl` as soon as it is known, so a run that is
killed resumes where it stopped; a rerun over photos already in OUT sends nothing to the models
(they are not even loaded).
"""

from __future__ import annotations

import json
import logging
import os
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

from dicobench.kit import __version__
from dicobench.kit.errors import UserError
from dicobench.kit.io.jsonl import read_lines
from dicobench.kit.photos.model import PHOTO_SUFFIXES
from dicobench.kit.photos.pixels import decode_photo

logger = logging.getLogger(__name__)

PARTIAL_SUFFIX = ".partial.jsonl"


@dataclass(frozen=True)
class AnnotateOptions:
    detector: str  # transformers:<id>: OWLv2, OWL-ViT, Grounding DINO
    segmenter: str | None = None  # transformers:<id> of a SAM model; None: boxes alone (GrabCut segments them)
    labels: tuple[str, ...] = field(default_factory=tuple)  # the vocabulary; empty: the catalogue's names
    score_threshold: float = 0.3  # a detection at least this sure is an object
    absent_threshold: float = 0.1  # a name with no detection this sure is absent from the photo
    nms_iou: float = 0.5  # boxes of one label overlapping more than this are one object

    def check(self) -> None:
        from dicobench.kit.photos.detectors import model_id

        model_id("--detector", self.detector)
        if self.segmenter is not None:
            model_id("--segmenter", self.segmenter)
        if not 0 < self.absent_threshold <= self.score_threshold <= 1:
            raise UserError(f"thresholds must satisfy 0 < --absent-threshold ({self.absent_threshold}) <= "
                            f"--score-threshold ({self.score_threshold}) <= 1")
        if not 0 < self.nms_iou <= 1:
            raise UserError(f"--nms-iou must lie in (0, 1], got {self.nms_iou}")

    def vocabulary(self) -> tuple[str, ...]:
        if self.labels:
            return self.labels
        from dicobench.kit.scene.catalogue import load_catalogue

        return tuple(dict.fromkeys(e.name for e in load_catalogue("audited")))

    def info(self) -> dict:
        """What the file's `info` records (and what a resumed run must match)."""
        kept = asdict(self)
        kept["labels"] = list(self.vocabulary())
        return {"description": f"annotated by dicobench annotate {__version__}", **kept}


def read_labels(path: str | Path) -> tuple[str, ...]:
    """One name per line (blank lines and `#` comments skipped), each once."""
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise UserError(f"--labels {path}: cannot read ({exc.strerror})") from None
    names = tuple(dict.fromkeys(line.strip() for line in lines if line.strip() and not line.lstrip().startswith("#")))
    if not names:
        raise UserError(f"--labels {path}: no names in it")
    return names


def photo_files(root: Path) -> list[Path]:
    files = sorted(p for p in root.rglob("*") if p.suffix.lower() in PHOTO_SUFFIXES)
    if not root.is_dir() or not files:
        raise UserError(f"no photos ({', '.join(PHOTO_SUFFIXES)}) under {root}")
    return files


def annotate(photos: str | Path, out: str | Path, options: AnnotateOptions, progress: bool = True) -> Path:
    """Annotate every photo under `photos` into the COCO file `out` (see the module's docstring)."""
    options.check()
    root, out = Path(photos), Path(out)
    files = photo_files(root)
    info = options.info()
    records = _resume(out, info)
    todo = [f for f in files if f.relative_to(root).as_posix() not in records]
    if todo:
        records.update(_run(root, todo, out, options, info, progress))
    _write_coco(out, info, [records[k] for k in (f.relative_to(root).as_posix() for f in files) if k in records])
    Path(str(out) + PARTIAL_SUFFIX).unlink(missing_ok=True)
    return out


def _run(root: Path, todo: list[Path], out: Path, options: AnnotateOptions, info: dict, progress: bool) -> dict:
    from tqdm.auto import tqdm

    from dicobench.kit.photos.detectors import Detector, Segmenter, nms

    models: list = []  # loaded at the first photo that decodes: unreadable ones never cost a model load
    labels = list(options.vocabulary())
    partial = Path(str(out) + PARTIAL_SUFFIX)
    out.parent.mkdir(parents=True, exist_ok=True)
    fresh = not partial.exists() or partial.stat().st_size == 0
    done = {}
    with partial.open("a", encoding="utf-8") as log:
        if fresh:
            _append(log, {"info": info})
        for path in tqdm(todo, desc="annotate", unit="photo", disable=not progress):
            name = path.relative_to(root).as_posix()
            try:
                pixels = decode_photo(path.read_bytes(), name)
            except (UserError, OSError) as exc:
                logger.warning(f"skipped {name}: {exc}")
                continue
            if not models:
                models += [Detector(options.detector), Segmenter(options.segmenter) if options.segmenter else None]
            detector, segmenter = models
            found = nms(clipped(detector(pixels, labels, options.absent_threshold), pixels.shape), options.nms_iou)
            masks = segmenter(pixels, [d.box for d in found]) if segmenter and found else [None] * len(found)
            record = {"file": name, "height": int(pixels.shape[0]), "width": int(pixels.shape[1]),
                      "objects": [_object(d, m) for d, m in zip(found, masks)]}
            _append(log, record)
            done[name] = record
    return done


def clipped(detections: list, shape: tuple[int, ...]) -> list:
    """The detections with their boxes cut to the photo; those left with no area dropped."""
    from dicobench.kit.photos.detectors import Detection

    h, w = shape[:2]
    out = []
    for d in detections:
        x0, y0, x1, y1 = max(d.box[0], 0), max(d.box[1], 0), min(d.box[2], w), min(d.box[3], h)
        if x1 - x0 >= 1 and y1 - y0 >= 1:
            out.append(Detection(d.label, d.score, (x0, y0, x1, y1)))
    return out


def _append(log, entry: dict) -> None:
    log.write(json.dumps(entry) + "\n")
    log.flush()
    os.fsync(log.fileno())


def _object(det, mask: np.ndarray | None) -> dict:
    x0, y0, x1, y1 = det.box
    obj = {"label": det.label, "score": round(det.score, 4),
           "box": [round(x0, 2), round(y0, 2), round(x1 - x0, 2), round(y1 - y0, 2)]}
    if mask is not None and mask.any():
        from pycocotools import mask as mask_utils

        rle = mask_utils.encode(np.asfortranarray(mask.astype(np.uint8)))
        obj["rle"] = {"size": [int(v) for v in rle["size"]], "counts": rle["counts"].decode("ascii")}
        obj["area"] = int(mask.sum())
    return obj


def _resume(out: Path, info: dict) -> dict:
    """Per-photo records already made with the same options: from a finished `out`, then from
    its partial log (a line cut off by a kill is dropped: that photo is annotated again)."""
    records = {}
    if out.exists():
        data = _read_json(out)
        if data.get("info") != info:
            raise UserError(f"{out} was annotated with other models, thresholds or labels; choose another --out")
        names = {c["id"]: c["name"] for c in data["categories"]}
        for img in data["images"]:
            records[img["file_name"]] = {"file": img["file_name"], "height": img["height"], "width": img["width"],
                                         "objects": []}
        by_id = {img["id"]: img["file_name"] for img in data["images"]}
        for ann in data["annotations"]:
            obj = {"label": names[ann["category_id"]], "score": ann["score"], "box": ann["bbox"]}
            if ann.get("segmentation"):
                obj.update(rle=ann["segmentation"], area=ann["area"])
            records[by_id[ann["image_id"]]]["objects"].append(obj)
    partial = Path(str(out) + PARTIAL_SUFFIX)
    if partial.exists():
        lines = read_lines(partial)
        entries = []
        for line in lines:
            try:
                entries.append(json.loads(line))
            except ValueError:
                break  # the line a kill cut off, and nothing after it
        if entries and entries[0].get("info") != info:
            raise UserError(f"{partial} was started with other models, thresholds or labels; "
                            "remove it or use the same options")
        records.update({e["file"]: e for e in entries[1:]})
        if len(entries) < len(lines):
            partial.write_text("".join(json.dumps(e) + "\n" for e in entries), encoding="utf-8")
    return records


def _read_json(path: Path) -> dict:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(data, dict) or not all(isinstance(data.get(k), list)
                                                 for k in ("images", "annotations", "categories")):
            raise ValueError("not a COCO instances file")
        return data
    except ValueError as exc:
        raise UserError(f"{path}: cannot resume from it ({exc})") from None


def _write_coco(out: Path, info: dict, records: list[dict]) -> None:
    categories = {name: i for i, name in enumerate(info["labels"], 1)}
    images, annotations = [], []
    for image_id, record in enumerate(records, 1):
        images.append({"id": image_id, "file_name": record["file"], "width": record["width"],
                       "height": record["height"]})
        for obj in record["objects"]:
            ann = {"id": len(annotations) + 1, "image_id": image_id, "category_id": categories[obj["label"]],
                   "bbox": obj["box"], "area": obj.get("area", round(obj["box"][2] * obj["box"][3], 2)),
                   "segmentation": obj.get("rle", []), "iscrowd": 0, "score": obj["score"]}
            if obj["score"] < info["score_threshold"]:
                ann["ignore"] = 1
            annotations.append(ann)
    data = {"info": info, "licenses": [], "images": images, "annotations": annotations,
            "categories": [{"id": i, "name": n} for n, i in categories.items()]}
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(out.name + ".tmp")
    tmp.write_text(json.dumps(data), encoding="utf-8")
    os.replace(tmp, out)
