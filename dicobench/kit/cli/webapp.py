"""The `review` subcommand, shared by both benchmarks' command lines."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from dicobench.kit.cli.argtypes import port
from dicobench.kit.cli.commands import add_dataset_argument
from dicobench.kit.cli.help_texts import HELP
from dicobench.kit.errors import UserError
from dicobench.kit.people.webapp.spec import BenchmarkSpec

if TYPE_CHECKING:
    from dicobench.kit.benchmark import Results


def announce(line: str) -> None:
    """A server's line (what it serves, `serving on URL`) on stdout at once: a caller reads the URL from it."""
    print(line, flush=True)


def add_server_arguments(p: argparse.ArgumentParser, dataset_help: str = "build folder") -> None:
    add_dataset_argument(p, dataset_help, dest="dir")
    p.add_argument("--host", default="127.0.0.1",
                   help="address to listen on (default 127.0.0.1; any other needs a token)")
    p.add_argument("--port", type=port, default=8765, help="port (default 8765; 0 picks a free one)")
    p.add_argument("--page-token", dest="token", default=None,
                   help="the page's access token (default: a fresh one, printed in the URL, where needed)")
    p.add_argument("--token", dest="token", help=argparse.SUPPRESS)  # the first release's name for --page-token
    p.add_argument("--open", action="store_true", help="open the page in the default browser")


def make_review_register(spec: BenchmarkSpec, annotations: bool = False, results: Results | None = None):
    """`review --dataset DIR`; with `annotations`, also `review --dataset ANNOTATIONS.json [--photos DIR]` (a COCO
    file's objects, before any build reads it); with `results`, `review --dataset DIR --predictions RUN_DIR`
    (the results explorer of one scored run, or two side by side)."""

    def handle(args: argparse.Namespace) -> int:
        from dicobench.kit.people.webapp.launch import review, review_annotations

        if args.predictions:
            return _results(args)
        if annotations and args.dir.endswith(".json"):
            review_annotations(args.dir, args.photos, host=args.host, port=args.port, reviewer=args.reviewer,
                               token=args.token, open_browser=args.open, announce=announce)
            return 0
        review(spec, args.dir, host=args.host, port=args.port, reviewer=args.reviewer, config=args.config,
               token=args.token, open_browser=args.open, announce=announce)
        return 0

    def _results(args: argparse.Namespace) -> int:
        from dicobench.kit.people.webapp.launch import results as explore

        if len(args.predictions) > 2:
            raise UserError("--predictions: one run folder, or two to compare")
        ignored = [flag for flag, given in (("--reviewer", args.reviewer), ("--config", args.config != "all"),
                                           ("--photos", getattr(args, "photos", None))) if given]
        if ignored:
            raise UserError(f"{', '.join(ignored)} apply to reviewing a build, not to --predictions")
        explore(spec, results, args.dir, args.predictions, host=args.host, port=args.port, token=args.token,
                open_browser=args.open, announce=announce)
        return 0

    def register(sub: argparse._SubParsersAction) -> None:
        p = sub.add_parser("review", help=HELP["review"])
        add_server_arguments(p, "build folder"
                             + (", or a COCO annotation file (with --photos)" if annotations else ""))
        if results is not None:
            p.add_argument("--predictions", action="append", metavar="RUN_DIR", default=[],
                           help="a scored run folder (`eval --out`, `score --out`) of this build: browse its "
                                "answers (each reply, what was read, the error type, the judge's verdict) instead "
                                "of reviewing rows; give it twice to compare two runs where they disagree")
        p.add_argument("--reviewer", default=None, help="your name in the review log (default: $USER)")
        p.add_argument("--config", default="all", help="one config or all (default)")
        if annotations:
            p.add_argument("--photos", default=None, metavar="DIR",
                           help="with a COCO annotation file instead of a build folder (review its objects, boxes and "
                                "masks drawn on demand; rejected ones never reach a build): the photos' folder "
                                "(default: the file's)")
        p.set_defaults(func=handle)

    return register


def _time_limit(text: str) -> float | None:
    if text not in ("30", "60", "120", "none"):
        raise argparse.ArgumentTypeError(f"expected 30, 60, 120 or none, got {text!r}")
    return None if text == "none" else float(text)


def make_study_register(spec: BenchmarkSpec):
    def handle(args: argparse.Namespace) -> int:
        from dicobench.kit.people.webapp.launch import study

        study(spec, args.dir, time_limit=args.time_limit, participant=args.participant, n=args.n, seed=args.seed,
              host=args.host, port=args.port, token=args.token, config=args.config, open_browser=args.open,
              announce=announce)
        return 0

    def register(sub: argparse._SubParsersAction) -> None:
        p = sub.add_parser("study", help=HELP["study"])
        add_server_arguments(p)
        p.add_argument("--time-limit", required=True, type=_time_limit, metavar="30|60|120|none",
                       help="seconds per item, or none")
        p.add_argument("--participant", default="participant",
                       help="name in the answers file (letters, digits, _ - .)")
        p.add_argument("-n", "--n", dest="n", type=int, default=40,
                       help="items, balanced over tasks (DiCoBench) or question types (MultipanelVQA); default 40")
        p.add_argument("--seed", type=int, default=0, help="sample seed; the order is also seeded by the participant")
        p.add_argument("--config", default="all", help="one config or all (default)")
        p.set_defaults(func=handle)

    return register
