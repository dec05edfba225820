"""`dicobench.build`: the DiCoBench side of the shared build driver (`dicobench.kit.engines.driver`).

A `dicobench.build_config.BuildConfig` says what to build and how to run it; `build` resolves
it (`generation_options`) into the generation options every worker receives
(`dicobench.generate.BuildOptions`, which with the task list is the part of the manifest that
fixes the bytes; the manifest also records the config), plans the missing shards and maps
`make_shard` over them on the chosen engine. A shard is made and written by one worker, so any
engine, and a resumed build, gives the same bytes.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
from collections import Counter
from pathlib import Path

from dicobench.build_config import BuildConfig, resolve_tasks
from dicobench.card import write_card
from dicobench.editors.models import Endpoint, ModelOptions
from dicobench.generate import BuildOptions, photo_source, shard_rows
from dicobench.kit import __version__
from dicobench.kit.engines.driver import (
    RunOptions,
    ShardSet,
    claimed,
    missing_shards,
    other_split_shards,
    refuse_shared,
    run_jobs,
)
from dicobench.kit.errors import UserError
from dicobench.kit.io.shards import Location, child, location, read_column, shard_ranges
from dicobench.kit.people.decisions import build_rejections, holds_rejected
from dicobench.kit.photos.model import SizePolicy
from dicobench.kit.photos.proposals import require_opencv
from dicobench.kit.photos.registry import PHOTO_SOURCES
from dicobench.kit.scene.random_scenes import SceneConfig
from dicobench.schema import MANIFEST_DIR, SOURCE_SEPARATOR, TASKS, features
from dicobench.tasks.registry import get_task, tasks_from


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


def _photo_tasks(config: BuildConfig) -> tuple[str, ...]:
    """The tasks a photo source can give: those with a photo proposer that the source offers
    (instance and category need annotations naming enough objects), within those its kind
    declares."""
    require_opencv()  # before any proposer (which imports it) loads
    chosen = photo_source(config.source, SizePolicy(config.min_long_side, config.upscale), config.split,
                          config.test_photos)
    if not len(chosen):
        raise UserError(f"source {config.source!r} holds no photos"
                        + (f" for the {config.split} split" if config.test_photos else ""))
    declared = PHOTO_SOURCES.get(config.source.partition(":")[0]).tasks
    return tuple(t for t in tasks_from("photos")
                 if (declared is None or t in declared) and offered(get_task(t).proposer("photos"), chosen))


def offered(proposer, source) -> bool:
    """Whether `source` can give the proposer's task: a proposer that needs more than photos
    (annotated names, say) says so with `offers(source)`."""
    offers = getattr(proposer, "offers", None)
    return offers is None or offers(source)


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
        "scene": {**dataclasses.asdict(opts.scene), "difficulty": opts.scene.difficulty.manifest()},
        "photos": dataclasses.asdict(opts.photos),
        "test_photos": opts.test_photos,
        "models": dataclasses.asdict(opts.models),
        "camera": None if opts.camera is None else dataclasses.asdict(opts.camera),
        **_licences(opts),
        **({"detection": {k: v for k, v in opts.detection.info().items() if k != "description"}}
           if opts.detection else {}),
    }


def _licences(opts: BuildOptions) -> dict:
    """For a COCO source, the licences its file gives the split's photos (for the card), and the
    annotations reviewers rejected."""
    if not opts.source.startswith("coco:"):
        return {}
    from dicobench.kit.photos.annotation_review import rejected
    from dicobench.kit.photos.coco import photo_licences

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


def generation_options(config: BuildConfig) -> tuple[BuildOptions, list[str], RunOptions]:
    """Validate `config`; return what every worker generates from, the tasks, and how to run:
    the one place a config becomes the engine's options."""
    config.validate()
    return _resolved(config)


