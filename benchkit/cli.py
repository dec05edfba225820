"""Shared command-line plumbing: subcommands registered by modules, one-line errors."""

from __future__ import annotations

import argparse
import sys
from typing import Callable, Iterable, Sequence

from benchkit.errors import UserError

Registrar = Callable[[argparse._SubParsersAction], None]


def run(prog: str, description: str, registrars: Iterable[Registrar], argv: Sequence[str] | None = None) -> int:
    """Build the parser from `registrars` (each adds one subcommand whose handler is `args.func`)
    and run it: 0 on success, 2 with a single `error:` line on bad input."""
    parser = argparse.ArgumentParser(prog=prog, description=description)
    sub = parser.add_subparsers(dest="command", required=True)
    for register in registrars:
        register(sub)
    args = parser.parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except UserError as exc:
        print(f"{prog}: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"{prog}: interrupted; rerun the same command to resume", file=sys.stderr)
        return 130


def add_build_arguments(parser: argparse.ArgumentParser) -> None:
    """The options every `build` command shares."""
    parser.add_argument("--out", required=True, help="output folder (created; must be empty unless resuming or --overwrite)")
    parser.add_argument("--seed", type=int, default=0, help="root seed (default 0)")
    parser.add_argument("--num-proc", type=int, default=None, help="worker processes (default: all cores)")
    parser.add_argument("--overwrite", action="store_true", help="replace an existing build")
    parser.add_argument("--compress-level", type=int, default=1, help="PNG compress level 0-9 (default 1; lossless at any level)")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    parser.add_argument("--engine", default="local", choices=["local", "ray"],
                        help="local: worker processes here (default); ray: Ray Data on a Ray cluster (pip install 'dicobench[scale]')")
    parser.add_argument("--ray-address", default=None,
                        help="with --engine ray: auto (the running cluster) or ray://HOST:PORT; default: a local Ray with --num-proc CPUs")
    parser.add_argument("--num-shards", type=int, default=None,
                        help="Parquet shards per config, at most (overrides the rows per shard); fixes file names across rebuilds")


def run_options(args: argparse.Namespace):
    """The `benchkit.builds.RunOptions` the shared build arguments give."""
    from benchkit.builds import RunOptions

    return RunOptions(args.split, args.overwrite, args.engine, args.num_proc, args.ray_address, not args.quiet)


def build_handler(build: Callable, options: Callable[[argparse.Namespace], object]) -> Callable[[argparse.Namespace], int]:
    """The handler of a `build` subcommand: build the options the arguments give, then say how to load the result."""

    def handle(args: argparse.Namespace) -> int:
        out = build(args.out, options(args))
        print(f"wrote {out} (load with datasets.load_dataset({str(out)!r}, 'all', split={args.split!r}))")
        return 0

    return handle
