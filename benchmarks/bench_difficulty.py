"""How hard a preset is, without a model: per task, the descriptors of `dicobench.descriptors`
(cue share, changed pixels and their contrast, pixels still visibly different after shrinking
the pair to 448/1024/2048 px; for commonality rows the shared object's size and its decoys),
and for difference rows the same pixel counts per edit kind (recolour, part, move, paw prints,
...), with the share of part edits and of rows whose true option's states have decoys; for a
preset and, built in the same process for comparison, `easy` and the preset without part edits
and decoys (`--parts 0 --decoys 0`: the previous release's rows of that preset, the same images, options and
answers; only their `generator` column calls the preset custom).

    python benchmarks/bench_difficulty.py [--difficulty hard] [--per-task 8] [--num-proc 2] [--tasks ...]
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
from pathlib import Path

from dicobench import build
from dicobench.descriptors import VIEW_SIDES, summary
from dicobench.schema import track_of


def measure(difficulty: str, per_task: int, num_proc: int, tasks: str | None, axes: dict | None = None
            ) -> dict[str, list[dict]]:
    """Descriptors of every row of a fresh build that has some, by task (read back from the shard stats)."""
    with tempfile.TemporaryDirectory() as tmp:
        out = build(Path(tmp) / "b", per_task=per_task, num_proc=num_proc, tasks=tasks, difficulty=difficulty,
                    axes=axes, progress=False)
        by_task: dict[str, list[dict]] = {}
        for side in sorted(Path(out).glob("*/.stats/*.parquet.json")):
            stats = json.loads(side.read_text())
            by_task.setdefault(stats["task"], []).extend(d for d in stats.get("descriptors", []) if d)
        return by_task


def report(name: str, by_task: dict[str, list[dict]]) -> None:
    print(f"\n== {name}")
    for task, rows in by_task.items():
        print(f"{task:22s} " + ", ".join(f"{k} {v:.4g}" if isinstance(v, float) else f"{k} {v}"
                                         for k, v in summary(rows).items()))
    diff = [r for t, rows in by_task.items() if track_of(t) == "difference" for r in rows if "visible" in r]
    if diff:
        line = ", ".join(f"@{s} {statistics.median(r['visible_at'][str(s)] for r in diff):.0f}" for s in VIEW_SIDES)
        print(f"difference, all {len(diff)} rows: "
              f"visible px median {statistics.median(r['visible'] for r in diff):.0f} "
              f"(min {min(r['visible'] for r in diff)}) at full size; {line}")
        kinds: dict[str, list[dict]] = {}
        for r in diff:
            kinds.setdefault(r.get("edit") or "?", []).append(r)
        for kind, rows in sorted(kinds.items()):
            print(f"  {kind:12s} {len(rows):3d} rows: "
                  f"visible px median {statistics.median(r['visible'] for r in rows):.0f} "
                  f"at full size, {statistics.median(r['visible_at']['1024'] for r in rows):.0f} @1024, "
                  f"{statistics.median(r['visible_at']['448'] for r in rows):.0f} @448")
        attribute = [r for r in by_task.get("attribute", []) if "visible" in r]
        if attribute:
            print(f"part edits: {sum(r.get('edit') in ('part', 'turn') for r in attribute)} of {len(attribute)} "
                  f"attribute rows with a change ({sum(r.get('edit') == 'turn' for r in attribute)} of them turns)")
    decoyed = [r for t, rows in by_task.items() if track_of(t) == "difference" for r in rows if "decoys_before" in r]
    if decoyed:
        both = sum(r["decoys_before"] > 0 and r["decoys_after"] > 0 for r in decoyed)
        print(f"decoys of both states the true option names: {both} of {len(decoyed)} difference rows (E rows too)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--difficulty", default="hard")
    ap.add_argument("--per-task", type=int, default=8)
    ap.add_argument("--num-proc", type=int, default=2)
    ap.add_argument("--tasks", default=None)
    args = ap.parse_args()
    for name in dict.fromkeys(["easy", args.difficulty]):
        report(name, measure(name, args.per_task, args.num_proc, args.tasks))
    if args.difficulty != "easy":
        report(f"{args.difficulty} without part edits and decoys (the previous release's)",
               measure(args.difficulty, args.per_task, args.num_proc, args.tasks, {"parts": 0, "decoys": 0}))


if __name__ == "__main__":
    main()
