"""The `eval` subcommand both benchmarks share: its options, and `evaluate` run with them (the
engine is `dicobench.kit.eval.evaluation`)."""

from __future__ import annotations

import argparse
from pathlib import Path

from dicobench.kit.cli.runner_flags import add_runner_arguments, runner_options
from dicobench.kit.errors import UserError
from dicobench.kit.eval.completeness import INCOMPLETE_STATUS
from dicobench.kit.eval.evaluation import EvalSpec, evaluate


def add_arguments(p: argparse.ArgumentParser, default_config: str) -> None:
    """The options every benchmark's eval takes."""
    p.add_argument("--dataset", required=True, help="dataset folder or Hub repo id")
    p.add_argument("--config", default=default_config, help=f"dataset config (default {default_config})")
    p.add_argument("--split", default="test", help="split to evaluate (default test)")
    p.add_argument("--model", required=True,
                   help="hf:<hub id or folder> (transformers), openai:<model> (OpenAI-compatible endpoint), "
                        "or <name>:<model> for a runner registered under that name")
    p.add_argument("--out", type=Path, required=True, help="output folder; rerun with the same one to resume")
    p.add_argument("--limit", type=int, metavar="N",
                   help="ask only the first N rows of each config, as lmms-eval's --limit (with --config all: of each "
                        "task or augmentation), and score them as that selection (scores.json records the limit)")
    add_runner_arguments(p)  # --base-url, --batch-size, --dtype, ...: what the known runners declare
    p.add_argument("--quiet", action="store_true", help="no progress bar")


def run_eval(args: argparse.Namespace, benchmark: EvalSpec) -> int:
    """The `eval` subcommand: `evaluate` with the command line's options; 1 (incomplete scores)
    while rows keep failing."""
    for flag in ("limit", "batch_size", "concurrency", "max_new_tokens", "max_pixels", "max_side"):
        value = getattr(args, flag)
        if value is not None and value < 1:
            raise UserError(f"--{flag.replace('_', '-')} must be at least 1")
    result = evaluate(benchmark, args.dataset, args.model, config=args.config, split=args.split, out=args.out,
                      limit=args.limit, runner_options=runner_options(args),
                      progress=not args.quiet, log=print)
    return 0 if result.get("complete", True) else INCOMPLETE_STATUS
