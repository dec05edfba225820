"""`multipanelvqa score PREDICTIONS.jsonl --dataset DIR [--judge openai:MODEL]`: scores.json, charts, table."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from dicobench.kit.eval import provenance
from dicobench.kit.people import study_scores as study
from dicobench.kit.eval.completeness import exit_status, format_value, interval, percent, text_table
from dicobench.kit.cli.commands import (PARTIAL_REMEDY, add_score_arguments, http_url, output_folder, partial_reason,
                                   positive_int)
from dicobench.kit.errors import UserError
from dicobench.kit.report.plots import bars, deltas
from dicobench.kit.report.plots import lines as line_chart
from dicobench.kit.io.predictions import join, load_references, read_records, read_sample, texts
from multipanelvqa.schema import QUESTION_TYPES
from multipanelvqa.scoring import decide, default_cache_dir, score
from multipanelvqa.singles import controlled
from multipanelvqa.views import VIEWS, targets_one


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "score",
        help="score a predictions file against a MultipanelVQA dataset",
        description="Score answers by rules, then (with --judge) ask an LLM judge about the rest; write "
        "scores.json and charts, and print a table. Rows the judge could not answer (or the model did "
        "not) are unscored: the result is then incomplete, reports accuracy bounds and exits 1.",
    )
    add_score_arguments(p, "an augmentation config or 'all' (default)")
    p.add_argument("--judge", help="openai:<model>: judge rule mismatches with this model (default: rules only)")
    p.add_argument("--judge-base-url", type=http_url, help="OpenAI-compatible endpoint, e.g. http://127.0.0.1:8000/v1 (vLLM)")
    p.add_argument("--judge-api-key", help="API key (prefer the OPENAI_API_KEY environment variable)")
    p.add_argument("--judge-cache", type=Path, help=f"judge reply cache folder (default: {default_cache_dir()})")
    p.add_argument("--judge-concurrency", type=positive_int, default=8, help="judge requests in flight (default 8)")
    p.add_argument("--judge-timeout", type=float, default=60.0, help="seconds per judge request (default 60)")
    p.add_argument("--cluster-by", default="none", help="column grouping correlated rows for the CIs (default none)")
    p.add_argument("--view", choices=VIEWS,
                   help="the eval view the answers were given in (default: from run.json beside PREDICTIONS, else "
                        "full); isolated and single score only the questions that target one subfigure (Q2)")
    p.add_argument("--require-singles", type=Path, metavar="SINGLES",
                   help="predictions of `eval --view single` on the same dataset: also report the accuracy on the "
                        "image sets whose target subfigure the model answered right alone (the paper's control)")
    p.add_argument("--factors", help="comma-separated interference factors to compare (each must be present; "
                                     "default: every factor whose configs are in the predictions)")
    p.set_defaults(func=run_score)


def run_score(args: argparse.Namespace) -> int:
    if args.out is not None and args.out.exists() and not args.out.is_dir():
        raise UserError(f"--out {args.out} exists and is not a folder")
    if args.judge_cache is not None and args.judge_cache.exists() and not args.judge_cache.is_dir():
        raise UserError(f"--judge-cache {args.judge_cache} exists and is not a folder")
    records = read_records(args.predictions)
    wanted = ["id", "question_type", "question", "answer", "choices", "subset", "augmentation", "layout_style",
              "num_subfigures", "source"]
    if args.cluster_by != "none":
        wanted.append(args.cluster_by)
    ref = load_references(args.dataset, args.config, args.split, wanted)
    for column in ("id", "question_type", "question", "answer"):
        if column not in ref:
            raise UserError(f"dataset {args.dataset} has no {column!r} column: is it a MultipanelVQA dataset?")
    if args.cluster_by != "none" and args.cluster_by not in ref:
        raise UserError(f"--cluster-by {args.cluster_by!r}: the dataset has no such column")
    settings = provenance.run_settings(args.predictions)
    view = args.view or settings.get("view") or "full"
    if view != "full":  # the isolation ablation asked only the questions that target one subfigure
        keep = [i for i, q in enumerate(ref["question_type"]) if targets_one(_qtype(q))]
        ref = {column: [values[i] for i in keep] for column, values in ref.items()}
    sample = read_sample(args.predictions)
    ref, responses, unscored = join(records, ref, f"{args.dataset} ({args.config}/{args.split}, view {view})", sample,
                                    limit=args.limit, allow_partial=args.allow_partial)
    missing = 0 if sample is not None else sum(i not in records for i in ref["id"])
    try:
        kept = _controlled(args, ref) if args.require_singles else None
        result = score(
            responses, ref["answer"], ref["question"], ref["question_type"],
            judge=args.judge, judge_base_url=args.judge_base_url, judge_api_key=args.judge_api_key,
            cache_dir=args.judge_cache, choices=ref.get("choices"), augmentations=ref.get("augmentation"),
            subsets=ref.get("subset"), clusters=ref[args.cluster_by] if args.cluster_by != "none" else None,
            failed=unscored, ids=ref["id"], layout_styles=ref.get("layout_style"),
            num_subfigures=ref.get("num_subfigures"), sources=ref.get("source"),
            factors=args.factors.split(",") if args.factors else None, controlled=kept, judge_concurrency=args.judge_concurrency, judge_timeout=args.judge_timeout, n_boot=args.n_boot,
        )
    except ValueError as exc:
        raise UserError(str(exc)) from None
    out = output_folder(args.out or args.predictions.with_suffix(".scores"))
    name = args.name or args.predictions.stem
    made = provenance.record(
        model=args.model or settings.get("model") or study.model(sample), name=name, dataset=str(args.dataset),
        config=args.config, split=args.split, view=view,
        prompt_hash=settings.get("prompt_hash"), judge=args.judge, seed=0, n_boot=args.n_boot,
        rows={c: ref[c] for c in ("id", "question_type", "question", "answer")},
    )
    report = {"benchmark": "multipanelvqa", "predictions": str(args.predictions), "dataset": str(args.dataset),
              "config": args.config, "split": args.split, **result, **({"missing": missing} if missing else {}),
              **study.about(sample), "provenance": made}
    (out / "scores.json").write_text(json.dumps(report, indent=2) + "\n")
    charts = [bars(result["per_question_type"], out / "per_question_type.png", "MultipanelVQA by question type")]
    if result["per_augmentation"]:
        charts.append(bars(result["per_augmentation"], out / "per_augmentation.png", "MultipanelVQA by augmentation"))
    if len(result["per_num_subfigures"]) > 1:
        charts.append(line_chart({name: result["per_num_subfigures"]}, out / "per_num_subfigures.png",
                            "MultipanelVQA by number of subfigures", xlabel="subfigures"))
    if result["factors"]:
        charts.append(deltas({name: {f["factor"]: f for f in result["factors"]}}, out / "factors.png",
                             "MultipanelVQA interference factors"))
    print(format_table(result))
    print(f"wrote {out / 'scores.json'} and {', '.join(c.name for c in charts)}")
    unanswered, remedy = (study.UNFINISHED if sample is not None else
                          ("model calls failed", "failed model calls: rerun eval with the same --out"))
    failed = result["failed"] - missing
    reasons = ", ".join(part for part in (f"{result['unjudged']} unjudged" if result["unjudged"] else "",
                                          f"{failed} {unanswered}" if failed else "", partial_reason(missing)) if part)
    if not (result["unjudged"] or failed):
        return exit_status(result, reasons, PARTIAL_REMEDY, "multipanelvqa")
    return exit_status(result, reasons, "rerun the same command to resume: judged rows come from the cache "
                                        f"({remedy})", "multipanelvqa")


def _controlled(args: argparse.Namespace, ref: dict) -> list[bool]:
    """The rows kept by the singles control; singles of rows outside these Q2 questions are refused."""
    singles = read_records(args.require_singles)
    index = {key: i for i, key in enumerate(ref["id"])}
    outside = [key for key in singles if key not in index or _qtype(ref["question_type"][index[key]]) != "q2"]
    if outside:
        raise UserError(f"--require-singles {args.require_singles}: {len(outside)} answers are not of Q2 questions of "
                        f"{args.dataset} ({args.config}/{args.split}), e.g. {outside[0]!r}: give `eval --view single` "
                        "predictions of the same dataset")
    rows = [index[key] for key in singles]
    verdicts = decide(list(texts(singles).values()), [ref["answer"][i] for i in rows],
                      [ref["question"][i] for i in rows], ["q2"] * len(rows), args.judge,
                      args.judge_base_url, args.judge_api_key, args.judge_cache,
                      failed=[singles[k][1] is not None for k in singles], judge_concurrency=args.judge_concurrency,
                      judge_timeout=args.judge_timeout)
    augs = ref.get("augmentation") or [""] * len(ref["id"])
    return controlled(ref["id"], augs, list(singles), [augs[i] for i in rows], verdicts)


def _qtype(value) -> str:
    return QUESTION_TYPES[value] if isinstance(value, int) else value


def format_table(result: dict) -> str:
    rows = [("group", "n", "scored", "acc %", f"{round(100 * result['confidence'])}% CI")]
    sections = (("", result["per_question_type"]), ("subset ", result["per_subset"]),
                ("augmentation ", result["per_augmentation"]), ("layout ", result["per_layout_style"]),
                ("subfigures ", result["per_num_subfigures"]), ("source ", result["per_source"]))
    for prefix, groups in sections:
        for key, g in groups.items():
            rows.append((prefix + key, str(g["n"]), str(g["scored"]), format_value(g), interval(g["ci"])))
    if result.get("controlled"):
        g = result["controlled"]
        rows.append(("controlled (singles right)", str(g["n"]), str(g["scored"]), format_value(g), interval(g["ci"])))
    rows.append(("overall", str(result["n"]), str(result["scored"]), format_value(result),
                 interval(result["accuracy_ci"])))
    lines = text_table(rows, result)
    judge = result["judge"] or "none (rules only)"
    lines.append(
        f"rules: {result['rule_correct']} correct, {result['rule_wrong']} wrong, {result['rule_undecided']} undecided; "
        f"judge {judge}: {result['judged']} judged, {result['unjudged']} unjudged (unscored)"
    )
    for f in result["factors"]:
        ci = interval(f["delta_ci"])
        lines.append(f"factor {f['factor']}: {f['base']} {percent(f['base_accuracy'])}% -> {f['variant']} "
                     f"{percent(f['variant_accuracy'])}% (delta {percent(f['delta'])} points {ci}, n={f['n']}"
                     + (", paired)" if f["paired"] else ", unpaired)")
                     + (f" ({f['unscored']} unscored pairs left out)" if f["unscored"] else ""))
    if result["judge_usage"]:
        u = result["judge_usage"]
        lines.append(f"judge tokens: {u['prompt_tokens']} prompt, {u['completion_tokens']} completion; "
                     f"{u['requests']} requests, {u['cache_hits']} from cache")
    return "\n".join(lines)
