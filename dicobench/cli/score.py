"""`dicobench score PREDICTIONS.jsonl --dataset DIR`: scores.json, PNG charts and a table."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from dicobench.kit.eval import provenance
from dicobench.kit.people import study_scores as study
from dicobench.kit.eval.completeness import exit_status, format_value, interval, percent, text_table
from dicobench.kit.cli.commands import PARTIAL_REMEDY, add_score_arguments, http_url, output_folder, partial_reason
from dicobench.kit.errors import UserError
from dicobench.kit.report.plots import bars, radar, stacked_shares
from dicobench.analysis import ERROR_TYPES
from dicobench.error_judge import JUDGE_TYPES
from dicobench.kit.io.predictions import join, load_references, read_records, read_sample
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
    add_score_arguments(p, "a task name or 'all' (default)")
    p.add_argument("--cluster-by", default="auto",
                   help="column grouping correlated rows for the CIs: auto (base, else source), a column, or none")
    add_judge_arguments(p)
    p.set_defaults(func=run_score)


def add_judge_arguments(p: argparse.ArgumentParser) -> None:
    """The error-analysis judge's options (shared with eval, which passes them on to score)."""
    p.add_argument("--judge", help="openai:<model>: classify each wrong answer into the paper's error types from its "
                                   "reply and the row's cues (for replies of --mode describe)")
    p.add_argument("--judge-base-url", type=http_url, help="the judge's OpenAI-compatible endpoint (default OpenAI)")
    p.add_argument("--judge-api-key", help="the judge's API key (prefer the OPENAI_API_KEY environment variable)")
    p.add_argument("--judge-cache", type=Path, help="judge reply cache folder (default ~/.cache/dicobench/judge)")


def run_score(args: argparse.Namespace) -> int:
    if args.config not in CONFIGS:
        raise UserError(f"unknown task or config {args.config!r}; expected one of {', '.join(CONFIGS)}")
    if args.out is not None and args.out.exists() and not args.out.is_dir():
        raise UserError(f"--out {args.out} exists and is not a folder")
    records = read_records(args.predictions)
    wanted = ["id", "task", "answer", "options", *CLUSTER_COLUMNS] + (["question", "cues"] if args.judge else [])
    if args.cluster_by not in ("auto", "none"):
        wanted.append(args.cluster_by)
    ref = load_references(args.dataset, args.config, args.split, wanted)
    for column in ("id", "task", "answer"):
        if column not in ref:
            raise UserError(f"dataset {args.dataset} has no {column!r} column: is it a DiCoBench dataset?")
    cluster_by = _cluster_column(args.cluster_by, ref)
    sample = read_sample(args.predictions)
    ref, responses, unscored = join(records, ref, f"{args.dataset} ({args.config}/{args.split})", sample,
                                    limit=args.limit, allow_partial=args.allow_partial)
    missing = 0 if sample is not None else sum(i not in records for i in ref["id"])
    try:
        result = score(responses, ref["answer"], ref["task"], ref.get("options"),
                       ref[cluster_by] if cluster_by else None, failed=unscored,
                       judge=args.judge, questions=ref.get("question"),
                       cue_labels=[[c["label"] for c in cues] for cues in ref["cues"]] if args.judge else None,
                       judge_base_url=args.judge_base_url, judge_api_key=args.judge_api_key,
                       cache_dir=args.judge_cache, n_boot=args.n_boot)
    except ValueError as exc:
        raise UserError(str(exc)) from None
    out = output_folder(args.out or args.predictions.with_suffix(".scores"))
    name = args.name or args.predictions.stem
    settings = provenance.run_settings(args.predictions)
    made = provenance.record(
        model=args.model or settings.get("model") or study.model(sample), name=name, dataset=str(args.dataset), config=args.config,
        split=args.split, view=settings.get("view", "full"), prompt_hash=settings.get("prompt_hash"),
        judge=args.judge, seed=0, n_boot=args.n_boot, rows={c: ref[c] for c in ("id", "task", "answer")},
    )
    report = {"benchmark": "dicobench", "predictions": str(args.predictions), "dataset": str(args.dataset),
              "config": args.config, "split": args.split, "cluster_by": cluster_by, "mode": settings.get("mode"),
              **result, **({"missing": missing} if missing else {}), **study.about(sample), "provenance": made}
    (out / "scores.json").write_text(json.dumps(report, indent=2) + "\n")
    charts = [bars(result["per_task"], out / "per_task.png", f"DiCoBench: {name}")]
    if len(result["per_task"]) >= 3:
        charts.append(radar({name: result["per_task"]}, out / "radar.png", "DiCoBench accuracy by task"))
    errors = result["error_types"]
    if errors["overall"]["errors"]:
        charts.append(stacked_shares({**errors["per_task"], "overall": errors["overall"]}, out / "error_types.png",
                                     ERROR_TYPES, f"DiCoBench error types: {name}"))
    judged = result["judge_error_types"]
    if judged and any(judged["overall"][k] for k in JUDGE_TYPES):
        charts.append(stacked_shares({**judged["per_task"], "overall": judged["overall"]},
                                     out / "judge_error_types.png", JUDGE_TYPES,
                                     f"DiCoBench error types by {judged['judge']}: {name}"))
    print(format_table(result))
    print(f"wrote {out / 'scores.json'} and {', '.join(c.name for c in charts)}")
    if sample is not None:
        return exit_status(result, *study.UNFINISHED, "dicobench")
    failed = result.get("unscored", 0) - missing
    reasons = "; ".join(filter(None, [partial_reason(missing), failed and f"{failed} model calls failed; the errors "
                                                                       "are in the predictions file"]))
    return exit_status(result, reasons, "rerun eval with the same --out: it keeps the answered rows and asks only "
                                        "these" if failed else PARTIAL_REMEDY, "dicobench")


