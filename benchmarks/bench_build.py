"""Build speed and memory of `dicobench build`, against PNG-encoding the same images.

Prints rows/s, the ratio of build time to the time it takes just to PNG-encode (level 1)
the images the build wrote, on the same number of processes (target <= 4), and the peak
RSS of the largest build process at two sizes (target: <= 1.3x for 4x the rows).

    python benchmarks/bench_build.py [--per-task 4] [--num-proc 2]
"""

from __future__ import annotations

import argparse
import io
import multiprocessing as mp
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
from PIL import Image

BUILD = "from dicobench import build; build({out!r}, per_task={n}, num_proc={p}, progress=False)"


def run_build(out: Path, per_task: int, num_proc: int) -> tuple[float, float]:
    """Wall seconds and peak RSS (MiB) of the largest process of a build run in a child."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", BUILD.format(out=str(out), n=per_task, p=num_proc)], check=True)
    wall = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return wall, max(peak, before) / 1024


def _encode(pixels: np.ndarray) -> int:
    buf = io.BytesIO()
    Image.fromarray(pixels).save(buf, format="PNG", compress_level=1)
    return len(buf.getvalue())


def written_images(out: Path) -> list[np.ndarray]:
    images = []
    for shard in sorted(out.glob("*/test-*.parquet")):
        table = pq.read_table(shard, columns=["image_a", "image_b", "answer"])
        for a, b, answer in zip(*(table.column(c).to_pylist() for c in ("image_a", "image_b", "answer"))):
            images.append(np.asarray(Image.open(io.BytesIO(a["bytes"])).convert("RGB")))
            if answer != 4:  # E pairs encode one image and reuse it
                images.append(np.asarray(Image.open(io.BytesIO(b["bytes"])).convert("RGB")))
    return images


def encode_time(images: list[np.ndarray], num_proc: int) -> float:
    with mp.get_context("spawn").Pool(num_proc) as pool:
        pool.map(_encode, images[:num_proc])  # warm the workers
        start = time.perf_counter()
        pool.map(_encode, images, chunksize=1)
        return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--per-task", type=int, default=4)
    parser.add_argument("--num-proc", type=int, default=os.cpu_count() or 1)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        small, large = Path(tmp) / "small", Path(tmp) / "large"
        wall, rss_small = run_build(small, args.per_task, args.num_proc)
        rows = sum(pq.ParquetFile(f).metadata.num_rows for f in small.glob("*/test-*.parquet"))
        images = written_images(small)
        baseline = encode_time(images, args.num_proc)
        print(f"build: {rows} rows in {wall:.1f} s = {rows / wall:.2f} rows/s on {args.num_proc} processes")
        print(f"PNG-encode baseline: {len(images)} images in {baseline:.1f} s")
        print(f"ratio build / encode: {wall / baseline:.2f} (target <= 4)")
        wall_large, rss_large = run_build(large, 4 * args.per_task, args.num_proc)
        print(f"build x4: {4 * rows} rows in {wall_large:.1f} s = {4 * rows / wall_large:.2f} rows/s")
        print(f"peak RSS: {rss_small:.0f} MiB at {rows} rows, {rss_large:.0f} MiB at {4 * rows} rows, "
              f"growth {rss_large / rss_small:.2f}x (target <= 1.3)")


if __name__ == "__main__":
    main()
