"""Ray engine against the local engine on the same machine: rows/s and peak memory.

Each build runs in a fresh interpreter, as a user would run it, at two sizes (4x apart),
with the same shards for both engines. Prints rows/s of both engines, Ray's overhead ratio
(Ray build time over local build time, on a started Ray; target <= 1.3), the one-off Ray
start time, and the peak RSS of the largest process of each build, sampled over the whole
process tree (driver, workers, Ray's daemons; target: flat, <= 1.3x for 4x the rows).
Ray Data starts one task before it knows a task's output size, so its fixed cost is about
one shard: small shards keep a small benchmark representative of a large build.

    python benchmarks/bench_scale.py [--per-task 4] [--rows-per-shard 4] [--num-proc 2]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

BUILD = """
import threading, time
import psutil
from dicobench import build
peak = [0]
def sample():
    me = psutil.Process()
    while True:
        for p in [me] + me.children(recursive=True):
            try:
                peak[0] = max(peak[0], p.memory_info().rss)
            except psutil.Error:
                pass
        time.sleep(0.1)
threading.Thread(target=sample, daemon=True).start()
start = 0.0
if {engine!r} == "ray":
    import ray
    t = time.perf_counter()
    ray.init(num_cpus={p}, include_dashboard=False, logging_level="ERROR")
    start = time.perf_counter() - t
t = time.perf_counter()
build({out!r}, per_task={n}, rows_per_shard={rps}, num_proc={p}, engine={engine!r}, progress=False)
print(time.perf_counter() - t, start, peak[0] / 2**20)
"""


def run_build(out: Path, engine: str, per_task: int, rows_per_shard: int, num_proc: int) -> tuple[float, float, float]:
    """(build seconds, Ray start seconds, peak RSS MiB of the largest process)."""
    code = BUILD.format(out=str(out), n=per_task, rps=rows_per_shard, p=num_proc, engine=engine)
    proc = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True)
    wall, start, rss = map(float, proc.stdout.split()[-3:])
    return wall, start, rss


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--per-task", type=int, default=4)
    parser.add_argument("--rows-per-shard", type=int, default=4)
    parser.add_argument("--num-proc", type=int, default=os.cpu_count() or 1)
    args = parser.parse_args()
    rows_per_task = {"small": args.per_task, "large": 4 * args.per_task}
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        for size, n in rows_per_task.items():
            for engine in ("local", "ray"):
                results[engine, size] = run_build(Path(tmp) / f"{engine}-{size}", engine, n, args.rows_per_shard,
                                                  args.num_proc)
    for size, n in rows_per_task.items():
        rows = 8 * n
        (local, _, _), (ray, start, _) = results["local", size], results["ray", size]
        print(f"{rows} rows on {args.num_proc} CPUs: local {rows / local:.2f} rows/s ({local:.1f} s), "
              f"ray {rows / ray:.2f} rows/s ({ray:.1f} s, plus {start:.1f} s to start Ray); "
              f"overhead ratio {ray / local:.2f} (target <= 1.3)")
    for engine in ("local", "ray"):
        small, large = results[engine, "small"][2], results[engine, "large"][2]
        print(f"{engine}: peak RSS of the largest process {small:.0f} MiB at {8 * args.per_task} rows, "
              f"{large:.0f} MiB at {32 * args.per_task}, growth {large / small:.2f}x (target <= 1.3)")


if __name__ == "__main__":
    main()
