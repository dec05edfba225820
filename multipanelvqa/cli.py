"""The `multipanelvqa` command."""

from __future__ import annotations

import sys

from benchkit import info_cli, metric_cli, push_cli
from benchkit.cli import run
from benchkit.harnesses.cli import HarnessNames, make_export_register, make_import_register
from benchkit.human_cli import make_human_register
from benchkit.preview import MULTIPANELVQA_COLUMNS, Drawer, multipanelvqa_item
from benchkit.preview_cli import make_register as make_preview_register
from benchkit.webapp.cli import make_review_register, make_study_register
from multipanelvqa import build_cli, eval_cli, import_cli, leaderboard_cli, people, score_cli
from multipanelvqa.card import write_card
from multipanelvqa.schema import features

PREVIEW = Drawer("multipanelvqa", multipanelvqa_item, features(), MULTIPANELVQA_COLUMNS)
HARNESS = HarnessNames("multipanelvqa", "multipanelvqa.lmms_eval_task", ("question", "question_type"),
                       "multipanelvqa.vlmevalkit_task")


def main(argv=None) -> int:
    registrars = [
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
        make_import_register(HARNESS, command="import-results"),  # `import` adds real-world images
    ]
    return run("multipanelvqa", "Generate, ship and score MultipanelVQA.", registrars, argv)


if __name__ == "__main__":
    sys.exit(main())
