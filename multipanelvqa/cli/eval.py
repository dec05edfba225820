"""`multipanelvqa eval --dataset DIR --model hf:ID|openai:MODEL --out DIR [--judge openai:MODEL]`: answer every
question, then score.

A thin layer over `multipanelvqa.evaluate` (multipanelvqa.evaluation), which documents the views;
scoring is by rules, and with `--judge` the paper's LLM judge settles the answers the rules cannot
(as `multipanelvqa score --judge` does afterwards).
"""

from __future__ import annotations

import argparse

from dicobench.kit.cli.evaluation import add_arguments, run_eval
from dicobench.kit.cli.scoring import add_judge_arguments, judge_from_args
from multipanelvqa.cli.score import JUDGE_HELP
from multipanelvqa.evaluation import benchmark, make_prompt, parse
from multipanelvqa.schema import DEFAULT_CONFIG
from multipanelvqa.views import VIEWS

__all__ = ["make_prompt", "parse", "register", "run"]


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "eval",
        help="run a model on MultipanelVQA and score it",
        description="Ask a transformers model (hf:) or an OpenAI-compatible endpoint (openai:) every question, "
        "write OUT/predictions.jsonl as it goes, then OUT/scores.json and charts (by rules, and with --judge the "
        "paper's LLM judge for what they cannot settle). Rerun the same command to resume: answered rows are "
        "kept, failed ones retried.",
    )
    add_arguments(p, DEFAULT_CONFIG)
    p.add_argument("--view", choices=VIEWS, default="full",
                   help="full composites (default), or the isolation ablation on the questions that target one "
                        "subfigure (Q2): isolated (the other subfigures blanked) or single (the target alone)")
    add_judge_arguments(p, JUDGE_HELP)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    return run_eval(args, benchmark(args.view, judge_from_args(args)))
