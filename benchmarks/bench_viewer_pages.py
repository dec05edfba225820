"""Bytes per row and encode time of lossless image encodings, against the Dataset Viewer's page limit.

The Hub's Dataset Viewer reads 100 rows at once and refuses pages above about 300 MB. This
script builds a few rows of one task, decodes their images and re-encodes each one losslessly
with PNG compress levels 1 (what builds write by default), 3, 6 and 9, PNG level 9 with
Pillow's `optimize`, and lossless WebP at two efforts, checks that every encoding decodes to
the same pixels, and prints per encoding the bytes per row, the size of a 100-row page, and the
encode time per image (one process). Row groups of r rows make the viewer read up to 100 + r
rows for a page, so the page estimate for row groups of 8 (what shards use) is also shown.

    python benchmarks/bench_viewer_pages.py [--task commonality_reasoning] [--rows 2]
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

VIEWER_PAGE_ROWS = 100
VIEWER_LIMIT = 300e6
ROW_GROUP = 8
ENCODINGS = {
    "png-1 (default)": ("PNG", {"compress_level": 1}),
    "png-3": ("PNG", {"compress_level": 3}),
    "png-6": ("PNG", {"compress_level": 6}),
    "png-9": ("PNG", {"compress_level": 9}),
    "png-9 optimize": ("PNG", {"compress_level": 9, "optimize": True}),
    "webp lossless m0": ("WEBP", {"lossless": True, "method": 0, "quality": 0}),
    "webp lossless m4": ("WEBP", {"lossless": True, "method": 4, "quality": 50}),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--task", default="commonality_reasoning")
    parser.add_argument("--rows", type=int, default=2)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        out = build(Path(tmp) / "b", per_task=args.rows, tasks=[args.task], num_proc=1, progress=False)
        table = pq.read_table(next((out / args.task).glob("test-*.parquet")), columns=["image_a", "image_b"])
    images = [np.asarray(Image.open(io.BytesIO(cell["bytes"])).convert("RGB"))
              for column in ("image_a", "image_b") for cell in table.column(column).to_pylist()]
    sides = [max(i.shape[:2]) for i in images]
    print(f"{args.task}: {len(images)} images of {args.rows} rows, long side {min(sides)}-{max(sides)} px")
    print(f"{'encoding':18} {'MB/row':>7} {'100-row page MB':>16} {'page+row group MB':>18} {'s/image':>8}")
    for name, (fmt, options) in ENCODINGS.items():
        sizes, seconds = [], []
        for pixels in images:
            buf = io.BytesIO()
            start = time.perf_counter()
            Image.fromarray(pixels).save(buf, format=fmt, **options)
            seconds.append(time.perf_counter() - start)
            assert np.array_equal(np.asarray(Image.open(io.BytesIO(buf.getvalue())).convert("RGB")), pixels), name
            sizes.append(len(buf.getvalue()))
        per_row = sum(sizes) / args.rows
        page = VIEWER_PAGE_ROWS * per_row
        flag = "" if (VIEWER_PAGE_ROWS + ROW_GROUP) * per_row < VIEWER_LIMIT else "  over the limit"
        print(f"{name:18} {per_row / 1e6:7.2f} {page / 1e6:16.0f} {(VIEWER_PAGE_ROWS + ROW_GROUP) * per_row / 1e6:18.0f} "
              f"{np.mean(seconds):8.2f}{flag}")


if __name__ == "__main__":
    main()
