"""The `info` subcommand, shared by `dicobench` and `multipanelvqa`."""

from __future__ import annotations

import argparse
from pathlib import Path

from dicobench.kit.cli.commands import add_dataset_argument
from dicobench.kit.errors import UserError
from dicobench.kit.release.info import describe


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add `info DIR_OR_REPO [--verify]`."""
    parser = subparsers.add_parser(
        "info",
        help="print what a built folder's or Hub repo's dataset card holds; --verify checks a build against it",
        description="Print the configs, rows per config and correct answer, image sizes, bytes per row, "
        "licence and human review coverage recorded in a dataset card. With --verify, check a built folder "
        "instead, as review, study, eval, score, export and push do before they start: every shard's "
        "Parquet footer, its columns and their types, and the row counts the card records, and every shard's "
        "bytes against the digest the build recorded.",
    )
    add_dataset_argument(parser, "folder written by `build`, or a Hub repo id ORG/NAME")
    parser.add_argument("--verify", action="store_true",
                        help="check the folder's shards against its card (exit 2 with the first problem)")
    parser.set_defaults(func=_info)


def _info(args: argparse.Namespace) -> int:
    if not args.verify:
        print(describe(args.dataset))
        return 0
    from dicobench.kit.release.verify import verify_build

    if not Path(args.dataset).is_dir():
        raise UserError(f"--verify checks a build folder; {args.dataset} is not one (download a Hub dataset first)")
    print(verify_build(args.dataset, digests=True).describe())
    return 0
