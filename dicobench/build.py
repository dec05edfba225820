"""`dicobench.build`: the DiCoBench side of the shared build driver (`dicobench.kit.engines.driver`).

`Options` says what to build (procedural or photo settings apart) and how to run it; `build`
resolves it into the generation options every worker receives (`dicobench.generate.BuildOptions`,
which with the task list is the manifest that fixes the bytes), plans the missing shards and
maps `make_shard` over them on the chosen engine. A shard is made and written by one worker,
so any engine, and a resumed build, gives the same bytes.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
from collections import Counter
from pathlib import Path
from typing import Sequence

from dicobench.kit import __version__
from dicobench.kit.engines.driver import (RunOptions, ShardSet, check_compress_level, check_count, check_split, claimed,
                             missing_shards, other_split_shards, refuse_shared, run_jobs)
from dicobench.kit.people.decisions import build_rejections, holds_rejected
from dicobench.kit.scene.camera import CameraBounds
from dicobench.kit.scene.difficulty import DEFAULT, Difficulty, preset
from dicobench.kit.errors import UserError
from dicobench.kit.photos.annotate import AnnotateOptions
from dicobench.kit.photos.sources import PHOTO_SOURCES, SizePolicy, require_opencv, source_usages
from dicobench.kit.scene.random_scenes import SceneConfig
from dicobench.kit.io.shards import Location, child, location, read_column, shard_ranges
from dicobench.card import write_card
from dicobench.generate import BuildOptions, photo_source, shard_rows
from dicobench.editors.models import Endpoint, ModelOptions
from dicobench.tasks.registry import get_task, tasks_from
from dicobench.schema import MANIFEST_DIR, SOURCE_SEPARATOR, TASKS, features

MAX_PER_TASK = 1_000_000  # rows per task a build plans (see generation_options)
CAMERAS = ("none", "on")


@dataclasses.dataclass(frozen=True)
class Procedural:
    """Rows from the offline scene engine, at a difficulty (default: `hard`; see
    `dicobench.kit.scene.difficulty`)."""

    scene: SceneConfig = dataclasses.field(default_factory=lambda: SceneConfig.from_difficulty(preset(DEFAULT)))

    @classmethod
    def at(cls, difficulty: str | Difficulty = DEFAULT, axes: dict | None = None) -> "Procedural":
        """Scenes at a preset (or `Difficulty`) with single dials (`axes`, field -> value) set apart."""
        return cls(SceneConfig.from_difficulty(resolve_difficulty(difficulty, axes)))


def resolve_difficulty(difficulty: str | Difficulty, axes: dict | None = None) -> Difficulty:
    """The build's `Difficulty` from a preset name (or value) and single dials set apart."""
    try:
        chosen = preset(difficulty) if isinstance(difficulty, str) else difficulty
        return chosen.with_axes(**(axes or {}))
    except (ValueError, TypeError) as exc:
        raise UserError(f"--difficulty: {exc}") from None


@dataclasses.dataclass(frozen=True)
class Photos:
    """Rows from a photo source (`folder:DIR`, `vstar:DIR`, `hf:REPO[:SPLIT]`, `coco:FILE[:DIR]`), edited by the
    classical ops or by the model backends `models` (LLMs reached at `endpoint`, never recorded)."""

    source: str
    min_long_side: int = 1024
    upscale: bool = False
    test_photos: float | None = None  # share of the photos held out for the test split
    models: ModelOptions = ModelOptions()
    endpoint: Endpoint = Endpoint()
    detection: AnnotateOptions | None = None  # a folder's objects found by open-vocabulary models first


