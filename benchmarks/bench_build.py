"""Build speed and memory of `dicobench build`, against PNG-encoding the same images.

Prints, at two sizes (4x apart), rows/s and the ratio of build time (process start
included) to the time it takes just to PNG-encode the images the build wrote (at the PNG level
the build wrote them with: the preset's `png_level`), on
the same number of processes (target <= 4), and the peak RSS of the largest build process
(target: <= 1.3x for 4x the rows).

    python benchmarks/bench_build.py [--per-task 4] [--num-proc 2] [--difficulty hard|easy|extreme ...]

Several `--difficulty` presets are measured one after the other.
"""

from __future__ import annotations

import argparse
import io
import multiprocessing as mp
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
from PIL import Image

from benchkit.scene.difficulty import preset

BUILD = (
    "import resource; from dicobench import build; "
    "build({out!r}, per_task={n}, num_proc={p}, difficulty={d!r}, progress=False); "
    "print(max(resource.getrusage(w).ru_maxrss for w in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)))"
)


def run_build(out: Path, per_task: int, num_proc: int, difficulty: str = "hard") -> tuple[float, float]:
    """Wall seconds and peak RSS (MiB) of the largest process (main or worker) of a build
    run in a fresh interpreter, as a user would run it."""
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", BUILD.format(out=str(out), n=per_task, p=num_proc, d=difficulty)],
                          check=True, capture_output=True, text=True)
    wall = time.perf_counter() - start
    return wall, int(proc.stdout.split()[-1]) / 1024


def _encode(job: tuple[np.ndarray, int]) -> int:
    pixels, level = job
    buf = io.BytesIO()
    Image.fromarray(pixels).save(buf, format="PNG", compress_level=level)
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


def encode_time(images: list[np.ndarray], num_proc: int, level: int) -> float:
    jobs = [(image, level) for image in images]
    with mp.get_context("spawn").Pool(num_proc) as pool:
        pool.map(_encode, jobs[:num_proc])  # warm the workers
        start = time.perf_counter()
        pool.map(_encode, jobs, chunksize=1)
        return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--per-task", type=int, default=4)
    parser.add_argument("--num-proc", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--difficulty", nargs="+", default=["hard"], help="presets to measure (default hard)")
    args = parser.parse_args()
    for difficulty in args.difficulty:
        print(f"== difficulty {difficulty}")
        measure(difficulty, args.per_task, args.num_proc)


def measure(difficulty: str, per_task: int, num_proc: int) -> None:
    level = preset(difficulty).png_level
    with tempfile.TemporaryDirectory() as tmp:
        # Build first: a child's peak RSS counts its parent's size at fork, so the parent
        # must not hold decoded images yet.
        builds = []
        for scale in (1, 4):
            out = Path(tmp) / f"x{scale}"
            builds.append((out, *run_build(out, scale * per_task, num_proc, difficulty)))
        for out, wall, _ in builds:
            rows = sum(pq.ParquetFile(f).metadata.num_rows for f in out.glob("*/test-*.parquet"))
            images = written_images(out)
            baseline = encode_time(images, num_proc, level)
            del images
            size = sum(f.stat().st_size for f in out.glob("*/test-*.parquet")) / rows / 2**20
            print(f"build: {rows} rows in {wall:.1f} s = {rows / wall:.2f} rows/s on {num_proc} processes, "
                  f"{size:.1f} MiB per row; "
                  f"PNG-encoding its images (level {level}): {baseline:.1f} s; ratio {wall / baseline:.2f} (target <= 4)")
        (_, _, rss_small), (_, _, rss_large) = builds
        print(f"peak RSS of the largest build process: {rss_small:.0f} MiB at {per_task} rows per task, "
              f"{rss_large:.0f} MiB at {4 * per_task}, growth {rss_large / rss_small:.2f}x (target <= 1.3)")


if __name__ == "__main__":
    main()
