"""The `dicobench` command."""

from __future__ import annotations

import sys

from benchkit import info_cli, metric_cli, push_cli
from benchkit.cli import run
from benchkit.harnesses.cli import HarnessNames, make_export_register, make_import_register
from benchkit.human_cli import make_human_register
from benchkit.preview import DICOBENCH_COLUMNS, Drawer, dicobench_item
from benchkit.preview_cli import make_register as make_preview_register
from benchkit.webapp.cli import make_review_register, make_study_register
from dicobench import build_cli, eval_cli, leaderboard_cli, people, score_cli
from dicobench.card import write_card
from dicobench.schema import features

PREVIEW = Drawer("dicobench", dicobench_item, features(), DICOBENCH_COLUMNS)
HARNESS = HarnessNames("dicobench", "dicobench.lmms_eval_task", ("question", "options"), "dicobench.vlmevalkit_task")


def main(argv=None) -> int:
    registrars = [build_cli.register, eval_cli.register, score_cli.register, push_cli.make_register(write_card),
                  info_cli.register, metric_cli.make_register("dicobench_accuracy"),
                  make_preview_register(PREVIEW), make_review_register(people.SPEC),
                  make_study_register(people.SPEC),
                  make_human_register(people.SPEC, "dicobench.human"), leaderboard_cli.register,
                  make_export_register(HARNESS), make_import_register(HARNESS)]
    return run("dicobench", "Generate, ship and score DiCoBench.", registrars, argv)


if __name__ == "__main__":
    sys.exit(main())
