"""Bytes per row and build time per task and difficulty preset, against the Dataset Viewer's page limit.

The Hub's Dataset Viewer reads 100 rows at once and refuses pages above about 300 MB; builds
keep a row within `dicobench.kit.release.viewer.ROW_BUDGET` (a 100-row page within `PAGE_BUDGET`). Per
preset this script times a tiny build of every task with the build's defaults, prints each
task's bytes per row as written (Arrow bytes of its shards over their rows) and the 100-row page,
then decodes those images and re-encodes each one losslessly with PNG compress levels 1, 3, 6
and 9, level 9 with Pillow's `optimize`, and lossless WebP, checking that every encoding
decodes to the same pixels, and prints per encoding the bytes per row and the encode time per
image (one process). Row groups of r rows make the viewer read up to 100 + r rows for a page,
so the page estimate for the shards' row groups (8 rows) is shown too.

    python benchmarks/bench_viewer_pages.py [--difficulty easy,hard,extreme] [--rows 2] [--tasks ...]
        [--compress-level N] [--encodings]
"""

from __future__ import annotations

import argparse
import io
import tempfile
import time
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
from PIL import Image

from dicobench import build
from dicobench.kit.release.viewer import PAGE_BUDGET, VIEWER_PAGE_ROWS, bytes_per_row

ROW_GROUP = 8
ENCODINGS = {
    "png-1": ("PNG", {"compress_level": 1}),
    "png-3": ("PNG", {"compress_level": 3}),
    "png-6": ("PNG", {"compress_level": 6}),
    "png-9": ("PNG", {"compress_level": 9}),
    "png-9 optimize": ("PNG", {"compress_level": 9, "optimize": True}),
    "webp lossless m4": ("WEBP", {"lossless": True, "method": 4, "quality": 50}),
}


def encodings(images: list[bytes], rows: int) -> None:
    pixels = [np.asarray(Image.open(io.BytesIO(b)).convert("RGB")) for b in images]
    for name, (fmt, options) in ENCODINGS.items():
        sizes, seconds = [], []
        for p in pixels:
            buf = io.BytesIO()
            start = time.perf_counter()
            Image.fromarray(p).save(buf, format=fmt, **options)
            seconds.append(time.perf_counter() - start)
            assert np.array_equal(np.asarray(Image.open(io.BytesIO(buf.getvalue())).convert("RGB")), p), name
            sizes.append(len(buf.getvalue()))
        per_row = sum(sizes) / rows
        print(f"    {name:16} {per_row / 1e6:6.2f} MB/row  page {VIEWER_PAGE_ROWS * per_row / 1e6:4.0f} MB  "
              f"page+row group {(VIEWER_PAGE_ROWS + ROW_GROUP) * per_row / 1e6:4.0f} MB  "
              f"{np.mean(seconds):5.2f} s/image")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--difficulty", default="easy,hard,extreme")
    parser.add_argument("--rows", type=int, default=2)
    parser.add_argument("--tasks", default=None)
    parser.add_argument("--compress-level", type=int, default=None, help="default: the build's (the difficulty's)")
    parser.add_argument("--encodings", action="store_true", help="also re-encode every task's images losslessly")
    args = parser.parse_args()
    for difficulty in args.difficulty.split(","):
        with tempfile.TemporaryDirectory() as tmp:
            start = time.perf_counter()
            out = build(Path(tmp) / "b", per_task=args.rows, tasks=args.tasks, difficulty=difficulty,
                        compress_level=args.compress_level, num_proc=1, progress=False)
            seconds = time.perf_counter() - start
            print(f"== {difficulty}: build {seconds:.0f} s "
                  f"({seconds / args.rows:.1f} s per row of each task, one process)")
            for config in sorted(p for p in Path(out).iterdir() if p.is_dir() and not p.name.startswith(".")):
                per_row = bytes_per_row(config)
                flag = "" if VIEWER_PAGE_ROWS * per_row <= PAGE_BUDGET else "  OVER THE BUDGET"
                print(f"  {config.name:22} {per_row / 1e6:5.2f} MB/row  "
                      f"page {VIEWER_PAGE_ROWS * per_row / 1e6:4.0f} MB{flag}")
                if args.encodings:
                    images = [cell["bytes"] for shard in sorted(config.glob("*.parquet"))
                              for column in pq.read_table(shard, columns=["image_a", "image_b"]).columns
                              for cell in column.to_pylist()]
                    encodings(images, len(images) // 2)


if __name__ == "__main__":
    main()