@dataclasses.dataclass(frozen=True)
class Options:
    """Everything a DiCoBench build takes; `Options.of` reads the keyword form of `build`."""

    per_task: int = 96
    seed: int = 0
    tasks: Sequence[str] | str | None = None  # default: every task the source can give
    source: Procedural | Photos = Procedural()
    rows_per_shard: int = 48
    num_shards: int | None = None  # shards per task, at most (overrides rows_per_shard)
    compress_level: int | None = None  # default: the difficulty's `png_level` (procedural), else 1
    run: RunOptions = RunOptions()
    camera: str | CameraBounds | None = None  # "none", "on" or bounds of one's own; default: the difficulty's (photos: on)

    @classmethod
    def of(cls, *, per_task: int = 96, seed: int = 0, tasks: Sequence[str] | str | None = None,
           source: str = "procedural", min_long_side: int = 1024, upscale: bool = False,
           test_photos: float | None = None, editor: str | None = None, instructions: str = "template",
           verify: str | None = None, base_url: str | None = None, api_key: str | None = None,
           edit_steps: int | None = None, edit_size: int | None = None, num_proc: int | None = None,
           split: str = "test", overwrite: bool = False, rows_per_shard: int = 48, num_shards: int | None = None,
           compress_level: int | None = None, engine: str = "local", ray_address: str | None = None,
           progress: bool = True, difficulty: str | Difficulty = DEFAULT, axes: dict | None = None,
           camera: str | CameraBounds | None = None, detection: AnnotateOptions | None = None) -> "Options":
        models = ModelOptions(editor, instructions, verify, edit_steps, edit_size)
        chosen = source_settings(source, min_long_side, upscale, test_photos, models, Endpoint(base_url, api_key),
                                 difficulty, axes, detection)
        run = RunOptions(split, overwrite, engine, num_proc, ray_address, progress)
        return cls(per_task, seed, tasks, chosen, rows_per_shard, num_shards, compress_level, run, camera)


def source_settings(source: str, min_long_side: int = 1024, upscale: bool = False, test_photos: float | None = None,
                    models: ModelOptions = ModelOptions(), endpoint: Endpoint = Endpoint(),
                    difficulty: str | Difficulty = DEFAULT, axes: dict | None = None,
                    detection: AnnotateOptions | None = None) -> Procedural | Photos:
    """The settings of `--source`: the scene engine at a difficulty, or photos with their size
    policy, models and detection (the difficulty dials are the scene engine's)."""
    if source != "procedural":
        if detection is not None and not source.startswith("folder:"):
            raise UserError("--detector annotates plain photos: use it with --source folder:DIR")
        return Photos(source, min_long_side, upscale, test_photos, models, endpoint, detection)
    if models != ModelOptions() or test_photos is not None or detection is not None:
        models.check()
        raise UserError("--editor, --instructions, --verify, --detector and --test-photos apply to photo sources (--source)")
    return Procedural.at(difficulty, axes)


def camera_bounds(camera: str | CameraBounds | None, source: Procedural | Photos) -> CameraBounds | None:
    """The bounds each image's camera is drawn within, or None for the clean renders: `camera`'s
    own, "on" (the difficulty's bounds; photos: the default difficulty's), "none", or, when None,
    the difficulty's default (`easy` none, `hard` and `extreme` on; photos on)."""
    if isinstance(camera, CameraBounds):
        return camera
    if camera not in (None, *CAMERAS):
        raise UserError(f"--camera must be one of {', '.join(CAMERAS)}, got {camera!r}")
    difficulty = source.scene.difficulty if isinstance(source, Procedural) else preset(DEFAULT)
    on = camera == "on" or (camera is None and (difficulty.camera_on or isinstance(source, Photos)))
    return difficulty.camera if on else None


@dataclasses.dataclass(frozen=True)
class ShardJob:
    """One shard to make: all a worker needs (picklable, so any engine can ship it)."""

    opts: BuildOptions
    task: str
    shard: int
    path: str  # local path or fsspec URL
    held_out: frozenset[str] = frozenset()  # `source` values of other splits: not to be reused
    endpoint: Endpoint = Endpoint()  # of the LLM backends; never written
    rejected: frozenset[tuple[str, int]] = frozenset()  # (id, seed) versions reviewers rejected


def _backends(job: ShardJob):
    """The shard's model backends (None for classical builds); LLM replies are cached beside
    the build, one cache per shard, so a rerun of the shard sends nothing."""
    if job.opts.models == ModelOptions():
        return None
    from dicobench.editors.models import open_backends

    stem = os.path.basename(job.path).removesuffix(".parquet")
    cache = os.path.join(os.path.dirname(os.path.dirname(job.path)), MANIFEST_DIR, "llm-cache", job.task, stem)
    return open_backends(job.opts.models, job.endpoint, cache if job.opts.models.uses_llm else None)


