"""`dicobench score PREDICTIONS.jsonl --dataset DIR`: scores.json, PNG charts and a table.

A thin layer over `dicobench.score_predictions` (dicobench.results) and `write_report`."""

from __future__ import annotations

import argparse

from dicobench.benchmark import BENCHMARK
from dicobench.kit.cli.commands import add_score_arguments
from dicobench.kit.cli.report import html_after_score
from dicobench.kit.cli.scoring import add_judge_arguments, check_out, finish, judge_from_args
from dicobench.kit.io.outputs import output_file

JUDGE_HELP = ("classify each wrong answer into the paper's error types from its reply and the row's cues "
              "(for replies of --mode describe)")


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
    add_judge_arguments(p, JUDGE_HELP)
    p.set_defaults(func=run_score)


def run_score(args: argparse.Namespace) -> int:
    from dicobench.results import score_predictions  # deferred: `dicobench --help` imports no scoring

    check_out(args.out)
    html = output_file(args.html, "--html") if args.html else None  # a folder in the way: refused before scoring
    report = score_predictions(args.predictions, args.dataset, config=args.config, split=args.split, name=args.name,
                               model=args.model, cluster_by=args.cluster_by, judge=judge_from_args(args),
                               n_boot=args.n_boot, limit=args.limit, allow_partial=args.allow_partial)
    out = args.out or args.predictions.with_suffix(".scores")
    status = finish(report, out, "dicobench")
    if html:
        html_after_score(BENCHMARK, out, html, args.dataset)
    return status
