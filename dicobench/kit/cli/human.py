"""The `human` subcommand: pool a build's study sessions into the chart, table and JSON."""

from __future__ import annotations

import argparse
import functools
from pathlib import Path

from dicobench.kit.cli.commands import add_dataset_argument
from dicobench.kit.cli.scoring import add_judge_arguments, judge_from_args
from dicobench.kit.people.webapp.spec import STUDY_DIR, BenchmarkSpec
from dicobench.kit.registry import Ref


def make_human_register(spec: BenchmarkSpec, figure: Ref, judge: bool = False):
    """`figure` names the benchmark's `HumanFigure` (series, title, score_lines), imported on use."""

    def handle(args: argparse.Namespace) -> int:
        from dicobench.kit.people.human import model_lines, pool, write_report

        human = figure.load()
        models = model_lines(args.scores)
        extra = {"judge": judge_from_args(args)} if judge else {}
        pooled = pool(spec, args.dir, functools.partial(human.score_lines, n_boot=args.n_boot, **extra))
        text, files = write_report(pooled, human.series, models, args.out or Path(args.dir) / STUDY_DIR / "report",
                                   human.title)
        print(text)
        print("wrote " + ", ".join(map(str, files)))
        return 0

    def register(sub: argparse._SubParsersAction) -> None:
        p = sub.add_parser("human", help="pool study sessions: accuracy against time limit (chart, table, JSON)")
        add_dataset_argument(p, "build folder whose study sessions to pool", dest="dir")
        p.add_argument("--scores", action="append", default=[], metavar="NAME=SCORES.json",
                       help="a model's scores.json, drawn as a horizontal line (repeatable)")
        p.add_argument("--out", type=Path, default=None, help=f"output folder (default DIR/{STUDY_DIR}/report)")
        p.add_argument("--n-boot", type=int, default=2000, help="bootstrap resamples for the CIs")
        if judge:
            add_judge_arguments(p, "judge free-text answers the rules cannot decide")
        p.set_defaults(func=handle)

    return register
