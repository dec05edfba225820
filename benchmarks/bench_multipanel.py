"""Speed and memory of `multipanelvqa.build`: rows/s and peak resident memory.

    python benchmarks/bench_multipanel.py --layouts 0-20 --num-proc 2 [--difficulty hard]

Peak memory is the largest resident set of the main process and of any worker (ru_maxrss).
"""

from __future__ import annotations

import argparse
import resource
import tempfile
import time
from pathlib import Path

from multipanelvqa.build import build, parse_layouts
from multipanelvqa.difficulty import DEFAULT, PRESETS
from multipanelvqa.generate import SYNTHETIC_CONFIGS


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--layouts", default="0-20", help="layout ids (default 0-20: 21 of 210)")
    parser.add_argument("--num-proc", type=int, default=2)
    parser.add_argument("--sources", default="procedural_edit,procedural_scene")
    parser.add_argument("--difficulty", default=DEFAULT, choices=list(PRESETS),
                        help=f"panel preset (default {DEFAULT})")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        out = build(Path(tmp) / "bench", layouts=args.layouts, num_proc=args.num_proc, sources=args.sources,
                    progress=False, difficulty=args.difficulty)
        seconds = time.perf_counter() - start
        files = list(out.rglob("*.parquet"))
        size = sum(f.stat().st_size for f in files)
    rows_per_config = len(args.sources.split(",")) * 3 * len(parse_layouts(args.layouts, 210))
    rows = rows_per_config * len(SYNTHETIC_CONFIGS)
    peak = max(resource.getrusage(who).ru_maxrss for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)) / 1024
    full = 1260 * len(SYNTHETIC_CONFIGS)
    print(f"{args.difficulty}: {rows} rows ({rows_per_config} per config x {len(SYNTHETIC_CONFIGS)}) "
          f"in {seconds:.1f} s: {rows / seconds:.1f} rows/s, "
          f"{size / rows / 1024:.0f} KiB/row on disk, peak RSS {peak:.0f} MiB; "
          f"full default build ({full} rows) estimated at {full / rows * seconds / 60:.1f} min")


if __name__ == "__main__":
    main()
