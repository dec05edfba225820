"""The `push` subcommand, shared by `dicobench` and `multipanelvqa`."""

from __future__ import annotations

import argparse
from pathlib import Path

from benchkit.hub import push_folder


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add `push DIR --repo-id ORG/NAME [--private] [--token T] [--split S]`."""
    parser = subparsers.add_parser(
        "push",
        help="publish a built folder to the Hugging Face Hub",
        description="Upload a folder written by `build` (README.md card and Parquet shards) to a "
        "Hub dataset repo in one commit. With --split, only that split's shards and the card are "
        "replaced; the repo's other splits are kept.",
    )
    parser.add_argument("dir", type=Path, help="folder written by `build`")
    parser.add_argument("--repo-id", required=True, metavar="ORG/NAME", help="dataset repo to create or update")
    parser.add_argument(
        "--private", action="store_true", help="create the repo private (an existing repo keeps its visibility)"
    )
    parser.add_argument(
        "--token",
        help="Hub token with write access; default: HF_TOKEN or the saved `hf auth login` token "
        "(prefer those: a token on the command line stays in shell history)",
    )
    parser.add_argument("--split", help="replace only this split's shards (e.g. test) and the card")
    parser.add_argument("--revision", help="branch to commit to (created if missing); default: main")
    parser.add_argument("--message", help="commit message")
    parser.set_defaults(func=_push)


def _push(args: argparse.Namespace) -> int:
    url = push_folder(
        args.dir,
        args.repo_id,
        token=args.token,
        private=args.private,
        split=args.split,
        revision=args.revision,
        commit_message=args.message,
    )
    print(url)
    return 0
