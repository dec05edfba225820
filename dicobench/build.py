"""`dicobench.build`: generate rows in worker processes, stream them into shards, write the card.

The build is resumable: every shard is a pure function of the build options, finished
shards are kept, and a rerun with the same options only makes the missing ones.
"""

from __future__ import annotations

import dataclasses
import multiprocessing as mp
import os
from collections import Counter
from pathlib import Path
from typing import Iterator, Sequence

from tqdm.auto import tqdm

from benchkit import __version__
from benchkit.errors import UserError
from benchkit.manifest import claim_folder
from benchkit.shards import ShardWriter, complete_shard, shard_name, shard_ranges, sidecar_path
from dicobench.card import write_card
from dicobench.generate import SPLITS, BuildOptions, RowInfo, generate_row, letter_schedule
from dicobench.schema import DIFFERENCE_TASKS, TASKS, features

AVAILABLE_TASKS = TASKS
SOURCES = ("procedural",)
from dicobench.card import MANIFEST_DIR


def _work(item: tuple[str, int, str, BuildOptions]):
    task, index, letter, opts = item
    row, info = generate_row(task, index, letter, opts)
    return task, index, row, info


def _resolve_tasks(tasks: Sequence[str] | str | None) -> list[str]:
    if tasks is None:
        return list(AVAILABLE_TASKS)
    if isinstance(tasks, str):
        tasks = [t for t in tasks.split(",") if t]
    if not tasks:
        raise UserError("no task given")
    out = []
    for task in tasks:
        if task == "all":
            out.extend(AVAILABLE_TASKS)
        elif task not in TASKS:
            raise UserError(f"unknown task {task!r}; expected one of {', '.join(TASKS)} or all")
        elif task not in AVAILABLE_TASKS:
            raise UserError(f"task {task!r} is not available in this version; available: {', '.join(AVAILABLE_TASKS)}")
        else:
            out.append(task)
    return sorted(set(out), key=TASKS.index)


def _manifest(opts: BuildOptions, tasks: list[str], source: str, rows_per_shard: int) -> dict:
    """The options that determine the bytes."""
    return {
        "generator": f"dicobench {__version__}",
        "per_task": opts.per_task,
        "seed": opts.seed,
        "split": opts.split,
        "tasks": tasks,
        "source": source,
        "rows_per_shard": rows_per_shard,
        "compress_level": opts.compress_level,
        "scene": dataclasses.asdict(opts.scene),
    }


def _prepare_out(out: Path, manifest: dict, overwrite: bool) -> None:
    split = manifest["split"]

    def clear() -> None:
        for task in TASKS:
            for f in (out / task).glob(f"{split}-*.parquet"):
                sidecar_path(f).unlink(missing_ok=True)
                f.unlink()

    claim_folder(out, out / MANIFEST_DIR / f"{split}.json", manifest, overwrite, clear, f"{split} split")


def _plan(out: Path, opts: BuildOptions, tasks: list[str], rows_per_shard: int):
    """Shards still to build, as (task, shard path, row range), and stats of finished ones."""
    todo, done = [], []
    for task in tasks:
        ranges = shard_ranges(opts.per_task, rows_per_shard)
        for i, rows in enumerate(ranges):
            path = out / task / shard_name(opts.split, i, len(ranges))
            stats = complete_shard(path, len(rows))
            if stats is None:
                todo.append((task, path, rows))
            else:
                done.append(stats)
    return todo, done


def _rows(todo, opts: BuildOptions, num_proc: int) -> Iterator[tuple[str, int, dict, RowInfo]]:
    items = []
    for task, _, rows in todo:
        letters = letter_schedule(task, opts.per_task, opts.seed, opts.split)
        items.extend((task, i, letters[i], opts) for i in rows)
    if num_proc <= 1:
        yield from map(_work, items)
        return
    with mp.get_context("spawn").Pool(num_proc) as pool:
        yield from pool.imap(_work, items, chunksize=1)


def _shard_stats(task: str, rows: list[dict], rejections: Counter) -> dict:
    return {
        "task": task,
        "rows": len(rows),
        "letters": dict(Counter(r["answer"] for r in rows)),
        "rejections": dict(rejections),
        "changed_area": [r["changed_area"] for r in rows if r["answer"] != "E"],
        "long_side": [r["long_side"] for r in rows],
    }


def build(
    out_dir: str | os.PathLike,
    *,
    per_task: int = 96,
    seed: int = 0,
    tasks: Sequence[str] | str | None = None,
    source: str = "procedural",
    num_proc: int | None = None,
    split: str = "test",
    overwrite: bool = False,
    rows_per_shard: int = 48,
    compress_level: int = 1,
    progress: bool = True,
) -> Path:
    """Build DiCoBench into `out_dir` (per-task configs plus `all`) and return the folder."""
    if not isinstance(per_task, int) or per_task <= 0:
        raise UserError(f"--per-task must be a positive integer, got {per_task!r}")
    if rows_per_shard <= 0:
        raise UserError("rows per shard must be positive")
    if split not in SPLITS:
        raise UserError(f"unknown split {split!r}; expected one of {', '.join(SPLITS)}")
    if source not in SOURCES:
        raise UserError(f"unknown source {source!r}; available: {', '.join(SOURCES)}")
    if num_proc is not None and num_proc <= 0:
        raise UserError("--num-proc must be positive")
    if not 0 <= compress_level <= 9:
        raise UserError("PNG compress level must be 0-9")
    task_list = _resolve_tasks(tasks)
    out = Path(out_dir)
    opts = BuildOptions(per_task=per_task, seed=seed, split=split, compress_level=compress_level)
    _prepare_out(out, _manifest(opts, task_list, source, rows_per_shard), overwrite)
    todo, done = _plan(out, opts, task_list, rows_per_shard)
    num_proc = num_proc or os.cpu_count() or 1
    total = sum(len(r) for _, _, r in todo)
    feats = features()
    bar = tqdm(total=total, desc=f"dicobench {split}", unit="row", disable=not progress or total == 0)
    shards = iter(todo)
    writer, current, kept, rejections = None, None, [], Counter()
    try:
        for task, index, row, info in _rows(todo, opts, min(num_proc, max(total, 1))):
            if writer is None:
                current = next(shards)
                writer, kept, rejections = ShardWriter(current[1], feats), [], Counter()
            writer.write(row)
            kept.append({"answer": row["answer"], "changed_area": row["changed_area"], "long_side": info.long_side})
            rejections.update(info.rejections)
            bar.update(1)
            if index == current[2][-1]:
                stats = _shard_stats(task, kept, rejections)
                writer.close(sidecar=stats)
                done.append(stats)
                writer = None
    except BaseException:
        if writer is not None:
            writer.abort()
        raise
    finally:
        bar.close()
    write_card(out)
    return out
