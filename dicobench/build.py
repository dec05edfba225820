"""`dicobench.build`: map the shard generator over shards (local processes or Ray), write the card.

The build is resumable: every shard is a pure function of the build options, finished
shards are kept, and a rerun with the same options only makes the missing ones. A shard is
made and written by one worker (`make_shard`), so any engine gives the same bytes.
"""

from __future__ import annotations

import dataclasses
import os
from collections import Counter
from typing import Sequence

from tqdm.auto import tqdm

from benchkit import __version__
from benchkit.engines import check_engine, map_jobs
from benchkit.errors import UserError
from benchkit.manifest import claim_folder
from benchkit.difficulty import DEFAULT, Difficulty, preset
from benchkit.photos import SizePolicy
from benchkit.scenegen import SceneConfig
from benchkit.shards import (
    Location, ShardWriter, child, complete_shard, glob, location, read_column, remove_shards, shard_name, shard_ranges,
)
from dicobench.card import MANIFEST_DIR, write_card
from dicobench.generate import SPLITS, BuildOptions, photo_source, shard_rows
from dicobench.photo_models import Endpoint, ModelOptions
from dicobench.registry import TASK_REGISTRY
from dicobench.schema import SOURCE_SEPARATOR, TASKS, features

AVAILABLE_TASKS = TASKS
PHOTO_KINDS = ("folder", "vstar", "hf")


@dataclasses.dataclass(frozen=True)
class ShardJob:
    """One shard to make: all a worker needs (picklable, so any engine can ship it)."""

    opts: BuildOptions
    task: str
    shard: int
    path: str  # local path or fsspec URL
    held_out: frozenset[str] = frozenset()  # `source` values of other splits: not to be reused
    endpoint: Endpoint = Endpoint()  # of the LLM backends; never written


def _backends(job: ShardJob):
    """The shard's model backends (None for classical builds); LLM replies are cached beside
    the build, one cache per shard, so a rerun of the shard sends nothing."""
    if job.opts.models == ModelOptions():
        return None
    from dicobench.photo_models import open_backends

    stem = os.path.basename(job.path).removesuffix(".parquet")
    cache = os.path.join(os.path.dirname(os.path.dirname(job.path)), MANIFEST_DIR, "llm-cache", job.task, stem)
    return open_backends(job.opts.models, job.endpoint, cache if job.opts.models.uses_llm else None)


def make_shard(job: ShardJob) -> dict:
    """Generate, check and write one shard; return its stats (also saved as its sidecar)."""
    backends = _backends(job)  # before the writer: a model that fails to load leaves no file behind
    writer = ShardWriter(job.path, features())
    kept, rejections = [], Counter()
    try:
        for row, info in shard_rows(job.opts, job.task, job.shard, backends):
            if not job.held_out.isdisjoint(row["source"].split(SOURCE_SEPARATOR)):
                raise UserError(
                    f"{job.opts.split} row {row['id']} uses base {row['source']}, which another split in "
                    f"{job.path.rsplit('/', 2)[0]} already uses; splits must not share a base scene or photo"
                )
            writer.write(row)
            kept.append({"answer": row["answer"], "changed_area": row["changed_area"], "long_side": info.long_side,
                         "descriptors": info.descriptors})
            rejections.update(info.rejections)
        stats = _shard_stats(job.task, kept, rejections)
    except BaseException:
        writer.abort()
        raise
    finally:
        if backends is not None:
            backends.close()
    writer.close(sidecar=stats)
    return stats


def resolve_difficulty(difficulty: str | Difficulty, axes: dict | None = None) -> Difficulty:
    """The build's `Difficulty` from a preset name (or value) and single dials set apart."""
    try:
        chosen = preset(difficulty) if isinstance(difficulty, str) else difficulty
        return chosen.with_axes(**(axes or {}))
    except (ValueError, TypeError) as exc:
        raise UserError(f"--difficulty: {exc}") from None


