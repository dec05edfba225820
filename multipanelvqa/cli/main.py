"""The `multipanelvqa` command."""

from __future__ import annotations

import sys

from dicobench.kit.cli import info as info_cli
from dicobench.kit.cli import metric as metric_cli
from dicobench.kit.cli import push as push_cli
from dicobench.kit.cli.commands import build_parser, run
from dicobench.kit.eval.harnesses.cli import HarnessNames, make_export_register, make_import_register
from dicobench.kit.cli.human import make_human_register
from dicobench.kit.report.preview import MULTIPANELVQA_COLUMNS, Drawer, multipanelvqa_item
from dicobench.kit.cli.preview import make_register as make_preview_register
from dicobench.kit.people.webapp.cli import make_review_register, make_study_register
from multipanelvqa import people
from multipanelvqa.cli import build as build_cli
from multipanelvqa.cli import eval as eval_cli
from multipanelvqa.cli import import_images as import_cli
from multipanelvqa.cli import leaderboard as leaderboard_cli
from multipanelvqa.cli import score as score_cli
from multipanelvqa.card import write_card
from multipanelvqa.schema import features

PREVIEW = Drawer("multipanelvqa", multipanelvqa_item, features(), MULTIPANELVQA_COLUMNS)
HARNESS = HarnessNames("multipanelvqa", "multipanelvqa.harnesses.lmms_eval_task", ("question", "question_type"),
                       "multipanelvqa.harnesses.vlmevalkit_task")


def registrars() -> list:
    """The subcommands, in the order `--help` lists them."""
    return [
        build_cli.register,
        eval_cli.register,
        import_cli.register,
        score_cli.register,
        push_cli.make_register(write_card),
        info_cli.register,
        metric_cli.make_register("multipanelvqa_accuracy"),
        make_preview_register(PREVIEW),
        make_review_register(people.SPEC),
        make_study_register(people.SPEC),
        make_human_register(people.SPEC, "multipanelvqa.human", judge=True),
        leaderboard_cli.register,
        make_export_register(HARNESS),
        make_import_register(HARNESS),
    ]


DESCRIPTION = "Generate, ship and score MultipanelVQA."


def parser():
    """The `multipanelvqa` parser (the docs' CLI reference is generated from it)."""
    return build_parser("multipanelvqa", DESCRIPTION, registrars())


def main(argv=None) -> int:
    return run("multipanelvqa", DESCRIPTION, registrars(), argv)


if __name__ == "__main__":
    sys.exit(main())