def _resolved(config: BuildConfig) -> tuple[BuildOptions, list[str], RunOptions]:
    """`generation_options` of a config validated already (`build`'s, whose `--detector` source has
    become the COCO file it annotated, with the detection kept for the card)."""
    rows_per_shard = config.rows_per_shard
    if config.num_shards is not None:
        rows_per_shard = -(-config.per_task // config.num_shards)
    camera = config.camera_bounds()
    common = dict(per_task=config.per_task, seed=config.seed, split=config.split, rows_per_shard=rows_per_shard,
                  camera=camera)
    if config.procedural:
        difficulty = config.scene_difficulty()
        level = difficulty.png_level if config.compress_level is None else config.compress_level
        opts = BuildOptions(**common, compress_level=level, png_writer=difficulty.png_writer,
                            scene=SceneConfig.from_difficulty(difficulty))
        available = TASKS
    else:
        level = 1 if config.compress_level is None else config.compress_level
        opts = BuildOptions(**common, compress_level=level, source=config.source,
                            photos=SizePolicy(config.min_long_side, config.upscale), test_photos=config.test_photos,
                            models=config.models(), detection=config.detection)
        available = _photo_tasks(config)
    return opts, resolve_tasks(config.tasks, available), config.run_options()


def annotated(config: BuildConfig, out: Location) -> BuildConfig:
    """A folder build with `detection`: its photos annotated once (`dicobench.kit.photos.annotate`)
    into a COCO file cached beside the build, named by the folder and the detection options, so
    a rebuild (or a resumed one) sends nothing to the models; the build then reads that file."""
    from dicobench.kit.photos.annotate import annotate

    if not isinstance(out, os.PathLike):
        raise UserError("--detector needs a local --out (the annotations are cached there)")
    folder = Path(config.source.removeprefix("folder:")).expanduser()
    key = hashlib.sha256(json.dumps([str(folder.resolve()), config.detection.info()],
                                    sort_keys=True).encode()).hexdigest()[:16]
    path = annotate(folder, Path(out) / MANIFEST_DIR / "annotations" / f"{key}.json", config.detection,
                    config.progress)
    return dataclasses.replace(config, source=f"coco:{path}:{folder}")


def build(out_dir: str | os.PathLike, config: BuildConfig | None = None, **settings) -> Location:
    """Build DiCoBench into `out_dir` (per-task configs plus `all`) and return the folder
    (a `Path`, or the URL when `out_dir` is an fsspec URL such as `s3://bucket/dicobench`).

    Give either a `config` (`dicobench.BuildConfig`) or its fields as keywords (`per_task`, `seed`,
    `tasks`, `source`, `num_proc`, ...; its docstring says what each does); a keyword that is no
    field is a TypeError. `num_shards` (shards per task, at most; overrides `rows_per_shard`) fixes
    the file layout, so a rebuild gives the same file names and, for unchanged shards, the same
    bytes. `engine="ray"` runs the shards on Ray (`ray_address`: a cluster, else a local Ray with
    `num_proc` CPUs); the result is byte-identical to the local engine's.

    Photo sources (`folder:DIR`, `vstar:DIR`, `hf:REPO[:SPLIT]`, `coco:ANNOTATIONS.json[:IMAGES_DIR]`)
    give the difference track, and instance and category where photos carry annotated names.
    """
    if config is None:
        config = BuildConfig(**settings)
    elif settings:
        raise TypeError("build() takes a BuildConfig or its fields as keywords, not both")
    config.validate()
    out = location(out_dir)
    asked = config.record()
    if config.detection is not None:
        config = annotated(config, out)
    opts, tasks, run = _resolved(config)
    if opts.models.uses_llm and not isinstance(out, os.PathLike):
        raise UserError("--instructions/--verify need a local --out (their reply cache is a local folder)")
    with claimed(out, child(out, MANIFEST_DIR, f"{run.split}.json"), _manifest(opts, tasks), TASKS, run,
                 f"{run.split} split", asked):
        held_out = held_out_sources(out, run.split)
        ranges = shard_ranges(opts.per_task, opts.rows_per_shard)
        rejected = build_rejections(out)  # rows reviewers rejected (`dicobench review`) are regenerated
        todo = missing_shards(out, tasks, run.split, ranges, stale=lambda path: holds_rejected(path, rejected),
                              features=features())
        jobs = [ShardJob(opts, task, k, str(todo[k][task]), held_out, config.endpoint(), rejected)
                for task in tasks for k in sorted(todo) if task in todo[k]]
        run_jobs(make_shard, jobs, sum(len(ranges[j.shard]) for j in jobs), f"dicobench {run.split}", run)
        write_card(out)
    return out
