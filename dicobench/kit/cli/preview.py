"""The `preview` subcommand: a PNG contact sheet of a built folder's first rows."""

from __future__ import annotations

import argparse
from pathlib import Path

from dicobench.kit.cli.commands import Registrar, add_dataset_argument
from dicobench.kit.report.preview import Drawer, write_preview


def make_register(drawer: Drawer) -> Registrar:
    """Registrar for `preview --dataset DIR --out PNG [--config all] [--split test] [-n 8] [--thumb 256]`,
    drawing rows with `drawer` (each benchmark's CLI has its own)."""

    def register(subparsers: argparse._SubParsersAction) -> None:
        parser = subparsers.add_parser(
            "preview",
            help="draw a contact sheet of the first rows of a built folder",
            description="Write a PNG with one row per sample: its images as thumbnails with the "
            "regions that matter boxed in magenta, and the task and answer underneath.",
        )
        add_dataset_argument(parser, "folder written by `build`, or a Hub repo id", dest="dir")
        parser.add_argument("--out", type=Path, required=True, help="PNG file to write")
        parser.add_argument("--config", default="all", help="config to read (default: all)")
        parser.add_argument("--split", default="test", help="split to read (default: test)")
        parser.add_argument("-n", "--n", dest="n", type=int, default=8, help="rows to draw, 1 to 64 (default: 8)")
        parser.add_argument("--thumb", type=int, default=256,
                            help="thumbnail size in pixels, 16 to 1024 (default: 256)")
        parser.set_defaults(func=lambda args: _preview(args, drawer))

    return register


def _preview(args: argparse.Namespace, drawer: Drawer) -> int:
    out = write_preview(args.dir, args.out, drawer, config=args.config, split=args.split, n=args.n, thumb=args.thumb)
    print(out)
    return 0
