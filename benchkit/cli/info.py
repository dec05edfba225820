"""The `info` subcommand, shared by `dicobench` and `multipanelvqa`."""

from __future__ import annotations

import argparse

from benchkit.release.info import describe


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add `info DIR_OR_REPO`."""
    parser = subparsers.add_parser(
        "info",
        help="print what a built folder's or Hub repo's dataset card holds",
        description="Print the configs, rows per config and correct answer, image sizes, bytes per row, "
        "licence and human review coverage recorded in a dataset card.",
    )
    parser.add_argument("dataset", metavar="DIR_OR_REPO", help="folder written by `build`, or a Hub repo id ORG/NAME")
    parser.set_defaults(func=lambda args: print(describe(args.dataset)))
