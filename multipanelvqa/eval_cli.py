"""`multipanelvqa eval --dataset DIR --model hf:ID|openai:MODEL --out DIR`: answer every question, then score.

A thin layer over `multipanelvqa.evaluate` (multipanelvqa.evaluation); scoring is by rules only.
"""

from __future__ import annotations

import argparse

from benchkit.evaluation import add_arguments, run_eval
from multipanelvqa.evaluation import BENCHMARK, build_prompt, parse
from multipanelvqa.schema import DEFAULT_CONFIG

__all__ = ["build_prompt", "parse", "register", "run"]


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "eval",
        help="run a model on MultipanelVQA and score it",
        description="Ask a transformers model (hf:) or an OpenAI-compatible endpoint (openai:) every question, "
        "write OUT/predictions.jsonl as it goes, then OUT/scores.json and charts (rules only). Rerun the "
        "same command to resume: answered rows are kept, failed ones retried.",
    )
    add_arguments(p, DEFAULT_CONFIG)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    return run_eval(args, BENCHMARK)
