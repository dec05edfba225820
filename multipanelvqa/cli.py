"""The `multipanelvqa` command."""

from __future__ import annotations

import sys

from benchkit import push_cli
from benchkit.cli import run
from benchkit.harnesses.cli import HarnessNames, make_export_register, make_import_register
from benchkit.preview import multipanelvqa_item
from benchkit.preview_cli import make_register as make_preview_register
from multipanelvqa import build_cli, eval_cli, import_cli, score_cli


HARNESS = HarnessNames("multipanelvqa", "multipanelvqa.lmms_eval_task", ("question", "question_type"),
                       "multipanelvqa.vlmevalkit_task")


def main(argv=None) -> int:
    registrars = [
        build_cli.register,
        eval_cli.register,
        import_cli.register,
        score_cli.register,
        push_cli.register,
        make_preview_register(multipanelvqa_item),
        make_export_register(HARNESS),
        make_import_register(HARNESS, command="import-results"),  # `import` adds real-world images
    ]
    return run("multipanelvqa", "Generate, ship and score MultipanelVQA.", registrars, argv)


if __name__ == "__main__":
    sys.exit(main())
