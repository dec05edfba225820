"""`multipanelvqa.BuildConfig`: everything a MultipanelVQA build takes, in one typed, validated object.

`multipanelvqa.build(out, **keywords)`, `multipanelvqa build` (its flags fill the fields) and
the `datasets` builder (`multipanelvqa.datasets_builder`, whose BuilderConfig is this
class) all start from it; `multipanelvqa.build.plan` resolves it into the images to make. The
build's manifest records it (`record()`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from dicobench.kit.engines.config import recorded, unrecorded
from dicobench.kit.engines.driver import RunOptions, Split, check_compress_level, check_count, check_split
from dicobench.kit.engines.local import Engine
from dicobench.kit.errors import UserError
from multipanelvqa.difficulty import DEFAULT, PanelDifficulty, resolve
from multipanelvqa.generate import SYNTHETIC_CONFIGS
from multipanelvqa.questions.llm import QuestionSource
from multipanelvqa.sources.adapters import ADAPTERS
from multipanelvqa.sources.image_sets import PROCEDURAL

SOURCES = PROCEDURAL + ADAPTERS
MAX_IMAGES = 100_000  # images per source a build plans (see validate)


@dataclass
class BuildConfig:
    """What a MultipanelVQA build makes and how it runs: the keyword form of `multipanelvqa.build`,
    the flags of `multipanelvqa build` and the `datasets` builder's config.

    Args:
        seed: root seed (0 or more).
        sources: image sources (a list or comma-separated) from `procedural_edit`, `procedural_scene`,
            `magicbrush`, `vqav2`; default the two procedural ones.
        layouts: layout ids, a list or ranges like "0-6,140"; default all 210.
        configs: synthetic configs (a list or comma-separated); default all seven.
        source_data: per adapter (`magicbrush`, `vqav2`), a Hub id or a local Parquet file/folder.
        source_split: per adapter, the split it reads.
        questions: "template" or `openai:MODEL` (the paper's question prompt).
        llm_base_url: OpenAI-compatible endpoint of `questions` (not recorded).
        llm_api_key: its key (default `$OPENAI_API_KEY`; never recorded nor shown).
        images_per_shard: images per Parquet shard, three rows each.
        num_shards: shards per config, at most (overrides `images_per_shard`).
        compress_level: PNG level 0-9.
        images: images per source (default one per layout); more cycle the layouts with fresh image sets.
        split: "test" or "train" (train draws its own image sets; procedural sources only).
        overwrite: replace a build with other options in the folder.
        engine: "local" (processes) or "ray".
        num_proc: worker processes (default: all cores).
        ray_address: a Ray cluster for `engine="ray"` (default a local Ray).
        progress: show a progress bar.
        difficulty: `easy`, `hard` (default) or `extreme`, or a `multipanelvqa.difficulty.PanelDifficulty`.
        axes: single panel dials set apart from the preset, field name -> value.
    """

    seed: int = 0
    sources: Sequence[str] | str = PROCEDURAL
    layouts: Sequence[int] | str | None = None
    configs: Sequence[str] | str | None = None
    source_data: dict[str, str] | None = None
    source_split: dict[str, str] | None = None
    questions: str = "template"
    llm_base_url: str | None = unrecorded()
    llm_api_key: str | None = unrecorded(repr=False)
    images_per_shard: int = 42
    num_shards: int | None = None
    compress_level: int = 1
    images: int | None = None
    split: Split = "test"
    overwrite: bool = unrecorded(False)
    engine: Engine = unrecorded("local")
    num_proc: int | None = unrecorded()
    ray_address: str | None = unrecorded()
    progress: bool = unrecorded(True)
    difficulty: str | PanelDifficulty = DEFAULT
    axes: dict | None = None

    def run_options(self) -> RunOptions:
        """How the build runs (none of it changes a byte)."""
        return RunOptions(self.split, self.overwrite, self.engine, self.num_proc, self.ray_address, self.progress)

    def panels(self) -> PanelDifficulty:
        """The resolved panel difficulty; a clear error for a bad preset or dial."""
        try:
            return resolve(self.difficulty, self.axes)
        except (ValueError, TypeError) as exc:
            raise UserError(f"--difficulty: {exc}") from None

    def source_list(self) -> list[str]:
        return resolve_names(self.sources, SOURCES, "source")

    def config_list(self) -> list[str]:
        return resolve_names(self.configs if self.configs is not None else SYNTHETIC_CONFIGS, SYNTHETIC_CONFIGS,
                             "config")

    def question_source(self) -> QuestionSource:
        return QuestionSource.parse(self.questions, self.llm_base_url, self.llm_api_key)

    def validate(self) -> None:
        """Refuse a config that cannot build, one clear line (a `UserError`) for the first fault;
        what needs the layouts (their ids, the words that name their panels) is checked when they
        are drawn (`multipanelvqa.build.plan`)."""
        check_split(self.split)
        if self.images is not None and (not isinstance(self.images, int) or self.images <= 0):
            raise UserError(f"--images must be a positive integer, got {self.images!r}")
        if self.images is not None:
            check_count(self.images, MAX_IMAGES, "--images", "Q1's yes/no and Q3's letters are balanced over a "
                        "source's whole count and every image is planned on the driver before the first shard (about "
                        "140 MB and a minute at the limit)")
        self.source_list()
        self.config_list()
        if self.num_shards is not None and self.num_shards <= 0:
            raise UserError("--num-shards must be positive")
        if self.images_per_shard <= 0:
            raise UserError("images per shard must be positive")
        check_compress_level(self.compress_level)
        self.panels()
        self.run_options().check()
        self.question_source()

    def record(self) -> dict:
        """The config as the manifest records it: every field that says what is built, none that
        says how it runs or where a model is reached."""
        return recorded(self, BuildConfig)


def resolve_names(values, allowed: Sequence[str], what: str) -> list[str]:
    """Names from a list or a comma-separated string, each one of `allowed`, in its order."""
    if isinstance(values, str):
        values = [v for v in values.split(",") if v]
    values = list(values)
    if not values:
        raise UserError(f"no {what} given")
    unknown = [v for v in values if v not in allowed]
    if unknown:
        raise UserError(f"unknown {what} {', '.join(map(repr, unknown))}; expected any of {', '.join(allowed)}")
    return sorted(set(values), key=list(allowed).index)