def make_shard(job: ShardJob) -> dict:
    """Generate, check and write one shard; return its stats (also saved as its sidecar)."""
    backends = _backends(job)  # before the writer: a model that fails to load leaves no file behind
    try:
        with ShardSet({job.task: job.path}, features()) as shards:
            kept, rejections = [], Counter()
            for row, info in shard_rows(job.opts, job.task, job.shard, backends, job.rejected):
                refuse_shared(row["source"].split(SOURCE_SEPARATOR), job.held_out, lambda _: (
                    f"{job.opts.split} row {row['id']} uses base {row['source']}, which another split in "
                    f"{job.path.rsplit('/', 2)[0]} already uses; splits must not share a base scene or photo"))
                shards.write(job.task, row)
                kept.append({"answer": row["answer"], "changed_area": row["changed_area"], "long_side": info.long_side,
                             "descriptors": info.descriptors})
                rejections.update(info.rejections)
            shards.stats[job.task] = _shard_stats(job.task, kept, rejections)
    finally:
        if backends is not None:
            backends.close()
    return shards.stats[job.task]


def _photo_tasks(photos: Photos, split: str) -> tuple[str, ...]:
    """The tasks a photo source can give: those with a photo proposer that the source offers
    (instance and category need annotations naming enough objects), within those its kind
    declares."""
    if photos.source.partition(":")[0] not in PHOTO_SOURCES:
        raise UserError(f"unknown source {photos.source!r}; expected procedural, {source_usages()}")
    if photos.test_photos is not None and not 0 < photos.test_photos < 1:
        raise UserError(f"--test-photos must be a share between 0 and 1, got {photos.test_photos}")
    require_opencv()  # before any proposer (which imports it) loads
    chosen = photo_source(photos.source, SizePolicy(photos.min_long_side, photos.upscale), split, photos.test_photos)
    if not len(chosen):
        raise UserError(f"source {photos.source!r} holds no photos" + (f" for the {split} split" if photos.test_photos else ""))
    declared = PHOTO_SOURCES.get(photos.source.partition(":")[0]).tasks
    return tuple(t for t in tasks_from("photos")
                 if (declared is None or t in declared) and offered(get_task(t).proposer("photos"), chosen))


def offered(proposer, source) -> bool:
    """Whether `source` can give the proposer's task: a proposer that needs more than photos
    (annotated names, say) says so with `offers(source)`."""
    offers = getattr(proposer, "offers", None)
    return offers is None or offers(source)


def _resolve_tasks(tasks: Sequence[str] | str | None, available: Sequence[str] = TASKS) -> list[str]:
    if tasks is None:
        return list(available)
    if isinstance(tasks, str):
        tasks = [t for t in tasks.split(",") if t]
    if not tasks:
        raise UserError("no task given")
    out = []
    for task in tasks:
        if task == "all":
            out.extend(available)
        elif task not in TASKS:
            raise UserError(f"unknown task {task!r}; expected one of {', '.join(TASKS)} or all")
        elif task not in available:
            raise UserError(f"task {task!r} is not available from this source; available: {', '.join(available)}")
        else:
            out.append(task)
    return sorted(set(out), key=TASKS.index)


def _manifest(opts: BuildOptions, tasks: list[str]) -> dict:
    """The options that determine the bytes."""
    return {
        "generator": f"dicobench {__version__}",
        "per_task": opts.per_task,
        "seed": opts.seed,
        "split": opts.split,
        "tasks": tasks,
        "source": opts.source,
        "rows_per_shard": opts.rows_per_shard,
        "compress_level": opts.compress_level,
        "png_writer": opts.png_writer,
        "scene": dataclasses.asdict(opts.scene),
        "photos": dataclasses.asdict(opts.photos),
        "test_photos": opts.test_photos,
        "models": dataclasses.asdict(opts.models),
        "camera": None if opts.camera is None else dataclasses.asdict(opts.camera),
        **_licences(opts),
        **({"detection": {k: v for k, v in opts.detection.info().items() if k != "description"}} if opts.detection else {}),
    }


