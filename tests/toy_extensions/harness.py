"""A toy harness: `import echo FILE --out PREDICTIONS` reads one reply per line, in the split's order
(what a harness that writes bare replies would need), through the same import command as the others."""

import argparse
import json
from pathlib import Path

from dicobench.kit.cli.harnesses import HarnessKind
from dicobench.kit.io.predictions import load_split


def _add_import(harness: argparse._SubParsersAction, benchmark) -> None:
    q = harness.add_parser("echo", help="from a file of bare replies, one per row")
    q.add_argument("replies", type=Path)
    q.add_argument("--dataset", required=True)
    q.add_argument("--out", required=True, type=Path)
    q.set_defaults(func=lambda args: _import(args, benchmark))


def _import(args, benchmark) -> int:
    rows = load_split(args.dataset, benchmark.default_config, "test")
    replies = args.replies.read_text().split("\n")
    args.out.write_text("".join(json.dumps({"id": i, "response": r}) + "\n" for i, r in zip(rows["id"], replies)))
    return 0


ECHO = HarnessKind("echo", import_=_add_import)
