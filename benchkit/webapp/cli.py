"""The `review` subcommand, shared by both benchmarks' command lines."""

from __future__ import annotations

import argparse

from benchkit.webapp.spec import BenchmarkSpec


def add_server_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("dir", help="build folder")
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1; any other needs a token)")
    p.add_argument("--port", type=int, default=8765, help="port (default 8765; 0 picks a free one)")
    p.add_argument("--token", default=None, help="access token (default: a fresh one, printed in the URL, where needed)")
    p.add_argument("--open", action="store_true", help="open the page in the default browser")


def make_review_register(spec: BenchmarkSpec):
    def handle(args: argparse.Namespace) -> int:
        from benchkit.webapp.launch import review

        review(spec, args.dir, host=args.host, port=args.port, reviewer=args.reviewer, config=args.config,
               token=args.token, open_browser=args.open)
        return 0

    def register(sub: argparse._SubParsersAction) -> None:
        p = sub.add_parser("review", help="review every row of a build in the browser (accept / reject, with criteria)")
        add_server_arguments(p)
        p.add_argument("--reviewer", default=None, help="your name in the review log (default: $USER)")
        p.add_argument("--config", default="all", help="one config or all (default)")
        p.set_defaults(func=handle)

    return register
