"""Speed of the difference track from photos (classical edits), against the procedural track.

Writes scikit-image's bundled photos, upscaled to a 2048 px long side, to a folder, builds the
four difference tasks from it and from the scene engine with the same options, and prints
rows/s of each, the ratio photo / procedural, and the rejection and skip counts the build
recorded (a photo with too few editable regions costs retries).

    python benchmarks/bench_photos.py [--per-task 8] [--num-proc 2]
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from collections import Counter
from pathlib import Path

from PIL import Image
from skimage import data

from dicobench import build

PHOTOS = ("astronaut", "coffee", "chelsea", "rocket", "hubble_deep_field", "immunohistochemistry")
TASKS = "attribute,entity,spatial_relation,difference_reasoning"


def write_photos(root: Path, long_side: int = 2048) -> None:
    root.mkdir()
    for name in PHOTOS:
        image = Image.fromarray(getattr(data, name)())
        scale = long_side / max(image.size)
        image.resize((round(image.width * scale), round(image.height * scale)), Image.Resampling.LANCZOS).save(root / f"{name}.png")


def timed_build(out: Path, **kwargs) -> tuple[float, Counter]:
    start = time.perf_counter()
    build(out, tasks=TASKS, progress=False, **kwargs)
    seconds = time.perf_counter() - start
    rejections = Counter()
    for sidecar in out.glob("*/.stats/*.json"):
        rejections.update(json.loads(sidecar.read_text())["rejections"])
    return seconds, rejections


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--per-task", type=int, default=8)
    parser.add_argument("--num-proc", type=int, default=os.cpu_count() or 1)
    args = parser.parse_args()
    rows = 4 * args.per_task
    with tempfile.TemporaryDirectory() as tmp:
        photos = Path(tmp) / "photos"
        write_photos(photos)
        common = dict(per_task=args.per_task, num_proc=args.num_proc)
        procedural, _ = timed_build(Path(tmp) / "procedural", **common)
        photo, rejections = timed_build(Path(tmp) / "photos-build", source=f"folder:{photos}", **common)
    print(f"{rows} rows on {args.num_proc} processes")
    print(f"procedural: {procedural:.1f} s ({rows / procedural:.2f} rows/s)")
    print(f"photos:     {photo:.1f} s ({rows / photo:.2f} rows/s); photo / procedural time {photo / procedural:.2f}")
    print("photo rejections and skips:", dict(sorted(rejections.items())) or "none")


if __name__ == "__main__":
    main()
