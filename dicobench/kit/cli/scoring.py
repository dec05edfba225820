"""What both `score` commands share over their benchmark's `score_predictions`: the judge's flags
(the same on every command that scores with an LLM judge: `score`, DiCoBench's `eval`, `human`)
and the one `Judge` they build, and writing and printing a Report with its exit status."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from dicobench.kit.cli.argtypes import http_url, non_negative_int, positive_int
from dicobench.kit.errors import UserError


def add_judge_arguments(p: argparse.ArgumentParser, what: str) -> None:
    """`--judge` (its help says `what` the judge does) and the settings of `dicobench.kit.eval.judge.Judge`."""
    p.add_argument("--judge", metavar="openai:MODEL", help=f"openai:<model>: {what}")
    p.add_argument("--judge-base-url", type=http_url,
                   help="the judge's OpenAI-compatible endpoint, e.g. http://127.0.0.1:8000/v1 (default OpenAI)")
    p.add_argument("--judge-api-key", help="the judge's API key (prefer the OPENAI_API_KEY environment variable)")
    p.add_argument("--judge-cache", type=Path, help="judge reply cache folder (default ~/.cache/dicobench/judge)")
    p.add_argument("--judge-concurrency", type=positive_int, default=8, help="judge requests in flight (default 8)")
    p.add_argument("--judge-timeout", type=float, default=60.0, help="seconds per judge request (default 60)")
    p.add_argument("--judge-retries", type=non_negative_int, default=5,
                   help="retries of a judge request that timed out, was rate limited or met a server error "
                        "(default 5)")


def judge_from_args(args: argparse.Namespace):
    """The Judge the flags of `add_judge_arguments` name; None without `--judge`."""
    if not args.judge:
        return None
    if args.judge_cache is not None and args.judge_cache.exists() and not args.judge_cache.is_dir():
        raise UserError(f"--judge-cache {args.judge_cache} exists and is not a folder")
    from dicobench.kit.eval.judge import Judge  # deferred: the client needs openai, scoring by rules does not

    return Judge.from_spec(args.judge, base_url=args.judge_base_url, api_key=args.judge_api_key,
                           cache=args.judge_cache, concurrency=args.judge_concurrency, timeout=args.judge_timeout,
                           retries=args.judge_retries)


def check_out(out: Path | None) -> None:
    """Refuse an `--out` that is a file before any scoring."""
    if out is not None and out.exists() and not out.is_dir():
        raise UserError(f"--out {out} exists and is not a folder")


def finish(report, out: Path, prog: str) -> int:
    """Write `report` to `out`, print its table and what was written; 0, or for an incomplete
    report its one line on stderr and INCOMPLETE_STATUS."""
    from dicobench.kit.eval.completeness import INCOMPLETE_STATUS
    from dicobench.kit.eval.report import write_report, wrote

    written = write_report(report, out)
    print(report.table)
    print(wrote(written))
    if report.complete:
        return 0
    print(f"{prog}: {report.completeness.message(report.scores)}", file=sys.stderr)
    return INCOMPLETE_STATUS
