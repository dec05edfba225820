"""The `publish-metric` subcommand: a benchmark's `evaluate` module as a Hub metric repository."""

from __future__ import annotations

import argparse

from dicobench.kit.cli.commands import Registrar, add_hub_token_argument
from dicobench.kit.release.metric_modules import default_requirement, publish


def make_register(name: str) -> Registrar:
    """Registrar for `publish-metric --repo-id ORG/NAME [--private] [--hub-token T] [--dry-run]`."""

    def register(subparsers: argparse._SubParsersAction) -> None:
        parser = subparsers.add_parser(
            "publish-metric",
            help=f"publish the {name} evaluate module as a Hub metric repository",
            description=f"Create or update a Hub Space laid out as an `evaluate` metric (NAME.py, a README "
            f"card with its YAML header, app.py, requirements.txt) holding the {name} module, so that "
            "evaluate.load('ORG/NAME') loads it for anyone who has installed dicobench.",
        )
        parser.add_argument("--repo-id", required=True, metavar="ORG/NAME",
                            help=f"the Space to create or update, e.g. ORG/{name} (no '-' in NAME)")
        parser.add_argument("--private", action="store_true", help="create the Space private")
        add_hub_token_argument(parser)
        parser.add_argument("--dry-run", action="store_true", help="list the files it would upload, without the Hub")
        parser.add_argument("--requirement", metavar="SPEC",
                            help=f"what the Space's requirements.txt installs (default {default_requirement()}, "
                                 "this release from the package index; e.g. 'dicobench @ git+https://...@TAG' "
                                 "for a release that is not there)")
        parser.set_defaults(func=lambda args: print(publish(name, args.repo_id, token=args.hub_token,
                                                              private=args.private, dry_run=args.dry_run,
                                                              requirement=args.requirement)))

    return register