def _photo_tasks(source: str, photos: SizePolicy, split: str, test_photos: float | None) -> tuple[str, ...]:
    """The tasks a photo source can give: those with a photo proposer that the source offers
    (instance and category need annotations naming enough objects)."""
    if source.partition(":")[0] not in PHOTO_KINDS:
        raise UserError(f"unknown source {source!r}; expected procedural, folder:DIR, vstar:DIR or hf:REPO[:SPLIT]")
    if test_photos is not None and not 0 < test_photos < 1:
        raise UserError(f"--test-photos must be a share between 0 and 1, got {test_photos}")
    chosen = photo_source(source, photos, split, test_photos)
    if not len(chosen):
        raise UserError(f"source {source!r} holds no photos" + (f" for the {split} split" if test_photos else ""))
    return tuple(t.name for t in TASK_REGISTRY if "photos" in t.proposers and offered(t.proposer("photos"), chosen))


def offered(proposer, source) -> bool:
    """Whether `source` can give the proposer's task: a proposer that needs more than photos
    (annotated names, say) says so with `offers(source)`."""
    offers = getattr(proposer, "offers", None)
    return offers is None or offers(source)


def _resolve_tasks(tasks: Sequence[str] | str | None, available: Sequence[str] = AVAILABLE_TASKS) -> list[str]:
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


def _manifest(opts: BuildOptions, tasks: list[str], source: str) -> dict:
    """The options that determine the bytes."""
    return {
        "generator": f"dicobench {__version__}",
        "per_task": opts.per_task,
        "seed": opts.seed,
        "split": opts.split,
        "tasks": tasks,
        "source": source,
        "rows_per_shard": opts.rows_per_shard,
        "compress_level": opts.compress_level,
        "scene": dataclasses.asdict(opts.scene),
        "photos": dataclasses.asdict(opts.photos),
        "test_photos": opts.test_photos,
        "models": dataclasses.asdict(opts.models),
    }


def _prepare_out(out: Location, manifest: dict, overwrite: bool) -> None:
    split = manifest["split"]

    def clear() -> None:
        for task in TASKS:
            remove_shards(child(out, task), split)

    claim_folder(out, child(out, MANIFEST_DIR, f"{split}.json"), manifest, overwrite, clear, f"{split} split")


def held_out_sources(out: Location, split: str) -> frozenset[str]:
    """Base scenes and photos (`source` column) of the folder's other splits: a split that
    reused one would leak test content into training (or the reverse)."""
    shards = [f for task in TASKS for other in SPLITS if other != split for f in glob(child(out, task), f"{other}-*.parquet")]
    return frozenset(part for f in shards for v in read_column(f, "source") for part in v.split(SOURCE_SEPARATOR))


def _plan(out: Location, opts: BuildOptions, tasks: list[str], endpoint: Endpoint = Endpoint()) -> list[ShardJob]:
    """The shards still to build (finished ones, with their sidecar, are kept)."""
    held_out = held_out_sources(out, opts.split)
    jobs = []
    for task in tasks:
        ranges = shard_ranges(opts.per_task, opts.rows_per_shard)
        for i, rows in enumerate(ranges):
            path = child(out, task, shard_name(opts.split, i, len(ranges)))
            if complete_shard(path, len(rows)) is None:
                jobs.append(ShardJob(opts, task, i, str(path), held_out, endpoint))
    return jobs


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