def _licences(opts: BuildOptions) -> dict:
    """For a COCO source, the licences its file gives the split's photos (for the card), and the
    annotations reviewers rejected."""
    if not opts.source.startswith("coco:"):
        return {}
    from dicobench.kit.photos.coco import photo_licences

    from dicobench.kit.photos.annotation_review import rejected

    licences, unstated = photo_licences(photo_source(opts.source, opts.photos, opts.split, opts.test_photos))
    out = {"photo_licences": {"licences": [dataclasses.asdict(l) for l in licences], "unstated": unstated}}
    dropped = rejected(opts.source.removeprefix("coco:").partition(":")[0])
    if dropped:  # reviewers' rejections change the objects: a build with other ones is another build
        out["rejected_annotations"] = sorted(dropped)
    return out


def held_out_sources(out: Location, split: str) -> frozenset[str]:
    """Base scenes and photos (`source` column) of the folder's other splits: a split that
    reused one would leak test content into training (or the reverse)."""
    shards = other_split_shards(out, TASKS, split)
    return frozenset(part for f in shards for v in read_column(f, "source") for part in v.split(SOURCE_SEPARATOR))


def _shard_stats(task: str, rows: list[dict], rejections: Counter) -> dict:
    return {
        "task": task,
        "rows": len(rows),
        "letters": dict(Counter(r["answer"] for r in rows)),
        "rejections": dict(rejections),
        "changed_area": [r["changed_area"] for r in rows if r["answer"] != "E"],
        "long_side": [r["long_side"] for r in rows],
        "descriptors": [r["descriptors"] for r in rows],
    }


