"""The `leaderboard` subcommand of both benchmarks: a thin layer over the benchmark's
`leaderboard(results, out, human=)` (dicobench.leaderboards, multipanelvqa.leaderboards)."""

from __future__ import annotations

import argparse
from pathlib import Path

from dicobench.kit.registry import Ref


def make_register(leaderboard: Ref):
    """The `register` of a `leaderboard` subcommand over the benchmark's `leaderboard`, imported on use."""

    def handle(args: argparse.Namespace) -> int:
        from dicobench.kit.report.leaderboard import markdown

        table, written = leaderboard(args.results, args.out, human=args.human)
        print(markdown(table))
        print(f"wrote {', '.join(str(p.name) for p in written)} in {args.out}")
        return 0

    def register(subparsers: argparse._SubParsersAction) -> None:
        p = subparsers.add_parser(
            "leaderboard",
            help="a table of several models' scores (Markdown, CSV, LaTeX) and the papers' charts",
            description="Read the scores.json of each RESULT (an eval/score output folder or the file), all of the "
                        "same rows, and write OUT/leaderboard.md, .csv and .tex (a row per model, runs of one --name "
                        "as mean ± std) and the charts. Scores of different rows are refused (runs of an ablation "
                        "view and study results need only the same dataset, config and split).",
        )
        p.add_argument("results", nargs="+", type=Path, help="result folders or scores.json files")
        p.add_argument("--out", type=Path, required=True, help="output folder")
        p.add_argument("--human", nargs="+", type=Path, default=[],
                       help="scores of study sessions (`score` of the answers `study` writes): a Human row per time "
                            "limit, each participant's session one run of it")
        p.set_defaults(func=handle)

    return register
