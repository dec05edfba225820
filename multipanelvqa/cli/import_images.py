"""`multipanelvqa import-images`: a folder of real multipanel images with a JSONL of questions -> `real_world`."""

from __future__ import annotations

import argparse

from multipanelvqa.sources.real_world import QUESTIONS_FILE, import_real_world


def _handle(args: argparse.Namespace) -> int:
    out = import_real_world(args.folder, args.out, args.questions)
    print(f"wrote {out / 'real_world'} (load with datasets.load_dataset({str(out)!r}, 'real_world', split='test'))")
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("import-images",
                       help="add a real_world config from a folder of multipanel images and a JSONL of questions")
    p.add_argument("folder", help=f"folder with the images and {QUESTIONS_FILE}")
    p.add_argument("--out", required=True, help="dataset folder (a build, or a new folder)")
    p.add_argument("--questions", default=None, help=f"JSONL of questions (default FOLDER/{QUESTIONS_FILE})")
    p.set_defaults(func=_handle)
