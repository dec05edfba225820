"""The `dicobench` command."""

from __future__ import annotations

import sys

from dicobench.kit.cli import info as info_cli
from dicobench.kit.cli import metric as metric_cli
from dicobench.kit.cli import push as push_cli
from dicobench.kit.cli.commands import build_parser, run
from dicobench.kit.eval.harnesses.cli import HarnessNames, make_export_register, make_import_register
from dicobench.kit.cli.human import make_human_register
from dicobench.kit.report.preview import DICOBENCH_COLUMNS, Drawer, dicobench_item
from dicobench.kit.cli.preview import make_register as make_preview_register
from dicobench.kit.people.webapp.cli import make_review_register, make_study_register
from dicobench import people
from dicobench.cli import annotate as annotate_cli
from dicobench.cli import build as build_cli
from dicobench.cli import catalogue as catalogue_cli
from dicobench.cli import eval as eval_cli
from dicobench.cli import leaderboard as leaderboard_cli
from dicobench.cli import score as score_cli
from dicobench.card import write_card
from dicobench.schema import features

PREVIEW = Drawer("dicobench", dicobench_item, features(), DICOBENCH_COLUMNS)
HARNESS = HarnessNames("dicobench", "dicobench.harnesses.lmms_eval_task", ("question", "options"), "dicobench.harnesses.vlmevalkit_task")


def registrars() -> list:
    """The subcommands, in the order `--help` lists them."""
    return [build_cli.register, annotate_cli.register, eval_cli.register, score_cli.register, push_cli.make_register(write_card),
                  info_cli.register, metric_cli.make_register("dicobench_accuracy"),
                  make_preview_register(PREVIEW), make_review_register(people.SPEC, annotations=True),
                  make_study_register(people.SPEC),
                  make_human_register(people.SPEC, "dicobench.human"), leaderboard_cli.register,
                  make_export_register(HARNESS), make_import_register(HARNESS), catalogue_cli.register]


DESCRIPTION = "Generate, ship and score DiCoBench."


def parser():
    """The `dicobench` parser (the docs' CLI reference is generated from it)."""
    return build_parser("dicobench", DESCRIPTION, registrars())


def main(argv=None) -> int:
    return run("dicobench", DESCRIPTION, registrars(), argv)


if __name__ == "__main__":
    sys.exit(main())
