"""What planning a build costs before its first row: time and peak memory against the count asked.

Runs `dicobench.build` (per task) and `multipanelvqa.build` (images per source) into a temporary
folder with the shard jobs handed to a stand-in engine that only counts them, so what is measured
is the planning (manifest, missing shards, jobs) and one shard's letter schedule, which every
worker computes over the task's whole count. Prints each count's figures with ratios against the
smallest, measured in this process (tracemalloc slows the planning about twice). The builds refuse
counts over their limits (`dicobench.build_config.MAX_PER_TASK`,
`multipanelvqa.build_config.MAX_IMAGES`).

    python benchmarks/bench_plan.py [--counts 96,10000,100000,1000000]
"""

from __future__ import annotations

import argparse
import importlib
import tempfile
import time
import tracemalloc
from pathlib import Path


def measure(fn) -> tuple[float, float, int]:
    """(seconds, peak MiB traced, jobs planned) of `fn(run_jobs stand-in)`."""
    planned = []
    tracemalloc.start()
    t = time.perf_counter()
    fn(lambda fn, jobs, total, desc, run: planned.append(len(jobs)))
    seconds = time.perf_counter() - t
    peak = tracemalloc.get_traced_memory()[1] / 2**20
    tracemalloc.stop()
    return seconds, peak, sum(planned)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--counts", default="96,10000,100000,1000000")
    args = ap.parse_args()
    dico = importlib.import_module("dicobench.build")  # the modules (the packages export `build`, a function)
    mpv = importlib.import_module("multipanelvqa.build")
    from dicobench.generate import letter_schedule
    from multipanelvqa.build_config import MAX_IMAGES

    counts = [int(c) for c in args.counts.split(",")]
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for n in counts:
            def dico_plan(stand_in, n=n):
                dico.run_jobs, dico.write_card = stand_in, lambda out: None
                dico.build(Path(tmp) / f"d{n}", per_task=n, num_proc=1, progress=False, overwrite=True)
                letter_schedule("attribute", n, 0, "test")  # what each of its shards computes once

            def mpv_plan(stand_in, n=n):
                mpv.run_jobs, mpv.write_card = stand_in, lambda out: None
                mpv.build(Path(tmp) / f"m{n}", images=n, num_proc=1, progress=False, overwrite=True)

            rows.append((n, measure(dico_plan), measure(mpv_plan) if n <= MAX_IMAGES else None))
    base = rows[0]
    print(f"{'count':>9} | {'dicobench plan s':>16} {'MiB':>7} {'jobs':>7} {'x time':>7} {'x MiB':>6} | "
          f"{'multipanelvqa plan s':>20} {'MiB':>7} {'jobs':>6} {'x time':>7} {'x MiB':>6}")
    for n, d, m in rows:
        line = f"{n:>9} | {d[0]:>16.2f} {d[1]:>7.1f} {d[2]:>7} {d[0] / base[1][0]:>7.1f} {d[1] / base[1][1]:>6.1f} | "
        print(line + (f"{m[0]:>20.2f} {m[1]:>7.1f} {m[2]:>6} {m[0] / base[2][0]:>7.1f} {m[1] / base[2][1]:>6.1f}"
                      if m else f"{'refused (over --images ' + str(MAX_IMAGES) + ')':>50}"))


if __name__ == "__main__":
    main()
