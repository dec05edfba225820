"""Text-only baselines per task: how often each strategy of `dicobench.shortcuts` (reading the
options alone, never the images) picks the right letter, against chance (20%) and the band
chance stays under over that many rows (3.3 standard deviations).

    python benchmarks/bench_text_only.py [--dataset BUILD] [--difficulty hard] [--per-task 40] [--num-proc 2]

Without `--dataset` it builds a fresh default benchmark of that size in a temporary folder.
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

import pyarrow.parquet as pq

from dicobench import build
from dicobench.shortcuts import STRATEGIES, text_only


def read_rows(root: Path) -> list[dict]:
    return [row for f in sorted(root.glob("*/*.parquet"))
            for row in pq.read_table(f, columns=["task", "options", "answer"]).to_pylist()]


def report(scores: dict[str, dict]) -> None:
    names = list(STRATEGIES)
    print(f"{'task':22s} {'n':>4s} {'band %':>7s} " + " ".join(f"{n:>18s}" for n in names))
    for task, s in scores.items():
        flags = [f"{100 * s[n]:>17.1f}{'!' if s[n] > s['band'] else ' '}" for n in names]
        print(f"{task:22s} {s['n']:>4d} {100 * s['band']:>7.1f} " + " ".join(flags))
    print("chance 20.0%; '!' marks a strategy above the band (a text shortcut)")


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dataset", type=Path, default=None, help="a build to read (default: build one)")
    ap.add_argument("--difficulty", default="hard")
    ap.add_argument("--per-task", type=int, default=40)
    ap.add_argument("--num-proc", type=int, default=2)
    args = ap.parse_args(argv)
    if args.dataset is not None:
        report(text_only(read_rows(args.dataset)))
        return
    with tempfile.TemporaryDirectory() as tmp:
        out = build(Path(tmp) / "b", per_task=args.per_task, num_proc=args.num_proc, difficulty=args.difficulty,
                    progress=False)
        report(text_only(read_rows(Path(out))))


if __name__ == "__main__":
    main()
