"""`dicobench.BuildConfig`: everything a DiCoBench build takes, in one typed, validated object.

`dicobench.build(out, **keywords)`, `dicobench build` (its flags fill the fields) and the
`datasets` builder (`dicobench.datasets_builder`, whose BuilderConfig is this class)
all start from it; `dicobench.build.generation_options` resolves it into what every worker
generates from. The build's manifest records it (`record()`): what was asked, beside what fixes
the bytes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Sequence

from dicobench.editors.models import Endpoint, ModelOptions
from dicobench.kit.engines.config import recorded, unrecorded
from dicobench.kit.engines.driver import RunOptions, Split, check_compress_level, check_count
from dicobench.kit.engines.local import Engine
from dicobench.kit.errors import UserError
from dicobench.kit.scene.camera import CameraBounds
from dicobench.kit.scene.difficulty import DEFAULT, Difficulty, preset
from dicobench.schema import TASKS

if TYPE_CHECKING:
    from dicobench.kit.photos.annotate import AnnotateOptions

MAX_PER_TASK = 1_000_000  # rows per task a build plans (see validate)
CAMERAS = ("none", "on")


@dataclass
class BuildConfig:
    """What a DiCoBench build makes and how it runs: the keyword form of `dicobench.build`, the
    flags of `dicobench build` (same names, `-` for `_`) and the `datasets` builder's config.

    Args:
        per_task: rows per task (at most 1,000,000).
        seed: root seed (0 or more); any row is a pure function of it, the split and the options.
        tasks: task names (a list or comma-separated), or "all"; default every task the source can give.
        source: "procedural" (the offline scene engine) or photos: `folder:DIR`, `vstar:DIR`,
            `hf:REPO[:SPLIT]`, `coco:ANNOTATIONS.json[:IMAGES_DIR]`.
        min_long_side: photos with a shorter long side are skipped (photo sources).
        upscale: upscale small photos to `min_long_side` instead of skipping them.
        test_photos: share of the photos held out for the test split (train uses the rest);
            default every photo for whichever split is built.
        editor: `diffusers:MODEL`, an inpainting pipeline that edits photos instead of the classical ops.
        instructions: "template" or `openai:MODEL` (an LLM writes the editor's instructions).
        verify: `openai:MODEL`, a VLM that checks each edit against its sentence.
        base_url: OpenAI-compatible endpoint of `instructions`/`verify` (not recorded).
        api_key: its key (default `$OPENAI_API_KEY`; never recorded nor shown).
        edit_steps: denoising steps of `editor` (default: the pipeline's usual).
        edit_size: long side `editor` edits at, px (default: the pipeline's native size).
        num_proc: worker processes (default: all cores; 1 with an `editor`).
        split: "test" or "train" (disjoint seed ranges; photos split by `test_photos`).
        overwrite: replace a build with other options in the folder.
        rows_per_shard: rows per Parquet shard.
        num_shards: shards per task, at most (overrides `rows_per_shard`).
        compress_level: PNG level 0-9; default the difficulty's (1 for easy and photos, 5 for hard, 6 for extreme).
        engine: "local" (processes) or "ray".
        ray_address: a Ray cluster for `engine="ray"` (default a local Ray).
        progress: show a progress bar.
        difficulty: `easy`, `hard` (default) or `extreme`, or a `dicobench.kit.scene.difficulty.Difficulty`
            (procedural scenes).
        axes: single difficulty dials set apart from the preset, field name -> value.
        camera: "on" (each image through its own seeded camera), "none" (the clean renders) or a
            `dicobench.kit.scene.camera.CameraBounds`; default the difficulty's (on except at easy; photos on).
        detection: a `dicobench.kit.photos.annotate.AnnotateOptions` for a `folder:` source: its photos'
            objects found by a zero-shot detector (and segmenter) first, cached beside the build.
    """

    per_task: int = 96
    seed: int = 0
    tasks: Sequence[str] | str | None = None
    source: str = "procedural"
    min_long_side: int = 1024
    upscale: bool = False
    test_photos: float | None = None
    editor: str | None = None
    instructions: str = "template"
    verify: str | None = None
    base_url: str | None = unrecorded()
    api_key: str | None = unrecorded(repr=False)
    edit_steps: int | None = None
    edit_size: int | None = None
    num_proc: int | None = unrecorded()
    split: Split = "test"
    overwrite: bool = unrecorded(False)
    rows_per_shard: int = 48
    num_shards: int | None = None
    compress_level: int | None = None
    engine: Engine = unrecorded("local")
    ray_address: str | None = unrecorded()
    progress: bool = unrecorded(True)
    difficulty: str | Difficulty = DEFAULT
    axes: dict | None = None
    camera: str | CameraBounds | None = None
    detection: AnnotateOptions | None = None

    @property
    def procedural(self) -> bool:
        return self.source == "procedural"

    def models(self) -> ModelOptions:
        """The model backends a photo build edits with (recorded with the bytes)."""
        return ModelOptions(self.editor, self.instructions, self.verify, self.edit_steps, self.edit_size)

    def endpoint(self) -> Endpoint:
        return Endpoint(self.base_url, self.api_key)

    def run_options(self) -> RunOptions:
        """How the build runs (none of it changes a byte): an editor build runs one process unless
        `num_proc` says otherwise, as each process loads the pipeline."""
        num_proc = 1 if self.editor and self.num_proc is None and not self.procedural else self.num_proc
        return RunOptions(self.split, self.overwrite, self.engine, num_proc, self.ray_address, self.progress)

    def scene_difficulty(self) -> Difficulty:
        """The procedural scenes' difficulty (photos: the default preset's, for the camera)."""
        return resolve_difficulty(self.difficulty, self.axes) if self.procedural else preset(DEFAULT)

    def camera_bounds(self) -> CameraBounds | None:
        """The bounds each image's camera is drawn within, or None for the clean renders: `camera`'s
        own, "on" (the difficulty's bounds; a difficulty that does not shoot unless told, `easy`, takes
        `CameraBounds()`), "none", or, when None, the difficulty's default (`easy` none, `hard` and
        `extreme` on; photos on)."""
        if isinstance(self.camera, CameraBounds):
            return self.camera
        if self.camera not in (None, *CAMERAS):
            raise UserError(f"--camera must be one of {', '.join(CAMERAS)}, got {self.camera!r}")
        difficulty = self.scene_difficulty()
        on = self.camera == "on" or (self.camera is None and (difficulty.camera_on or not self.procedural))
        if not on:
            return None
        return difficulty.camera if difficulty.camera_on else CameraBounds()

    def validate(self) -> None:
        """Refuse a config that cannot build, one clear line (a `UserError`) for the first fault;
        what needs the photos themselves (the tasks they can give) is checked when they are opened."""
        if not isinstance(self.per_task, int) or self.per_task <= 0:
            raise UserError(f"--per-task must be a positive integer, got {self.per_task!r}")
        check_count(self.per_task, MAX_PER_TASK, "--per-task", "the correct letters are balanced over a task's whole "
                    "count, a schedule every worker computes for each shard (about 24 MB and 2 s at the limit), and "
                    "every shard is planned before the first row (benchmarks/bench_plan.py)")
        if self.num_shards is not None and self.num_shards <= 0:
            raise UserError("--num-shards must be positive")
        if self.rows_per_shard <= 0:
            raise UserError("rows per shard must be positive")
        self._check_source()
        self.run_options().check()
        if self.compress_level is not None:
            check_compress_level(self.compress_level)
        self.camera_bounds()
        _task_names(self.tasks)

    def _check_source(self) -> None:
        models = self.models()
        if self.procedural:
            if models != ModelOptions() or self.test_photos is not None or self.detection is not None:
                models.check()
                raise UserError("--editor, --instructions, --verify, --detector and --test-photos apply to photo "
                                "sources (--source)")
            self.scene_difficulty()
            return
        if self.detection is not None and not self.source.startswith("folder:"):
            raise UserError("--detector annotates plain photos: use it with --source folder:DIR")
        models.check()
        from dicobench.kit.photos.registry import PHOTO_SOURCES, source_usages  # the registry: numpy, Pillow

        if self.source.partition(":")[0] not in PHOTO_SOURCES:
            raise UserError(f"unknown source {self.source!r}; expected procedural, {source_usages()}")
        if self.test_photos is not None and not 0 < self.test_photos < 1:
            raise UserError(f"--test-photos must be a share between 0 and 1, got {self.test_photos}")
        if self.detection is not None:
            self.detection.check()

    def record(self) -> dict:
        """The config as the manifest records it: every field that says what is built, none that
        says how it runs or where a model is reached."""
        return recorded(self, BuildConfig)


def resolve_difficulty(difficulty: str | Difficulty, axes: dict | None = None) -> Difficulty:
    """The build's `Difficulty` from a preset name (or value) and single dials set apart."""
    try:
        chosen = preset(difficulty) if isinstance(difficulty, str) else difficulty
        return chosen.with_axes(**(axes or {}))
    except (ValueError, TypeError) as exc:
        raise UserError(f"--difficulty: {exc}") from None


def _task_names(tasks: Sequence[str] | str | None) -> list[str] | None:
    """The task names asked for (None: every task the source can give), each a known task or "all"."""
    if tasks is None:
        return None
    names = [t for t in tasks.split(",") if t] if isinstance(tasks, str) else list(tasks)
    if not names:
        raise UserError("no task given")
    for task in names:
        if task != "all" and task not in TASKS:
            raise UserError(f"unknown task {task!r}; expected one of {', '.join(TASKS)} or all")
    return names


def resolve_tasks(tasks: Sequence[str] | str | None, available: Sequence[str] = TASKS) -> list[str]:
    """The tasks to build, in the schema's order, from those the source can give (`available`)."""
    names = _task_names(tasks)
    if names is None:
        return list(available)
    out = []
    for task in names:
        if task == "all":
            out.extend(available)
        elif task not in available:
            raise UserError(f"task {task!r} is not available from this source; available: {', '.join(available)}")
        else:
            out.append(task)
    return sorted(set(out), key=TASKS.index)
