"""Speed of the photo tracks (classical edits), against the procedural track.

Writes scikit-image's bundled photos, upscaled to a 2048 px long side, to a folder, builds the
four difference tasks from it and from the scene engine with the same options, and prints
rows/s of each, the ratio photo / procedural, and the rejection and skip counts the build
recorded (a photo with too few editable regions costs retries). The COCO case writes the test
suite's COCO file (six 1024x768 photos of small segmented objects, a crowd, a large table;
tests/coco_fixtures.py) and builds every photo task from `coco:` (the difference track and
instance and category), printing rows/s per task and the rejection reasons per task.

    python benchmarks/bench_photos.py [--per-task 8] [--num-proc 2]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from PIL import Image
from skimage import data

from dicobench import build

PHOTOS = ("astronaut", "coffee", "chelsea", "rocket", "hubble_deep_field", "immunohistochemistry")
TASKS = "attribute,entity,spatial_relation,difference_reasoning"
COCO_TASKS = TASKS + ",instance,category"


def write_photos(root: Path, long_side: int = 2048) -> None:
    root.mkdir()
    for name in PHOTOS:
        image = Image.fromarray(getattr(data, name)())
        scale = long_side / max(image.size)
        image.resize((round(image.width * scale), round(image.height * scale)),
                     Image.Resampling.LANCZOS).save(root / f"{name}.png")


def timed_build(out: Path, **kwargs) -> tuple[float, Counter]:
    seconds, per_task = timed_tasks(out, TASKS, **kwargs)
    return seconds, sum(per_task.values(), Counter())


def timed_tasks(out: Path, tasks: str, **kwargs) -> tuple[float, dict[str, Counter]]:
    """Build time, and each task's rejection and skip counts from the shards' sidecars."""
    start = time.perf_counter()
    build(out, tasks=tasks, progress=False, **kwargs)
    seconds = time.perf_counter() - start
    per_task: dict[str, Counter] = {}
    for sidecar in out.glob("*/.stats/*.json"):
        stats = json.loads(sidecar.read_text())
        per_task.setdefault(stats["task"], Counter()).update(stats["rejections"])
    return seconds, per_task


def coco_case(tmp: Path, per_task: int, num_proc: int) -> dict[str, tuple[float, Counter]]:
    """Each photo task built alone from the test suite's COCO file: its time and rejections."""
    sys.path.insert(0, str(Path(__file__).parents[1] / "tests"))
    from coco_fixtures import make_coco  # the photos and annotations it writes

    annotations = make_coco(tmp / "coco")
    source = f"coco:{annotations}:{annotations.parent / 'images'}"
    out = {}
    for task in COCO_TASKS.split(","):
        seconds, per = timed_tasks(tmp / f"coco-{task}", task, source=source, min_long_side=768, per_task=per_task,
                                   num_proc=num_proc)
        out[task] = seconds, per.get(task, Counter())
    return out


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
        coco = coco_case(Path(tmp), args.per_task, args.num_proc)
    print(f"{rows} rows on {args.num_proc} processes")
    print(f"procedural: {procedural:.1f} s ({rows / procedural:.2f} rows/s)")
    print(f"photos:     {photo:.1f} s ({rows / photo:.2f} rows/s); photo / procedural time {photo / procedural:.2f}")
    print("photo rejections and skips:", dict(sorted(rejections.items())) or "none")
    print(f"coco, {args.per_task} rows per task (each task built alone; time per row against procedural's):")
    for task, (seconds, rejected) in coco.items():
        print(f"  {task}: {seconds:.1f} s ({args.per_task / seconds:.2f} rows/s; "
              f"x{(seconds / args.per_task) / (procedural / rows):.2f}); "
              "rejections and skips:", dict(sorted(rejected.items())) or "none")


if __name__ == "__main__":
    main()
