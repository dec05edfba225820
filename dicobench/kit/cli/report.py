"""The `report` subcommand: one self-contained HTML file from scored run folders
(`dicobench.kit.report.html`), and what `score --html` writes after scoring."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from dicobench.kit.cli.argtypes import non_negative_int, positive_int
from dicobench.kit.cli.commands import Registrar
from dicobench.kit.cli.help_texts import HELP

if TYPE_CHECKING:
    from dicobench.kit.benchmark import Benchmark


def make_register(benchmark: Benchmark) -> Registrar:
    """Registrar for `report RUN_DIR... --out FILE.html [--dataset D] [--sample 12] [--seed 0] [--thumb 320]`."""

    def register(subparsers: argparse._SubParsersAction) -> None:
        p = subparsers.add_parser(
            "report", help=HELP["report"],
            description="Write one HTML file that opens from disk and fetches nothing: per run the score table with "
            "its intervals, the charts, the error types, a seeded sample of wrong answers with their images and "
            "replies, and how the numbers were made.")
        p.add_argument("runs", nargs="+", type=Path, metavar="RUN_DIR",
                       help="a folder `eval --out` or `score --out` wrote (scores.json and the predictions it scored)")
        p.add_argument("--out", type=Path, required=True, help="the HTML file to write")
        p.add_argument("--dataset", metavar="DIR_OR_REPO",
                       help="where the runs' rows are read (default: the dataset each run was scored on)")
        p.add_argument("--sample", type=non_negative_int, default=12, help="wrong answers shown per run (default 12)")
        p.add_argument("--seed", type=non_negative_int, default=0, help="the sample's seed (default 0)")
        p.add_argument("--thumb", type=positive_int, default=320, help="thumbnail size in pixels (default 320)")
        p.set_defaults(func=lambda args: _report(args, benchmark))

    return register


def _report(args: argparse.Namespace, benchmark: Benchmark) -> int:
    from dicobench.kit.report.html import write_html_report

    out = write_html_report(benchmark, args.runs, args.out, dataset=args.dataset, sample=args.sample, seed=args.seed,
                            thumb=args.thumb)
    print(wrote(out))
    return 0


def wrote(out: Path) -> str:
    return f"wrote {out} ({out.stat().st_size / 1e6:.1f} MB, self-contained: open it in any browser)"


def html_after_score(benchmark: Benchmark, out: Path, html: Path, dataset: str) -> None:
    """`score --html FILE`: the report of the scores just written to `out`."""
    from dicobench.kit.report.html import write_html_report

    print(wrote(write_html_report(benchmark, [out], html, dataset=dataset)))
