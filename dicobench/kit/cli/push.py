"""The `push` subcommand, shared by `dicobench` and `multipanelvqa`."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Callable

from dicobench.kit.cli.commands import Registrar, add_dataset_argument, add_hub_token_argument
from dicobench.kit.errors import UserError
from dicobench.kit.io.shards import remove
from dicobench.kit.release.hub import plan_push, push_folder
from dicobench.kit.release.layout import README, read_metadata
from dicobench.kit.release.licences import USER_LICENCE_FILE, state_licence
from dicobench.kit.release.usage import REPO_FILE, record_repo, recorded_repo


def make_register(write_card: Callable[[Path], object]) -> Registrar:
    """Registrar for `push --dataset DIR --repo-id ORG/NAME [...]`; `write_card` regenerates the benchmark's
    card once `--license` has been recorded."""

    def register(subparsers: argparse._SubParsersAction) -> None:
        parser = subparsers.add_parser(
            "push",
            help="publish a built folder to the Hugging Face Hub",
            description="Validate a folder written by `build` (card, shards, licence), then upload its "
            "README.md card and Parquet shards to a Hub dataset repo with huggingface_hub's upload_folder "
            "(resumable: rerun an interrupted push). With --split, only that split's shards and the card "
            "are replaced; the repo's other splits are kept.",
        )
        add_dataset_argument(parser, "folder written by `build`", dest="dir", type=Path)
        parser.add_argument("--repo-id", required=True, metavar="ORG/NAME", help="dataset repo to create or update")
        parser.add_argument(
            "--private", action="store_true", help="create the repo private (an existing repo keeps its visibility)"
        )
        add_hub_token_argument(parser)
        parser.add_argument("--split", help="replace only this split's shards (e.g. test) and the card")
        parser.add_argument("--revision", help="branch to commit to (created if missing); default: main")
        parser.add_argument("--message", help="commit message")
        parser.add_argument("--license", metavar="ID",
                            help="licence of the photos of a photo build, as a Hub licence id (cc-by-4.0, mit, "
                                 "other, ...); required to push one whose photos have no known licence; "
                                 "recorded in the card")
        parser.add_argument("--license-name", help="with --license other: the licence's short name")
        parser.add_argument("--license-link", help="with --license other: where its text is")
        parser.add_argument("--dry-run", action="store_true",
                            help="validate and list what would be uploaded, without contacting the Hub")
        parser.set_defaults(func=lambda args: _push(args, write_card))

    return register


def _push(args: argparse.Namespace, write_card: Callable[[Path], object]) -> int:
    if args.license is not None or args.license_name or args.license_link:
        _state_licence(args, write_card)
    if args.dry_run:
        print(plan_push(args.dir, args.repo_id, args.split).describe())
        return 0
    plan_push(args.dir, args.repo_id, args.split)  # a valid build and repo id, before the card changes
    kept = {path: path.read_bytes() if path.exists() else None for path in (args.dir / README, args.dir / REPO_FILE)}
    try:
        if recorded_repo(args.dir) != args.repo_id:  # the card's code then loads from this repo (the card uploaded)
            record_repo(args.dir, args.repo_id)
            write_card(args.dir)
        url = push_folder(args.dir, args.repo_id, token=args.hub_token, private=args.private, split=args.split,
                          revision=args.revision, commit_message=args.message)
    except BaseException:  # nothing was published: the folder stays as it was
        for path, data in kept.items():
            if data is None:
                path.unlink(missing_ok=True)
            else:
                path.write_bytes(data)
        raise
    print(url)
    return 0


def _state_licence(args: argparse.Namespace, write_card: Callable[[Path], object]) -> None:
    """Record --license in the folder and its card; refused where the build's own sources fix
    the licence (procedural glyphs, V*, MagicBrush, VQAv2)."""
    plan_push(args.dir, args.repo_id, args.split, require_licence=False)  # a build, before anything is written
    stated = state_licence(args.dir, args.license or "", args.license_name, args.license_link)
    write_card(args.dir)
    card_licence = read_metadata(args.dir).get("license")
    if card_licence != stated.id:
        remove(args.dir / USER_LICENCE_FILE)
        write_card(args.dir)
        raise UserError(f"--license applies to photos whose licence is unknown; this build's licence follows "
                        f"its sources ({card_licence}, see its card)")
