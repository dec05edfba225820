"""The `dicobench` command."""

from __future__ import annotations

import sys

from benchkit import push_cli
from benchkit.cli import run
from benchkit.harnesses.cli import HarnessNames, make_export_register, make_import_register
from benchkit.preview import dicobench_item
from benchkit.preview_cli import make_register as make_preview_register
from dicobench import build_cli, eval_cli, score_cli


HARNESS = HarnessNames("dicobench", "dicobench.lmms_eval_task", ("question", "options"), "dicobench.vlmevalkit_task")


def main(argv=None) -> int:
    registrars = [build_cli.register, eval_cli.register, score_cli.register, push_cli.register,
                  make_preview_register(dicobench_item), make_export_register(HARNESS), make_import_register(HARNESS)]
    return run("dicobench", "Generate, ship and score DiCoBench.", registrars, argv)


if __name__ == "__main__":
    sys.exit(main())