def build(
    out_dir: str | os.PathLike,
    *,
    per_task: int = 96,
    seed: int = 0,
    tasks: Sequence[str] | str | None = None,
    source: str = "procedural",
    min_long_side: int = 1024,
    upscale: bool = False,
    test_photos: float | None = None,
    editor: str | None = None,
    instructions: str = "template",
    verify: str | None = None,
    base_url: str | None = None,
    api_key: str | None = None,
    edit_steps: int | None = None,
    edit_size: int | None = None,
    num_proc: int | None = None,
    split: str = "test",
    overwrite: bool = False,
    rows_per_shard: int = 48,
    num_shards: int | None = None,
    compress_level: int = 1,
    engine: str = "local",
    ray_address: str | None = None,
    progress: bool = True,
    difficulty: str | Difficulty = DEFAULT,
    axes: dict | None = None,
) -> Location:
    """Build DiCoBench into `out_dir` (per-task configs plus `all`) and return the folder
    (a `Path`, or the URL when `out_dir` is an fsspec URL such as `s3://bucket/dicobench`).

    `num_shards` (shards per task, at most; overrides `rows_per_shard`) fixes the file
    layout, so a rebuild gives the same file names and, for unchanged shards, the same
    bytes. `engine="ray"` runs the shards on Ray (`ray_address`: a cluster, else a local
    Ray with `num_proc` CPUs); the result is byte-identical to the local engine's.

    Photo sources (`folder:DIR`, `vstar:DIR`, `hf:REPO[:SPLIT]`) give the difference track,
    and instance and category where photos carry annotated names. `test_photos` holds that
    share of the photos out for the test split (train uses the rest). `editor`
    (`diffusers:<model-id>`), `instructions` and `verify` (`openai:<model>`, at `base_url`,
    key `api_key` or `$OPENAI_API_KEY`) choose the model backends; an editor build runs one
    process unless `num_proc` says otherwise, as each process loads the pipeline.

    `difficulty` (a preset name, `easy`, `hard` or `extreme`, or a `benchkit.difficulty.Difficulty`)
    sets how small the cues and how cluttered the procedural scenes are; `axes` sets single
    dials apart from it (field name -> value, as `Difficulty.with_axes`).
    """
    difficulty = resolve_difficulty(difficulty, axes)
    if not isinstance(per_task, int) or per_task <= 0:
        raise UserError(f"--per-task must be a positive integer, got {per_task!r}")
    if num_shards is not None:
        if num_shards <= 0:
            raise UserError("--num-shards must be positive")
        rows_per_shard = -(-per_task // num_shards)
    if rows_per_shard <= 0:
        raise UserError("rows per shard must be positive")
    if split not in SPLITS:
        raise UserError(f"unknown split {split!r}; expected one of {', '.join(SPLITS)}")
    photos = SizePolicy(min_long_side, upscale)
    models = ModelOptions(editor, instructions, verify, edit_steps, edit_size)
    models.check()
    available = AVAILABLE_TASKS
    if source == "procedural":
        if models != ModelOptions() or test_photos is not None:
            raise UserError("--editor, --instructions, --verify and --test-photos apply to photo sources (--source)")
    else:
        available = _photo_tasks(source, photos, split, test_photos)
    if models.uses_llm and not isinstance(location(out_dir), os.PathLike):
        raise UserError("--instructions/--verify need a local --out (their reply cache is a local folder)")
    if models.editor and num_proc is None:
        num_proc = 1
    if num_proc is not None and num_proc <= 0:
        raise UserError("--num-proc must be positive")
    if not 0 <= compress_level <= 9:
        raise UserError("PNG compress level must be 0-9")
    check_engine(engine, ray_address)
    task_list = _resolve_tasks(tasks, available)
    out = location(out_dir)
    opts = BuildOptions(per_task=per_task, seed=seed, split=split, compress_level=compress_level,
                        rows_per_shard=rows_per_shard, source=source, photos=photos, test_photos=test_photos,
                        models=models, scene=SceneConfig.from_difficulty(difficulty))
    _prepare_out(out, _manifest(opts, task_list, source), overwrite)
    jobs = _plan(out, opts, task_list, Endpoint(base_url, api_key))
    total = sum(len(shard_ranges(per_task, rows_per_shard)[j.shard]) for j in jobs)
    bar = tqdm(total=total, desc=f"dicobench {split}", unit="row", disable=not progress or total == 0)
    try:
        for stats in map_jobs(make_shard, jobs, engine=engine, num_proc=num_proc, ray_address=ray_address):
            bar.update(stats["rows"])
    finally:
        bar.close()
    write_card(out)
    return out
