"""`multipanelvqa score PREDICTIONS.jsonl --dataset DIR [--judge openai:MODEL]`: scores.json, charts, table."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from benchkit.cli import http_url, output_folder, positive_int
from benchkit.errors import UserError
from benchkit.plots import bars
from benchkit.predictions import align, load_references, read_predictions
from multipanelvqa.scoring import default_cache_dir, score


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "score",
        help="score a predictions file against a MultipanelVQA dataset",
        description="Score answers by rules, then (with --judge) ask an LLM judge about the rest; write "
        "scores.json and charts, and print a table. Rows the judge could not answer are reported as "
        "unjudged, never counted wrong.",
    )
    p.add_argument("predictions", type=Path, help="JSON Lines file, one {\"id\", \"response\"} object per line")
    p.add_argument("--dataset", required=True, help="dataset folder (or Hub repo id)")
    p.add_argument("--config", default="all", help="an augmentation config or 'all' (default)")
    p.add_argument("--split", default="test", help="split to score (default test)")
    p.add_argument("--out", type=Path, help="output folder (default: PREDICTIONS without suffix + '.scores')")
    p.add_argument("--judge", help="openai:<model>: judge rule mismatches with this model (default: rules only)")
    p.add_argument("--judge-base-url", type=http_url, help="OpenAI-compatible endpoint, e.g. http://127.0.0.1:8000/v1 (vLLM)")
    p.add_argument("--judge-api-key", help="API key (prefer the OPENAI_API_KEY environment variable)")
    p.add_argument("--judge-cache", type=Path, help=f"judge reply cache folder (default: {default_cache_dir()})")
    p.add_argument("--judge-concurrency", type=positive_int, default=8, help="judge requests in flight (default 8)")
    p.add_argument("--cluster-by", default="none", help="column grouping correlated rows for the CIs (default none)")
    p.add_argument("--n-boot", type=int, default=2000, help="bootstrap resamples for the CIs")
    p.set_defaults(func=run_score)


def run_score(args: argparse.Namespace) -> int:
    if args.out is not None and args.out.exists() and not args.out.is_dir():
        raise UserError(f"--out {args.out} exists and is not a folder")
    if args.judge_cache is not None and args.judge_cache.exists() and not args.judge_cache.is_dir():
        raise UserError(f"--judge-cache {args.judge_cache} exists and is not a folder")
    predictions = read_predictions(args.predictions)
    wanted = ["id", "question_type", "question", "answer", "choices", "subset", "augmentation"]
    if args.cluster_by != "none":
        wanted.append(args.cluster_by)
    ref = load_references(args.dataset, args.config, args.split, wanted)
    for column in ("id", "question_type", "question", "answer"):
        if column not in ref:
            raise UserError(f"dataset {args.dataset} has no {column!r} column: is it a MultipanelVQA dataset?")
    if args.cluster_by != "none" and args.cluster_by not in ref:
        raise UserError(f"--cluster-by {args.cluster_by!r}: the dataset has no such column")
    responses = align(predictions, ref["id"], f"{args.dataset} ({args.config}/{args.split})")
    try:
        result = score(
            responses, ref["answer"], ref["question"], ref["question_type"],
            judge=args.judge, judge_base_url=args.judge_base_url, judge_api_key=args.judge_api_key,
            cache_dir=args.judge_cache, choices=ref.get("choices"), augmentations=ref.get("augmentation"),
            subsets=ref.get("subset"), clusters=ref[args.cluster_by] if args.cluster_by != "none" else None,
            judge_concurrency=args.judge_concurrency,
            n_boot=args.n_boot,
        )
    except ValueError as exc:
        raise UserError(str(exc)) from None
    out = output_folder(args.out or args.predictions.with_suffix(".scores"))
    report = {"benchmark": "multipanelvqa", "predictions": str(args.predictions), "dataset": str(args.dataset),
              "config": args.config, "split": args.split, **result}
    (out / "scores.json").write_text(json.dumps(report, indent=2) + "\n")
    charts = [bars(result["per_question_type"], out / "per_question_type.png", "MultipanelVQA by question type")]
    if result["per_augmentation"]:
        charts.append(bars(result["per_augmentation"], out / "per_augmentation.png", "MultipanelVQA by augmentation"))
    print(format_table(result))
    print(f"wrote {out / 'scores.json'} and {', '.join(c.name for c in charts)}")
    return 0


def _pct(value) -> str:
    return "-" if value is None else f"{100 * value:.1f}"


def format_table(result: dict) -> str:
    rows = [("group", "n", "scored", "acc %", f"{round(100 * result['confidence'])}% CI")]
    sections = (("", result["per_question_type"]), ("subset ", result["per_subset"]),
                ("augmentation ", result["per_augmentation"]))
    for prefix, groups in sections:
        for key, g in groups.items():
            ci = f"[{_pct(g['ci'][0])}, {_pct(g['ci'][1])}]" if g["ci"] else ""
            rows.append((prefix + key, str(g["n"]), str(g["scored"]), _pct(g["accuracy"]), ci))
    ci = result["accuracy_ci"]
    rows.append(("overall", str(result["n"]), str(result["scored"]), _pct(result["accuracy"]),
                 f"[{_pct(ci[0])}, {_pct(ci[1])}]" if ci else ""))
    widths = [max(len(r[i]) for r in rows) for i in range(5)]
    lines = ["  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths))) for r in rows]
    lines.insert(1, "-" * len(lines[0]))
    judge = result["judge"] or "none (rules only)"
    lines.append(
        f"rules: {result['rule_correct']} correct, {result['rule_wrong']} wrong, {result['rule_undecided']} undecided; "
        f"judge {judge}: {result['judged']} judged, {result['unjudged']} unjudged (left out of accuracy)"
    )
    if result["judge_usage"]:
        u = result["judge_usage"]
        lines.append(f"judge tokens: {u['prompt_tokens']} prompt, {u['completion_tokens']} completion; "
                     f"{u['requests']} requests, {u['cache_hits']} from cache")
    return "\n".join(lines)
