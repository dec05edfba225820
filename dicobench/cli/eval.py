"""`dicobench eval --dataset DIR --model hf:ID|openai:MODEL --out DIR`: answer every row, then score.

A thin layer over `dicobench.evaluate` (dicobench.evaluation), which documents the modes and views.
"""

from __future__ import annotations

import argparse

from dicobench.cli.score import JUDGE_HELP
from dicobench.evaluation import DESCRIBE_INSTRUCTION, MODES, benchmark, make_prompt
from dicobench.kit.cli.evaluation import add_arguments, run_eval
from dicobench.kit.cli.scoring import add_judge_arguments, judge_from_args
from dicobench.kit.eval.views import VIEWS

__all__ = ["DESCRIBE_INSTRUCTION", "make_prompt", "register", "run"]


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "eval",
        help="run a model on DiCoBench and score it",
        description="Ask a transformers model (hf:) or an OpenAI-compatible endpoint (openai:) every row, "
        "write OUT/predictions.jsonl as it goes, then OUT/scores.json and charts. Rerun the same command "
        "to resume: answered rows are kept, failed ones retried.",
    )
    add_arguments(p, "all")
    p.add_argument("--mode", choices=MODES, default="direct",
                   help="direct: the letter only (the paper's protocol); describe: a brief description, "
                        "then the letter (its error-analysis protocol)")
    p.add_argument("--view", choices=VIEWS, default="full",
                   help="full images, or the ablation's crop around the cues / crop resized to full size")
    add_judge_arguments(p, JUDGE_HELP)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    return run_eval(args, benchmark(args.mode, args.view, judge_from_args(args)))