def _cluster_column(choice: str, ref: dict) -> str | None:
    if choice == "none":
        return None
    if choice == "auto":
        return next((c for c in CLUSTER_COLUMNS if c in ref), None)
    if choice not in ref:
        raise UserError(f"--cluster-by {choice!r}: the dataset has no such column")
    return choice


def format_table(result: dict) -> str:
    rows = [("task", "n", "acc %", f"{round(100 * result['confidence'])}% CI", "strict %")]
    for task in TASKS:
        g = result["per_task"].get(task)
        if g:
            rows.append((task, str(g["n"]), format_value(g), interval(g["ci"]), format_value(g, "strict_accuracy")))
    for track, g in result["per_track"].items():
        rows.append((f"{track} track", str(g["n"]), format_value(g), interval(g["ci"]),
                     format_value(g, "strict_accuracy")))
    rows.append(("overall", str(result["n"]), format_value(result), interval(result["accuracy_ci"]),
                 format_value(result, "strict_accuracy")))
    lines = text_table(rows, result)
    lines.append(
        f"unparsed {percent(result['unparsed_rate'])}%  E chosen {percent(result['e_rate'])}% "
        f"(answer E {percent(result['e_reference_rate'])}%)  E precision {percent(result['e_precision'])}% "
        f"recall {percent(result['e_recall'])}% F1 {percent(result['e_f1'])}%  CIs: {result['ci_method']}, "
        f"{result['n_clusters']} clusters"
    )
    errors = result["error_types"]["overall"]
    lines.append(f"errors: {errors['errors']} (" + ", ".join(f"{k.replace('_', ' ')} {errors[k]}" for k in ERROR_TYPES)
                 + ")")
    judged = result.get("judge_error_types")
    if judged:
        j = judged["overall"]
        lines.append(f"judge {judged['judge']}: " + ", ".join(f"{k.replace('_', ' ')} {j[k]}" for k in JUDGE_TYPES)
                     + f"; {j['unjudged']} unjudged (rerun to retry them: judged ones come from the cache)")
    return "\n".join(lines)
