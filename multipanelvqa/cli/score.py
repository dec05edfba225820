"""`multipanelvqa score PREDICTIONS.jsonl --dataset DIR [--judge openai:MODEL]`: scores.json, charts, table.

A thin layer over `multipanelvqa.score_predictions` (multipanelvqa.results) and `write_report`."""

from __future__ import annotations

import argparse
from pathlib import Path

from dicobench.kit.cli.commands import add_score_arguments
from dicobench.kit.cli.report import html_after_score
from dicobench.kit.cli.scoring import add_judge_arguments, check_out, finish, judge_from_args
from dicobench.kit.io.outputs import output_file
from multipanelvqa.benchmark import BENCHMARK
from multipanelvqa.views import VIEWS

JUDGE_HELP = "judge the answers the rules cannot settle with this model, as the paper does (default: rules only)"


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "score",
        help="score a predictions file against a MultipanelVQA dataset",
        description="Score answers by rules, then (with --judge) ask an LLM judge about the rest; write "
        "scores.json and charts, and print a table. Rows the judge could not answer (or the model did "
        "not) are unscored: the result is then incomplete, reports accuracy bounds and exits 1.",
    )
    add_score_arguments(p, "an augmentation config or 'all' (default)")
    add_judge_arguments(p, JUDGE_HELP)
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
    from multipanelvqa.results import score_predictions  # deferred: `multipanelvqa --help` imports no scoring

    check_out(args.out)
    html = output_file(args.html, "--html") if args.html else None  # a folder in the way: refused before scoring
    report = score_predictions(args.predictions, args.dataset, config=args.config, split=args.split, name=args.name,
                               model=args.model, cluster_by=args.cluster_by, judge=judge_from_args(args),
                               view=args.view, require_singles=args.require_singles,
                               factors=args.factors.split(",") if args.factors else None, n_boot=args.n_boot,
                               limit=args.limit, allow_partial=args.allow_partial)
    out = args.out or args.predictions.with_suffix(".scores")
    status = finish(report, out, "multipanelvqa")
    if html:
        html_after_score(BENCHMARK, out, html, args.dataset)
    return status
