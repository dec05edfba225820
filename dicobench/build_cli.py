"""`dicobench build`: the command-line face of `dicobench.build`."""

from __future__ import annotations

import argparse

from benchkit.cli import add_build_arguments

from dicobench.build import build
from dicobench.schema import TASKS


def _handle(args: argparse.Namespace) -> int:
    out = build(
        args.out,
        per_task=args.per_task,
        seed=args.seed,
        tasks=args.tasks,
        source=args.source,
        min_long_side=args.min_long_side,
        upscale=args.upscale,
        num_proc=args.num_proc,
        split=args.split,
        overwrite=args.overwrite,
        rows_per_shard=args.rows_per_shard,
        num_shards=args.num_shards,
        engine=args.engine,
        ray_address=args.ray_address,
        compress_level=args.compress_level,
        progress=not args.quiet,
    )
    print(f"wrote {out} (load with datasets.load_dataset({str(out)!r}, 'all', split={args.split!r}))")
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("build", help="generate the benchmark into a folder of Parquet shards with a dataset card")
    add_build_arguments(p)
    p.add_argument("--per-task", type=int, default=96, help="rows per task (default 96)")
    p.add_argument("--tasks", default=None, help=f"comma-separated tasks, or all (default); tasks: {', '.join(TASKS)}")
    p.add_argument("--source", default="procedural",
                   help="procedural (default: the offline scene engine), or photos for the difference track: "
                        "folder:DIR, vstar:DIR or hf:REPO[:SPLIT] (needs dicobench[edit])")
    p.add_argument("--min-long-side", type=int, default=1024, help="photos with a shorter long side are skipped (default 1024)")
    p.add_argument("--upscale", action="store_true", help="upscale small photos to --min-long-side instead of skipping them")
    p.add_argument("--split", default="test", choices=["test", "train"], help="split to build (default test)")
    p.add_argument("--rows-per-shard", type=int, default=48, help="rows per Parquet shard (default 48)")
    p.set_defaults(func=_handle)
