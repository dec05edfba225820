"""`dicobench human DIR`: pool the study sessions of a build into Figure 5 and its table."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from benchkit.webapp.spec import STUDY_DIR


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("human", help="pool study sessions: accuracy against time limit (chart, table, JSON)")
    p.add_argument("dir", help="build folder whose .study sessions to pool")
    p.add_argument("--scores", action="append", default=[], metavar="NAME=SCORES.json",
                   help="a model's scores.json, drawn as a horizontal line (repeatable)")
    p.add_argument("--out", type=Path, default=None, help=f"output folder (default DIR/{STUDY_DIR}/report)")
    p.add_argument("--n-boot", type=int, default=2000, help="bootstrap resamples for the CIs")
    p.set_defaults(func=handle)


def handle(args: argparse.Namespace) -> int:
    from dicobench.human import figure, model_lines, pool, table

    models = model_lines(args.scores)
    pooled = pool(args.dir, n_boot=args.n_boot)
    out = args.out or Path(args.dir) / STUDY_DIR / "report"
    out.mkdir(parents=True, exist_ok=True)
    (out / "human.json").write_text(json.dumps({"time_limits": pooled, "models": models}, indent=2) + "\n")
    text = table(pooled)
    (out / "human.md").write_text(text + "\n")
    chart = figure(pooled, models, out / "human_accuracy.png")
    print(text)
    print(f"wrote {out / 'human.json'}, {out / 'human.md'} and {chart}")
    return 0
