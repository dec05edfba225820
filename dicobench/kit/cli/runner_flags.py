"""The `eval` command's runner flags: one per option a known runner declares
(`dicobench.kit.eval.runners.options`), read back from the parsed arguments."""

from __future__ import annotations

import argparse
from typing import Any

from dicobench.kit.eval.runners import all_options


def add_runner_arguments(p: argparse.ArgumentParser) -> None:
    """A flag for every option a known runner declares (`--batch-size`, `--dtype`, ...), with no
    default of its own (None: not given, so the runner's own default applies)."""
    for option in all_options():
        if option.switch:
            p.add_argument(option.flag, action="store_true", default=None, help=option.help)
        else:
            p.add_argument(option.flag, type=option.type, help=option.help)


def runner_options(args: argparse.Namespace) -> dict[str, Any]:
    """The runner options of parsed `eval` arguments, None where not given."""
    return {o.name: getattr(args, o.name, None) for o in all_options()}
