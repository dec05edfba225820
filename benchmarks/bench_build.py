"""Build speed and memory of `dicobench build`, against PNG-encoding the same images.

Prints, at two sizes (rows per task: `--per-task` and 4x that, or `--sizes`), rows/s, CPU seconds per row, and the
ratio of build time (process start included) to the floor: the time it takes just to PNG-encode the
images the build wrote with Pillow at level 1 (the cheapest lossless encoding), on the same
number of processes, measured in the same run (target <= 3); the same ratio in CPU seconds
(steadier on a machine other jobs share); and the peak RSS of the largest
build process (target: <= 1.3x from the first size to the last).

    python benchmarks/bench_build.py [--per-task 4 | --sizes 12 96] [--num-proc 2] [--tasks attribute,...]
                                     [--difficulty hard|easy|extreme ...] [--canvas 7680 8192]
    python benchmarks/bench_build.py --scale [--per-task 4] [--split-rows 100000]

Several `--difficulty` presets are measured one after the other. `--scale` measures rows per
second per core on 1, 2 and all cores (local engine) and on a local Ray with all cores, and
projects the cores (and 16-core machines) that build a `--split-rows` training split in a day.
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
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
from PIL import Image

from dicobench.kit.engines.local import keep_freed_memory

BUILD = (
    "import resource; from dicobench import build; "
    "build({out!r}, per_task={n}, num_proc={p}, difficulty={d!r}, axes={axes!r}, tasks={tasks!r}, engine={engine!r}, "
    "progress=False); "
    "print(max(resource.getrusage(w).ru_maxrss for w in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)))"
)
RAY = ("import ray; ray.init(num_cpus={p}, include_dashboard=False, logging_level='ERROR'); ")


@dataclass(frozen=True)
class Run:
    wall: float  # seconds, interpreter start included
    cpu: float  # user + system seconds of the build and all its processes
    rss: float  # MiB, the largest process (main or worker)


def run_build(out: Path, per_task: int, num_proc: int, difficulty: str = "hard", tasks: str | None = None,
              engine: str = "local", axes: dict | None = None) -> Run:
    """A build run in a fresh interpreter, as a user would run it."""
    code = (RAY.format(p=num_proc) if engine == "ray" else "") + BUILD.format(
        out=str(out), n=per_task, p=num_proc, d=difficulty, axes=axes, tasks=tasks, engine=engine)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return Run(wall, cpu, int(proc.stdout.split()[-1]) / 1024)


def _encode(job: tuple[np.ndarray, int]) -> float:
    """CPU seconds to encode one image."""
    pixels, level = job
    start = time.process_time()
    Image.fromarray(pixels).save(io.BytesIO(), format="PNG", compress_level=level)
    return time.process_time() - start


def written_images(out: Path) -> list[np.ndarray]:
    images = []
    for shard in sorted(out.glob("*/test-*.parquet")):
        table = pq.read_table(shard, columns=["image_a", "image_b"])
        for a, b in zip(*(table.column(c).to_pylist() for c in ("image_a", "image_b"))):
            images.append(np.asarray(Image.open(io.BytesIO(a["bytes"])).convert("RGB")))
            if b["bytes"] != a["bytes"]:  # an E pair without cameras encodes one image and reuses it
                images.append(np.asarray(Image.open(io.BytesIO(b["bytes"])).convert("RGB")))
    return images


def encode_time(images: list[np.ndarray], num_proc: int, level: int) -> tuple[float, float]:
    """Wall and CPU seconds to encode `images` on `num_proc` processes."""
    jobs = [(image, level) for image in images]
    with mp.get_context("spawn").Pool(num_proc, initializer=keep_freed_memory) as pool:  # as a build's workers
        pool.map(_encode, jobs[:num_proc])  # warm the workers
        start = time.perf_counter()
        cpu = sum(pool.map(_encode, jobs, chunksize=1))
        return time.perf_counter() - start, cpu


FLOOR_LEVEL = 1  # Pillow's cheapest lossless encoding


def rows_of(out: Path) -> int:
    return sum(pq.ParquetFile(f).metadata.num_rows for f in out.glob("*/test-*.parquet"))


def measure(difficulty: str, sizes: list[int], num_proc: int, tasks: str | None, axes: dict | None = None) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        # Build first: a child's peak RSS counts its parent's size at fork, so the parent
        # must not hold decoded images yet.
        builds = []
        for k, per_task in enumerate(sizes):
            out = Path(tmp) / f"build{k}"
            builds.append((per_task, out, run_build(out, per_task, num_proc, difficulty, tasks, axes=axes)))
        for per_task, out, run in builds:
            rows = rows_of(out)
            images = written_images(out)
            floor, floor_cpu = encode_time(images, num_proc, FLOOR_LEVEL)
            del images
            size = sum(f.stat().st_size for f in out.glob("*/test-*.parquet")) / rows / 2**20
            print(f"build: {rows} rows in {run.wall:.1f} s = {rows / run.wall:.2f} rows/s on {num_proc} processes, "
                  f"{run.cpu / rows:.2f} CPU s per row, {size:.2f} MiB per row; PNG-encoding its images at level "
                  f"{FLOOR_LEVEL} (the floor): {floor:.1f} s ({floor_cpu:.1f} CPU s); ratio {run.wall / floor:.2f} "
                  f"(target <= 3), in CPU seconds {run.cpu / floor_cpu:.2f}")
        (small, _, first), (large, _, last) = builds[0], builds[-1]
        print(f"peak RSS of the largest build process: {first.rss:.0f} MiB at {small} rows per task, "
              f"{last.rss:.0f} MiB at {large}, growth {last.rss / first.rss:.2f}x (target <= 1.3)")


def scale(per_task: int, split_rows: int, tasks: str | None) -> None:
    """Rows/s per core on 1, 2 and all cores, local and Ray, and the cores a split needs."""
    cores = os.cpu_count() or 1
    runs = [("local", p) for p in sorted({1, min(2, cores), cores})] + [("ray", cores)]
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        for engine, p in runs:
            out = Path(tmp) / f"{engine}-{p}"
            run = run_build(out, per_task, p, tasks=tasks, engine=engine)
            rows = rows_of(out)
            results[engine, p] = run, rows
            # Ray's workers are its daemons' children, not this build's: their CPU time is not counted
            cpu = f", {run.cpu / rows:.2f} CPU s per row" if engine == "local" else ""
            print(f"{engine} engine, {p} core{'s' * (p > 1)}: {rows} rows in {run.wall:.1f} s"
                  f"{' (Ray start included)' if engine == 'ray' else ''} = {rows / run.wall:.3f} rows/s, "
                  f"{rows / run.wall / p:.3f} rows/s per core{cpu}")
    (local, rows), (ray, _) = results["local", cores], results["ray", cores]
    print(f"Ray over local on {cores} cores: {ray.wall / local.wall:.2f}x the time")
    per_core = rows / local.wall / cores  # every core busy, as on a cluster's machines
    cpu_per_row = local.cpu / rows
    for label, core_hours in ((f"at {per_core:.3f} rows/s per core (all cores busy, this machine)",
                               split_rows / per_core / 3600),
                              (f"at {cpu_per_row:.2f} CPU s per row (cores of one's own)",
                               split_rows * cpu_per_row / 3600)):
        print(f"a {split_rows}-row training split {label}: {core_hours:.0f} core-hours; "
              f"in a day {core_hours / 24:.1f} cores, in 8 hours {core_hours / 8:.1f} cores "
              f"({-(-core_hours / 8 // 16):.0f} 16-core machines)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--per-task", type=int, default=4,
                        help="rows per task: the smaller build (the larger has 4x), or each --scale build")
    parser.add_argument("--sizes", type=int, nargs=2, help="rows per task of the two builds (instead of N and 4N)")
    parser.add_argument("--num-proc", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--tasks", help="comma-separated tasks (default: all eight)")
    parser.add_argument("--difficulty", nargs="+", default=["hard"], help="presets to measure (default hard)")
    parser.add_argument("--canvas", type=int, nargs=2, metavar=("MIN", "MAX"),
                        help="canvas long sides apart from the preset's (an 8K row: 7680 8192)")
    parser.add_argument("--scale", action="store_true",
                        help="rows/s per core by cores and engine, and a cluster's size")
    parser.add_argument("--split-rows", type=int, default=100_000,
                        help="the training split --scale sizes a cluster for")
    args = parser.parse_args()
    if args.scale:
        scale(args.per_task, args.split_rows, args.tasks)
        return
    for difficulty in args.difficulty:
        print(f"== difficulty {difficulty}")
        axes = {"min_canvas": args.canvas[0], "max_canvas": args.canvas[1]} if args.canvas else None
        measure(difficulty, args.sizes or [args.per_task, 4 * args.per_task], args.num_proc, args.tasks, axes)


if __name__ == "__main__":
    main()
