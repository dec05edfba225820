"""The `human` subcommand: pool a build's study sessions into the chart, table and JSON."""

from __future__ import annotations

import argparse
import functools
from pathlib import Path

from dicobench.kit.cli.commands import add_dataset_argument, http_url
from dicobench.kit.people.webapp.spec import STUDY_DIR, BenchmarkSpec


def make_human_register(spec: BenchmarkSpec, module: str, judge: bool = False):
    """`module` names the benchmark's human module (SERIES, TITLE, score_lines), imported on use."""

    def handle(args: argparse.Namespace) -> int:
        import importlib

        from dicobench.kit.people.human import model_lines, pool, write_report

        human = importlib.import_module(module)
        models = model_lines(args.scores)
        extra = {"judge": args.judge, "judge_base_url": args.judge_base_url, "judge_api_key": args.judge_api_key} if judge else {}
        pooled = pool(spec, args.dir, functools.partial(human.score_lines, n_boot=args.n_boot, **extra))
        text, files = write_report(pooled, human.SERIES, models, args.out or Path(args.dir) / STUDY_DIR / "report",
                                   human.TITLE)
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
            p.add_argument("--judge", help="openai:<model>: judge free-text answers the rules cannot decide")
            p.add_argument("--judge-base-url", type=http_url, help="OpenAI-compatible endpoint of the judge")
            p.add_argument("--judge-api-key", help="its API key (prefer OPENAI_API_KEY)")
        p.set_defaults(func=handle)

    return register
