"""`dicobench score PREDICTIONS.jsonl --dataset DIR`: scores.json, PNG charts and a table."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from benchkit.errors import UserError
from benchkit.plots import bars, radar
from benchkit.predictions import align, load_references, read_predictions
from dicobench.schema import CONFIGS, TASKS
from dicobench.scoring import score

# Columns that can group rows built from the same base scene, in order of preference.
CLUSTER_COLUMNS = ("source",)


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "score",
        help="score a predictions file against a DiCoBench dataset",
        description="Read answers from PREDICTIONS (JSON Lines with id and response), score them against "
        "the dataset, write scores.json and charts, and print a per-task table.",
    )
    p.add_argument("predictions", type=Path, help="JSON Lines file, one {\"id\", \"response\"} object per line")
    p.add_argument("--dataset", required=True, help="dataset folder (or Hub repo id)")
    p.add_argument("--config", default="all", help="a task name or 'all' (default)")
    p.add_argument("--split", default="test")
    p.add_argument("--out", type=Path, help="output folder (default: PREDICTIONS without suffix + '.scores')")
    p.add_argument("--cluster-by", default="auto",
                   help="column grouping correlated rows for the CIs: auto (base, else source), a column, or none")
    p.add_argument("--name", help="model name on the charts (default: the predictions file name)")
    p.add_argument("--n-boot", type=int, default=2000, help="bootstrap resamples for the CIs")
    p.set_defaults(func=run_score)


def run_score(args: argparse.Namespace) -> int:
    if args.config not in CONFIGS:
        raise UserError(f"unknown task or config {args.config!r}; expected one of {', '.join(CONFIGS)}")
    predictions = read_predictions(args.predictions)
    wanted = ["id", "task", "answer", "options", *CLUSTER_COLUMNS]
    if args.cluster_by not in ("auto", "none"):
        wanted.append(args.cluster_by)
    ref = load_references(args.dataset, args.config, args.split, wanted)
    for column in ("id", "task", "answer"):
        if column not in ref:
            raise UserError(f"dataset {args.dataset} has no {column!r} column: is it a DiCoBench dataset?")
    cluster_by = _cluster_column(args.cluster_by, ref)
    responses = align(predictions, ref["id"], f"{args.dataset} ({args.config}/{args.split})")
    try:
        result = score(responses, ref["answer"], ref["task"], ref.get("options"),
                       ref[cluster_by] if cluster_by else None, n_boot=args.n_boot)
    except ValueError as exc:
        raise UserError(str(exc)) from None
    out = args.out or args.predictions.with_suffix(".scores")
    out.mkdir(parents=True, exist_ok=True)
    report = {"benchmark": "dicobench", "predictions": str(args.predictions), "dataset": str(args.dataset),
              "config": args.config, "split": args.split, "cluster_by": cluster_by, **result}
    (out / "scores.json").write_text(json.dumps(report, indent=2) + "\n")
    name = args.name or args.predictions.stem
    charts = [bars(result["per_task"], out / "per_task.png", f"DiCoBench: {name}")]
    if len(result["per_task"]) >= 3:
        charts.append(radar({name: {t: g["accuracy"] for t, g in result["per_task"].items()}},
                            out / "radar.png", "DiCoBench accuracy by task"))
    print(format_table(result))
    print(f"wrote {out / 'scores.json'} and {', '.join(c.name for c in charts)}")
    return 0


def _cluster_column(choice: str, ref: dict) -> str | None:
    if choice == "none":
        return None
    if choice == "auto":
        return next((c for c in CLUSTER_COLUMNS if c in ref), None)
    if choice not in ref:
        raise UserError(f"--cluster-by {choice!r}: the dataset has no such column")
    return choice


def _pct(value) -> str:
    return "-" if value is None else f"{100 * value:.1f}"


def _ci(ci) -> str:
    return "" if not ci else f"[{100 * ci[0]:.1f}, {100 * ci[1]:.1f}]"


def format_table(result: dict) -> str:
    rows = [("task", "n", "acc %", f"{round(100 * result['confidence'])}% CI", "strict %")]
    for task in TASKS:
        g = result["per_task"].get(task)
        if g:
            rows.append((task, str(g["n"]), _pct(g["accuracy"]), _ci(g["ci"]), _pct(g["strict_accuracy"])))
    for track, g in result["per_track"].items():
        rows.append((f"{track} track", str(g["n"]), _pct(g["accuracy"]), _ci(g["ci"]), _pct(g["strict_accuracy"])))
    rows.append(("overall", str(result["n"]), _pct(result["accuracy"]), _ci(result["accuracy_ci"]),
                 _pct(result["strict_accuracy"])))
    widths = [max(len(r[i]) for r in rows) for i in range(5)]
    lines = ["  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths))) for r in rows]
    lines.insert(1, "-" * len(lines[0]))
    lines.append(
        f"unparsed {_pct(result['unparsed_rate'])}%  E chosen {_pct(result['e_rate'])}% "
        f"(answer E {_pct(result['e_reference_rate'])}%)  E precision {_pct(result['e_precision'])}% "
        f"recall {_pct(result['e_recall'])}% F1 {_pct(result['e_f1'])}%  CIs: {result['ci_method']}, "
        f"{result['n_clusters']} clusters"
    )
    return "\n".join(lines)