def generation_options(options: Options) -> tuple[BuildOptions, list[str], RunOptions]:
    """Check `options`; return what every worker generates from, the tasks, and how to run."""
    per_task, run = options.per_task, options.run
    if not isinstance(per_task, int) or per_task <= 0:
        raise UserError(f"--per-task must be a positive integer, got {per_task!r}")
    check_count(per_task, MAX_PER_TASK, "--per-task", "the correct letters are balanced over a task's whole count, "
                "a schedule every worker computes for each shard (about 24 MB and 2 s at the limit), and every shard "
                "is planned before the first row (benchmarks/bench_plan.py)")
    rows_per_shard = options.rows_per_shard
    if options.num_shards is not None:
        if options.num_shards <= 0:
            raise UserError("--num-shards must be positive")
        rows_per_shard = -(-per_task // options.num_shards)
    if rows_per_shard <= 0:
        raise UserError("rows per shard must be positive")
    check_split(run.split)
    photos = options.source if isinstance(options.source, Photos) else None
    if photos is not None:
        photos.models.check()
        available = _photo_tasks(photos, run.split)
        if photos.models.editor and run.num_proc is None:
            run = dataclasses.replace(run, num_proc=1)  # each process loads the pipeline
    else:
        available = TASKS
    run.check()
    level = options.compress_level
    if level is None:
        level = options.source.scene.difficulty.png_level if photos is None else 1
    check_compress_level(level)
    tasks = _resolve_tasks(options.tasks, available)
    camera = camera_bounds(options.camera, options.source)
    if photos is None:
        opts = BuildOptions(per_task=per_task, seed=options.seed, split=run.split, compress_level=level,
                            png_writer=options.source.scene.difficulty.png_writer,
                            rows_per_shard=rows_per_shard, scene=options.source.scene, camera=camera)
    else:
        opts = BuildOptions(per_task=per_task, seed=options.seed, split=run.split, compress_level=level,
                            rows_per_shard=rows_per_shard, source=photos.source,
                            photos=SizePolicy(photos.min_long_side, photos.upscale), test_photos=photos.test_photos,
                            models=photos.models, camera=camera, detection=photos.detection)
    return opts, tasks, run


def annotated(options: Options, out: Location) -> Options:
    """A folder build with `--detector`: its photos annotated once (`dicobench.kit.photos.annotate`)
    into a COCO file cached beside the build, named by the folder and the detection options, so
    a rebuild (or a resumed one) sends nothing to the models; the build then reads that file."""
    from dicobench.kit.photos.annotate import annotate

    photos = options.source
    if not isinstance(out, os.PathLike):
        raise UserError("--detector needs a local --out (the annotations are cached there)")
    folder = Path(photos.source.removeprefix("folder:")).expanduser()
    photos.detection.check()
    key = hashlib.sha256(json.dumps([str(folder.resolve()), photos.detection.info()], sort_keys=True).encode()).hexdigest()[:16]
    path = annotate(folder, Path(out) / MANIFEST_DIR / "annotations" / f"{key}.json", photos.detection, options.run.progress)
    return dataclasses.replace(options, source=dataclasses.replace(photos, source=f"coco:{path}:{folder}"))


def build(out_dir: str | os.PathLike, options: Options | None = None, **settings) -> Location:
    """Build DiCoBench into `out_dir` (per-task configs plus `all`) and return the folder
    (a `Path`, or the URL when `out_dir` is an fsspec URL such as `s3://bucket/dicobench`).

    Give either an `Options` or its keyword form (`Options.of`): `per_task`, `seed`, `tasks`,
    `source`, `num_proc`, `split`, `overwrite`, `rows_per_shard`, `num_shards`, `compress_level`,
    `engine`, `ray_address`, `progress`, `camera` ("on": each image of a pair shot through its own
    camera, "none": the clean renders, or a `dicobench.kit.scene.camera.CameraBounds`; default: on, except
    at `easy`), for procedural builds `difficulty` (`easy`, `hard`, the
    default, or `extreme`; or a `dicobench.kit.scene.difficulty.Difficulty`) and `axes` (single dials set
    apart from it, field name -> value), and for photo sources `min_long_side`, `upscale`,
    `test_photos`, `editor`, `instructions`, `verify`, `base_url`, `api_key`, `edit_steps`, `edit_size`,
    and for a `folder:` source `detection` (a `dicobench.kit.photos.annotate.AnnotateOptions`: its photos'
    objects found by a zero-shot detector and segmenter first, cached beside the build).

    `num_shards` (shards per task, at most; overrides `rows_per_shard`) fixes the file
    layout, so a rebuild gives the same file names and, for unchanged shards, the same
    bytes. `engine="ray"` runs the shards on Ray (`ray_address`: a cluster, else a local
    Ray with `num_proc` CPUs); the result is byte-identical to the local engine's.

    Photo sources (`folder:DIR`, `vstar:DIR`, `hf:REPO[:SPLIT]`, `coco:ANNOTATIONS.json[:IMAGES_DIR]`)
    give the difference track, and instance and category where photos carry annotated names. `test_photos` holds that
    share of the photos out for the test split (train uses the rest). `editor`
    (`diffusers:<model-id>`), `instructions` and `verify` (`openai:<model>`, at `base_url`,
    key `api_key` or `$OPENAI_API_KEY`) choose the model backends; an editor build runs one
    process unless `num_proc` says otherwise, as each process loads the pipeline.
    """
    if options is None:
        options = Options.of(**settings)
    elif settings:
        raise TypeError("build() takes an Options object or keyword settings, not both")
    out = location(out_dir)
    if isinstance(options.source, Photos) and options.source.detection is not None:
        options = annotated(options, out)
    opts, tasks, run = generation_options(options)
    if opts.models.uses_llm and not isinstance(out, os.PathLike):
        raise UserError("--instructions/--verify need a local --out (their reply cache is a local folder)")
    with claimed(out, child(out, MANIFEST_DIR, f"{run.split}.json"), _manifest(opts, tasks), TASKS, run,
                 f"{run.split} split"):
        endpoint = options.source.endpoint if isinstance(options.source, Photos) else Endpoint()
        held_out = held_out_sources(out, run.split)
        ranges = shard_ranges(opts.per_task, opts.rows_per_shard)
        rejected = build_rejections(out)  # rows reviewers rejected (`dicobench review`) are regenerated
        todo = missing_shards(out, tasks, run.split, ranges, stale=lambda path: holds_rejected(path, rejected),
                              features=features())
        jobs = [ShardJob(opts, task, k, str(todo[k][task]), held_out, endpoint, rejected)
                for task in tasks for k in sorted(todo) if task in todo[k]]
        run_jobs(make_shard, jobs, sum(len(ranges[j.shard]) for j in jobs), f"dicobench {run.split}", run)
        write_card(out)
    return out
