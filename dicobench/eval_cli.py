"""`dicobench eval --dataset DIR --model hf:ID|openai:MODEL --out DIR`: answer every row, then score.

Modes: `direct` is the paper's protocol (the letter only, the prompt of docs/ARCHITECTURE.md); `describe` is its
error-analysis protocol (a brief description first, then the letter), read with the same
extraction. Views: `full`, or the resolution ablation's `crop` / `crop-resize` (benchkit.views).
"""

from __future__ import annotations

import argparse
from typing import Callable

from benchkit.evaluation import Benchmark, add_arguments, interleave, run_eval
from benchkit.extract import extract_choice
from benchkit.errors import UserError
from benchkit.runners import Prompt
from benchkit.views import VIEWS, apply_view
from dicobench import score_cli
from dicobench.prompting import prompt
from dicobench.schema import CONFIGS, PROMPT_TEMPLATE

MODES = ("direct", "describe")
DIRECT_INSTRUCTION = PROMPT_TEMPLATE.rsplit("\n", 1)[1]
DESCRIBE_INSTRUCTION = (
    "First briefly describe what you see in the two images that bears on the question, "
    "then give your final answer on the last line as \"Answer: X\", where X is the option's letter."
)


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
    p.set_defaults(func=run)


def make_prompt(mode: str, view: str) -> Callable[[dict], Prompt]:
    """Row -> "Image 1:", image_a, "Image 2:", image_b, prompt text; with the mode and view applied."""
    def build(row: dict) -> Prompt:
        images, text = prompt(row)
        if mode == "describe":
            text = text.removesuffix(DIRECT_INSTRUCTION) + DESCRIBE_INSTRUCTION
        return interleave(apply_view(images, row["cues"], view), text)

    return build


def run(args: argparse.Namespace) -> int:
    if args.config not in CONFIGS:
        raise UserError(f"unknown task or config {args.config!r}; expected one of {', '.join(CONFIGS)}")
    benchmark = Benchmark(
        name="dicobench",
        prompt=make_prompt(args.mode, args.view),
        parse=lambda row, response: extract_choice(response, row["options"]),
        task_column="task",
        score_register=score_cli.register,
        score_args=("--name", args.model),
        settings={"mode": args.mode, "view": args.view},
        local_max_new_tokens=512 if args.mode == "describe" else 64,
    )
    return run_eval(args, benchmark)
