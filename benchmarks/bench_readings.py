"""How readers who did not know the answers read a build, at a glance and carefully.

The readings are recorded in benchmarks/readings/ (one JSON object per line: the row's `id` and
`digest`, the `protocol`, the `reader` and their `response`; the protocols are in that folder's
README). Without `--readings`, the recorded file of the build's benchmark is read:

    python benchmarks/bench_readings.py --dataset dicobench-data
    python benchmarks/bench_readings.py --dataset mpv-data

A reading counts only where the build holds the row it was made on: the row's content digest
(`RowStore.digest`, the one review decisions bind to: its images' bytes, question, options and
answer, labels as names) must match, so a build with other options, or a row drawn again since,
is reported and left out, never scored as read. Responses are scored with the benchmark's own
rules (DiCoBench's letter reading, MultipanelVQA's rule verdicts). A row read by several readers
counts once, as the mean of its readings; intervals are Wilson score intervals over the rows.
"""

from __future__ import annotations

import argparse
import math
import sys
from collections import defaultdict
from pathlib import Path

from dicobench.kit.errors import UserError
from dicobench.kit.io.jsonl import read_objects
from dicobench.kit.io.rowstore import RowStore, config_folders

HERE = Path(__file__).parent / "readings"
FIELDS = ("id", "digest", "protocol", "reader", "response")
PAPERS = {  # the papers' figures, printed under the tables
    "dicobench": "the paper: people 98.3%, the best model 58.1%",
    "multipanelvqa": "the paper: people 96%, GPT-4o 75.5% on its synthetic subset",
}


def read_readings(path: Path) -> list[dict]:
    try:
        readings = read_objects(path, lambda r: all(isinstance(r.get(k), str) for k in FIELDS[:4]),
                                f"a reading (string {', '.join(FIELDS[:4])} and a response)")
    except (OSError, UnicodeDecodeError) as err:
        raise UserError(f"{path}: cannot read the readings ({err})") from None
    if not readings:
        raise UserError(f"{path}: no readings")
    return readings


def read_rows(dataset: Path) -> tuple[str, RowStore]:
    """The benchmark the build is of (by its manifest folder) and its rows, each with the content
    digest review decisions bind to (`RowStore.digest`: labels as names, images as stored)."""
    from dicobench.benchmark import BENCHMARK as DICOBENCH
    from multipanelvqa.benchmark import BENCHMARK as MULTIPANELVQA

    for benchmark in (DICOBENCH, MULTIPANELVQA):
        if (dataset / benchmark.manifest_dir).is_dir():
            spec = benchmark.people
            return benchmark.name, RowStore(dataset, config_folders(dataset, "all", spec.configs), spec.image_columns)
    raise UserError(f"{dataset}: neither a DiCoBench nor a MultipanelVQA build (no manifest folder)")


def verdicts(benchmark: str, readings: list[dict], rows: dict[str, dict]) -> list[bool]:
    """Each reading right or wrong by the benchmark's scoring rules."""
    if benchmark == "dicobench":
        from dicobench.scoring import read_letters, reference_letter
        letters = read_letters([r["response"] for r in readings], [rows[r["id"]]["options"] for r in readings])
        return [letter == reference_letter(rows[r["id"]]["answer"]) for letter, r in zip(letters, readings)]
    from multipanelvqa.scoring import decide
    found = [rows[r["id"]] for r in readings]
    return [bool(v) for v in decide([r["response"] for r in readings], [row["answer"] for row in found],
                                    [row["question"] for row in found], [row["question_type"] for row in found],
                                    choices=[row["choices"] or [] for row in found])]


def groups(benchmark: str, row: dict) -> list[str]:
    """The lines of the table a row counts in, besides the overall one."""
    if benchmark == "dicobench":
        from dicobench.schema import track_of
        from dicobench.scoring import task_name
        task = task_name(row["task"])
        return [f"track {track_of(task)}", task]
    return [row["question_type"]]


def wilson(accuracy: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """The 95% Wilson score interval of an accuracy over `n` rows: where every row was read right a
    bootstrap gives 100-100%, which says nothing of the misses a larger sample could hold."""
    centre = (accuracy + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(accuracy * (1 - accuracy) / n + z * z / (4 * n * n))
    return max(0.0, centre - half), min(1.0, centre + half)


def tally(benchmark: str, readings: list[dict], rows: dict[str, dict]) -> dict[str, dict[str, dict]]:
    """Per protocol and line of the table: rows, readings, the mean of each row's readings and its interval."""
    right = verdicts(benchmark, readings, rows)
    per_row: dict[str, dict[str, list[bool]]] = defaultdict(lambda: defaultdict(list))
    for reading, ok in zip(readings, right):
        per_row[reading["protocol"]][reading["id"]].append(ok)
    table: dict[str, dict[str, dict]] = {}
    for protocol, found in per_row.items():
        lines: dict[str, list[float]] = defaultdict(list)
        counts: dict[str, int] = defaultdict(int)
        for key, oks in found.items():
            for line in ["all", *groups(benchmark, rows[key])]:
                lines[line].append(sum(oks) / len(oks))
                counts[line] += len(oks)
        table[protocol] = {}
        for line, values in sorted(lines.items(), key=_order):
            accuracy = sum(values) / len(values)
            table[protocol][line] = {"rows": len(values), "readings": counts[line], "right": sum(values),
                                     "accuracy": accuracy, "ci": wilson(accuracy, len(values))}
    return table


def _order(item: tuple[str, list]) -> tuple[int, str]:
    """The overall line first, then the tracks, then the rest by name."""
    line = item[0]
    return (0 if line == "all" else 1 if line.startswith("track ") else 2, line)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dataset", type=Path, required=True, help="the build that was read")
    ap.add_argument("--readings", type=Path, help="a readings file (default: the recorded one of the build's "
                    "benchmark, benchmarks/readings/BENCHMARK-hard-seed0.jsonl)")
    args = ap.parse_args(argv)
    try:
        benchmark, store = read_rows(args.dataset)
        readings = read_readings(args.readings or HERE / f"{benchmark}-hard-seed0.jsonl")
    except UserError as err:
        print(f"error: {err}", file=sys.stderr)
        raise SystemExit(2) from None
    rows = store.rows
    held = [r["id"] in rows and store.digest(r["id"]) == r["digest"] for r in readings]
    current = [r for r, ok in zip(readings, held) if ok]
    left = [r for r, ok in zip(readings, held) if not ok]
    print(f"{benchmark}: {len(readings)} readings of {len({r['id'] for r in readings})} rows; "
          f"{len(current)} are of rows this build holds as they were read")
    if left:
        ids = sorted({r["id"] for r in left})
        print(f"left out: {len(left)} readings of {len(ids)} rows this build lacks or drew otherwise "
              f"({', '.join(ids[:3])}{', ...' if len(ids) > 3 else ''})")
    if not current:
        return
    for protocol, table in tally(benchmark, current, rows).items():
        readers = len({r["reader"] for r in current if r["protocol"] == protocol})
        print(f"\n{protocol} ({readers} readers)")
        print(f"  {'':28s} {'rows':>5s} {'readings':>9s} {'right':>7s} {'accuracy':>9s}  95% interval")
        for line, s in table.items():
            ci = f"{100 * s['ci'][0]:.1f}-{100 * s['ci'][1]:.1f}%"
            print(f"  {line:28s} {s['rows']:>5d} {s['readings']:>9d} {s['right']:>7.1f} "
                  f"{100 * s['accuracy']:>8.1f}%  {ci}")
    print(f"\n{PAPERS[benchmark]}")


if __name__ == "__main__":
    main()
