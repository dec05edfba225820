"""People's verdicts on an annotation file's objects, before any build reads it.

Detections are a model's guesses: `dicobench review --dataset annotations.json` shows each object (its box
and mask drawn on its photo, on demand) and records accept / reject beside the file, in
`<file>.review.jsonl` (`{"annotation", "file_name", "verdict", "reviewer", "time"}` per line, the
latest line for an annotation wins). `coco:` sources drop rejected annotations: a wrong detection
never becomes an object, an option or a reason to call a photo free of a name.
"""

from __future__ import annotations

import io
import json
import time
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw

from dicobench.kit.io.jsonl import read_lines

VERDICTS = ("accept", "reject")
PAD = 0.5  # context around the box, in box sizes


def review_path(annotations: str | Path) -> Path:
    path = Path(annotations).expanduser()
    return path.with_name(path.name.removesuffix(".json") + ".review.jsonl")


def verdicts(annotations: str | Path) -> dict[int, str]:
    """Annotation id -> its latest verdict (lines that do not parse are ignored)."""
    path = review_path(annotations)
    out: dict[int, str] = {}
    if not path.exists():
        return out
    for line in read_lines(path):
        try:
            entry = json.loads(line)
            if entry["verdict"] in VERDICTS:
                out[int(entry["annotation"])] = entry["verdict"]
        except (ValueError, KeyError, TypeError):
            continue
    return out


def rejected(annotations: str | Path) -> frozenset[int]:
    return frozenset(i for i, v in verdicts(annotations).items() if v == "reject")


def record(annotations: str | Path, annotation: int, file_name: str, verdict: str, reviewer: str) -> dict:
    """Append a verdict (on disk before it returns)."""
    if verdict not in VERDICTS:
        raise ValueError(f"verdict must be one of {', '.join(VERDICTS)}, got {verdict!r}")
    from dicobench.kit.people.decisions import check_reviewer

    check_reviewer(reviewer)
    entry = {"annotation": annotation, "file_name": file_name, "verdict": verdict, "reviewer": reviewer,
             "time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
    with review_path(annotations).open("a", encoding="utf-8") as log:
        log.write(json.dumps(entry) + "\n")
    return entry


def drawn(pixels: np.ndarray, box, mask: np.ndarray | None) -> bytes:
    """PNG of the object's surroundings with its mask tinted and its box drawn."""
    h, w = pixels.shape[:2]
    x, y, bw, bh = (int(round(v)) for v in box)
    px, py = int(bw * PAD) + 8, int(bh * PAD) + 8
    x0, y0, x1, y1 = max(x - px, 0), max(y - py, 0), min(x + bw + px, w), min(y + bh + py, h)
    view = pixels[y0:y1, x0:x1].astype(np.float32)
    if mask is not None:
        inside = mask[y0:y1, x0:x1]
        view[inside] = view[inside] * 0.55 + np.array([255, 40, 200], np.float32) * 0.45
    image = Image.fromarray(np.clip(view, 0, 255).astype(np.uint8))
    ImageDraw.Draw(image).rectangle([x - x0, y - y0, x - x0 + bw - 1, y - y0 + bh - 1], outline=(255, 230, 0), width=2)
    buf = io.BytesIO()
    image.save(buf, format="PNG")
    return buf.getvalue()
