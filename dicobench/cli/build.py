"""`dicobench build`: the command-line face of `dicobench.build`."""

from __future__ import annotations

import argparse
import dataclasses

from dicobench.build import build
from dicobench.build_config import CAMERAS, BuildConfig
from dicobench.cli.annotate import add_detection_arguments, detection_options
from dicobench.kit.cli.argtypes import http_url, positive_int
from dicobench.kit.cli.commands import add_build_arguments, build_handler, run_options
from dicobench.kit.scene.difficulty import DEFAULT, PRESETS, Difficulty
from dicobench.schema import TASKS


def config(args: argparse.Namespace) -> BuildConfig:
    """The build config the command line gives (each flag fills the field of its name)."""
    return BuildConfig(
        per_task=args.per_task, seed=args.seed, tasks=args.tasks, source=args.source, min_long_side=args.min_long_side,
        upscale=args.upscale, test_photos=args.test_photos, editor=args.editor, instructions=args.instructions,
        verify=args.verify, base_url=args.base_url, api_key=args.api_key, edit_steps=args.edit_steps,
        edit_size=args.edit_size, rows_per_shard=args.rows_per_shard, num_shards=args.num_shards,
        compress_level=args.compress_level, difficulty=args.difficulty,
        axes={f.name: getattr(args, f.name) for f, _, _ in Difficulty.axis_fields()}, camera=args.camera,
        detection=detection_options(args), **dataclasses.asdict(run_options(args)))


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("build", help="generate the benchmark into a folder of Parquet shards with a dataset card")
    add_build_arguments(p, None, "default: the difficulty's, 1 for easy and photo sources, 6 for hard and extreme, "
                                 "which keeps a 100-row page within the Hub Dataset Viewer's limit")
    p.add_argument("--per-task", type=int, default=96, help="rows per task (default 96)")
    p.add_argument("--tasks", default=None, help=f"comma-separated tasks, or all (default); tasks: {', '.join(TASKS)}")
    p.add_argument("--source", default="procedural",
                   help="procedural (default: the offline scene engine), or photos: folder:DIR, vstar:DIR, "
                        "hf:REPO[:SPLIT] or coco:ANNOTATIONS.json[:IMAGES_DIR] (needs dicobench[edit]); photos give "
                        "the difference track, and instance and category where they carry annotated names")
    p.add_argument("--min-long-side", type=positive_int, default=1024,
                   help="photos with a shorter long side are skipped (default 1024)")
    p.add_argument("--upscale", action="store_true",
                   help="upscale small photos to --min-long-side instead of skipping them")
    p.add_argument("--test-photos", type=float, default=None, metavar="SHARE",
                   help="hold this share of the photos out for the test split (by a stable hash of each photo id); "
                        "train uses the rest (default: every photo for whichever split is built)")
    p.add_argument("--editor", default=None, metavar="diffusers:MODEL",
                   help="edit photos with a diffusers inpainting pipeline (FLUX.2 Klein, FLUX Fill, SD inpainting; "
                        "a Hub id or folder) instead of the classical ops; moves stay classical")
    p.add_argument("--edit-steps", type=int, default=None,
                   help="denoising steps of --editor (default: the pipeline's usual)")
    p.add_argument("--edit-size", type=positive_int, default=None,
                   help="long side --editor edits at, in px (default: the pipeline's native size, ~1024 for FLUX)")
    p.add_argument("--instructions", default="template", metavar="template|openai:MODEL",
                   help="edit instructions for --editor: templates (default) or six per mask written by an LLM")
    p.add_argument("--verify", default=None, metavar="openai:MODEL",
                   help="also ask a VLM whether each edit matches its sentence; mismatched or unjudged edits are "
                        "not used")
    p.add_argument("--base-url", type=http_url, default=None,
                   help="OpenAI-compatible endpoint for --instructions/--verify")
    p.add_argument("--api-key", default=None, help="API key for --instructions/--verify (default $OPENAI_API_KEY)")
    p.add_argument("--split", default="test", choices=["test", "train"], help="split to build (default test)")
    p.add_argument("--rows-per-shard", type=int, default=48, help="rows per Parquet shard (default 48)")
    p.add_argument("--difficulty", default=DEFAULT, choices=list(PRESETS),
                   help=f"how small the cues and how cluttered the procedural scenes are (default {DEFAULT}; "
                        "easy is the first release's world); the options below set single dials apart from the preset")
    p.add_argument("--camera", default=None, choices=CAMERAS,
                   help="on: each image of a pair is taken through its own small, seeded camera (framing, exposure, "
                        "white balance, sensor grain), so that no pixel shortcut finds the change; none: the clean "
                        "renders (default: on, except at --difficulty easy)")
    add_detection_arguments(p.add_argument_group(
        "detection (folder: sources): find and name the photos' objects with open-vocabulary models first; the "
        "annotations are cached beside the build, so a rebuild sends nothing to the models"), required=False)
    dials = p.add_argument_group("difficulty dials (procedural scenes)")
    for f, axis, doc in Difficulty.axis_fields():
        dials.add_argument("--" + f.name.replace("_", "-"), type=type(f.default), default=None, help=f"{axis}: {doc}")
    p.set_defaults(func=build_handler(build, config))
