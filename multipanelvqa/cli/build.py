"""`multipanelvqa build`: the command-line face of `multipanelvqa.build`."""

from __future__ import annotations

import argparse
import dataclasses

from dicobench.kit.cli.argtypes import http_url
from dicobench.kit.cli.commands import add_build_arguments, build_handler, run_options
from dicobench.kit.scene.catalogue import VERSIONS
from multipanelvqa.build import build
from multipanelvqa.build_config import SOURCES, BuildConfig
from multipanelvqa.difficulty import (
    ASKED,
    COUNT_LAYOUTS,
    COUNTS,
    DEFAULT,
    NEIGHBOURS,
    POSITION_WORDS,
    PRESETS,
    Q1_FORMS,
    Q3_CHOICES,
    SCENE_QUESTIONS,
    TARGET_ANSWERS,
    TARGET_PLACES,
    PanelDifficulty,
)
from multipanelvqa.generate import SYNTHETIC_CONFIGS
from multipanelvqa.sources.adapters import DEFAULT_DATA
from multipanelvqa.sources.image_sets import PROCEDURAL

CHOICES = {"position_words": POSITION_WORDS, "scene_question": SCENE_QUESTIONS, "q1_forms": Q1_FORMS,
           "catalogue": VERSIONS, "neighbours": NEIGHBOURS, "q3_choices": Q3_CHOICES,
           "target_answer": TARGET_ANSWERS, "target_place": TARGET_PLACES, "asked": ASKED,
           "count_layout": COUNT_LAYOUTS, "counts": COUNTS}


def config(args: argparse.Namespace) -> BuildConfig:
    """The build config the command line gives."""
    return BuildConfig(
        seed=args.seed,
        sources=args.sources,
        layouts=args.layouts,
        configs=args.configs,
        source_data={"magicbrush": args.magicbrush, "vqav2": args.vqav2},
        source_split={"magicbrush": args.magicbrush_split, "vqav2": args.vqav2_split},
        questions=args.questions,
        llm_base_url=args.base_url,
        llm_api_key=args.api_key,
        images_per_shard=args.images_per_shard,
        num_shards=args.num_shards,
        compress_level=args.compress_level,
        images=args.images,
        difficulty=args.difficulty,
        axes={f.name: getattr(args, f.name) for f, _, _ in PanelDifficulty.axis_fields()},
        **dataclasses.asdict(run_options(args)),
    )


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("build",
                       help="generate the synthetic configs into a folder of Parquet shards with a dataset card")
    add_build_arguments(p)
    p.add_argument("--sources", default=",".join(PROCEDURAL),
                   help=f"comma-separated image sources from {', '.join(SOURCES)} (default: the two procedural ones)")
    for name, (data, split) in DEFAULT_DATA.items():
        p.add_argument(f"--{name}", default=None,
                       help=f"{name} data: a Hub id or a local Parquet file/folder (default {data})")
        p.add_argument(f"--{name}-split", default=None, help=f"{name} split (default {split})")
    p.add_argument("--layouts", default=None, help="layout ids to build, e.g. 0-6,140 (default: all 210)")
    p.add_argument("--configs", default=None,
                   help=f"comma-separated configs (default all of {', '.join(SYNTHETIC_CONFIGS)})")
    p.add_argument("--questions", default="template",
                   help="template (default) or openai:<model> (the paper's GPT-4 prompt)")
    p.add_argument("--base-url", type=http_url, default=None,
                   help="OpenAI-compatible endpoint for --questions openai:<model>")
    p.add_argument("--api-key", default=None, help="API key for --questions (default $OPENAI_API_KEY)")
    p.add_argument("--images-per-shard", type=int, default=42,
                   help="images per Parquet shard, 3 rows each (default 42)")
    p.add_argument("--split", default="test", choices=["test", "train"],
                   help="split to build (default test); train draws its own image sets")
    p.add_argument("--images", type=int, default=None,
                   help="images per source (default one per layout); more cycle the layouts with fresh image sets")
    p.add_argument("--difficulty", default=DEFAULT, choices=list(PRESETS),
                   help=f"how cluttered the procedural panels are and how small the detail that sets the target apart "
                        f"(default {DEFAULT}; easy is the first release's panels); "
                        "the options below set single dials apart")
    dials = p.add_argument_group("difficulty dials (procedural panels)")
    for f, axis, doc in PanelDifficulty.axis_fields():
        kind = {"choices": CHOICES[f.name]} if f.name in CHOICES else {}
        dials.add_argument("--" + f.name.replace("_", "-"), type=type(f.default), default=None, help=f"{axis}: {doc}",
                           **kind)
    p.set_defaults(func=build_handler(build, config))
