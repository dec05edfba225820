"""`multipanelvqa eval --dataset DIR --model hf:ID|openai:MODEL --out DIR`: answer every question, then score.

Scoring is by rules only here; `multipanelvqa score OUT/predictions.jsonl --judge openai:MODEL`
adds the paper's LLM judge for the answers rules cannot settle.
"""

from __future__ import annotations

import argparse
import json

from benchkit.evaluation import Benchmark, add_arguments, interleave, run_eval
from benchkit.extract import extract_choice
from benchkit.errors import UserError
from benchkit.runners import Prompt
from multipanelvqa import score_cli
from multipanelvqa.prompting import INSTRUCTIONS, prompt
from multipanelvqa.schema import CHOICE_LETTERS, CONFIGS, DEFAULT_CONFIG, QUESTION_TYPES, features
from multipanelvqa.views import VIEWS, apply_view, targets_one


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "eval",
        help="run a model on MultipanelVQA and score it",
        description="Ask a transformers model (hf:) or an OpenAI-compatible endpoint (openai:) every question, "
        "write OUT/predictions.jsonl as it goes, then OUT/scores.json and charts (rules only). Rerun the "
        "same command to resume: answered rows are kept, failed ones retried.",
    )
    add_arguments(p, DEFAULT_CONFIG)
    p.add_argument("--view", choices=VIEWS, default="full",
                   help="full composites (default), or the isolation ablation on the questions that target one "
                        "subfigure (Q2): isolated (the other subfigures blanked) or single (the target alone)")
    p.set_defaults(func=run)


def make_prompt(view: str):
    """Row -> the image (in `view`) alone, then the question (a single image gets no "Image 1:" label)."""
    def build(row: dict) -> Prompt:
        images, text = prompt({**row, "image": apply_view(row, view)})
        return interleave(images, text)

    return build



def parse(row: dict, response: str) -> str | None:
    """The chosen letter for Q3 (multiple choice); free-form answers are left to the scorer."""
    if row["question_type"] != QUESTION_TYPES.index("q3"):  # a ClassLabel index
        return None
    return extract_choice(response, row["choices"] or None, letters="".join(CHOICE_LETTERS))


def run(args: argparse.Namespace) -> int:
    if args.config not in CONFIGS:
        raise UserError(f"unknown config {args.config!r}; expected one of {', '.join(CONFIGS)}")
    targeted = lambda qtype: targets_one(QUESTION_TYPES[qtype])  # noqa: E731 (a ClassLabel index)
    benchmark = Benchmark(name="multipanelvqa", prompt=make_prompt(args.view), parse=parse,
                          task_column="question_type", score_register=score_cli.register,
                          score_args=("--name", args.model, "--view", args.view),
                          settings={"view": args.view},
                          select=None if args.view == "full" else ("question_type", targeted),
                          prompt_template=json.dumps(INSTRUCTIONS, sort_keys=True), features=features(),
                          columns=("id", "question_type", "question", "answer", "choices", "image"))
    return run_eval(args, benchmark)
