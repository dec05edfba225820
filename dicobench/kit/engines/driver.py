"""The build driver both benchmarks share: claim the folder, plan the missing shards, map shard
jobs over an engine with a progress bar, write each job's shards atomically with their sidecar
stats, keep splits apart, write the card.

A benchmark supplies what is its own: the manifest (the options that fix its bytes), its config
folders, the shard jobs and the worker that makes one (`fn(job) -> {"rows": n, ...}`), the
values that must not cross splits, and its card. A build is resumable because every shard is a
pure function of the manifest: finished shards (with their sidecar) are kept, a rerun makes
only the missing ones, on any engine, with the same bytes.
"""

from __future__ import annotations

import logging
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterable, Iterator, Literal, Mapping, Sequence

from tqdm.auto import tqdm

from dicobench.kit.engines.local import Engine, check_engine, map_jobs
from dicobench.kit.errors import UserError
from dicobench.kit.io.manifest import claim_folder
from dicobench.kit.io.shards import (
    Location,
    ShardWriter,
    child,
    complete_shard,
    exists,
    glob,
    remove,
    remove_shards,
    shard_name,
)
from dicobench.kit.people.decisions import set_aside

if TYPE_CHECKING:
    import datasets  # type hints only: `datasets` (and pandas) load when a shard is written

logger = logging.getLogger(__name__)
Split = Literal["test", "train"]  # the splits a build makes: the one definition of their names
SPLITS: dict[Split, int] = {"test": 0, "train": 1}  # each split owns a disjoint range of seeds (or image sets)


def code_range(code: int, bits: int) -> range:
    """The 2**bits values owned by split number `code`: disjoint ranges by construction."""
    return range(code << bits, (code + 1) << bits)


@dataclass(frozen=True)
class RunOptions:
    """How a build runs, as opposed to what it builds: none of these changes a byte."""

    split: Split = "test"
    overwrite: bool = False
    engine: Engine = "local"
    num_proc: int | None = None
    ray_address: str | None = None
    progress: bool = True

    def check(self) -> None:
        check_split(self.split)
        if self.num_proc is not None and self.num_proc <= 0:
            raise UserError("--num-proc must be positive")
        check_engine(self.engine, self.ray_address)


def check_split(split: str) -> None:
    if split not in SPLITS:
        raise UserError(f"unknown split {split!r}; expected one of {', '.join(SPLITS)}")


def check_count(count: int, limit: int, flag: str, why: str) -> None:
    """Refuse a count over what a build can plan: memory and planning time grow with the count (the
    benchmark says `why`), so a count past `limit` is refused before anything is written."""
    if count > limit:
        raise UserError(f"{flag} {count} is too large: at most {limit}, because {why}; build more as further "
                        "builds with other --seed values, into other folders")


def check_compress_level(level: int) -> None:
    if not 0 <= level <= 9:
        raise UserError("PNG compress level must be 0-9")


@contextmanager
def claimed(out: Location, manifest_path: Location, manifest: dict, configs: Sequence[str], run: RunOptions,
            what: str, config: dict) -> Iterator[None]:
    """Record the manifest (with the build `config` it was resolved from) in `out`, refusing a folder holding
    another build (`--overwrite` first deletes this split's shards in every config folder, and over a build of other
    options sets the review log aside, saying so: its decisions judged the previous rows), for the build inside the
    block.

    A first build that fails before any shard of its split is written takes its manifest and the
    empty folders it made away with it: it would otherwise hold the folder for options that made
    nothing (a corrected rerun was refused as "built with other options")."""
    before = _folders(out)
    fresh = run.overwrite or not exists(manifest_path)

    def clear(other_options: bool) -> None:
        if other_options and (line := set_aside(out)):  # reviewers judged rows that are no more: no
            logger.warning(line)  # decision of theirs applies to the new ones
        for config in configs:
            remove_shards(child(out, config), run.split)

    claim_folder(out, manifest_path, manifest, run.overwrite, clear, what, config)
    try:
        yield
    except BaseException:
        if fresh and not any(glob(child(out, config), f"{run.split}-*.parquet") for config in configs):
            for config in configs:  # what workers stopped mid-shard left (a full disk in another one, Ctrl-C)
                for unfinished in glob(child(out, config), f".{run.split}-*.parquet.partial"):
                    remove(unfinished)
            remove(manifest_path)
            _prune(out, before)
        raise


def _folders(out: Location) -> set[Path] | None:
    """The folders under a local `out` (None for object stores, which keep no empty folders)."""
    if not isinstance(out, Path):
        return None
    return {p for p in [out, *out.rglob("*")] if p.is_dir()} if out.is_dir() else set()


def _prune(out: Location, before: set[Path] | None) -> None:
    """Remove the empty folders under `out` (itself included) that were not there `before`."""
    if before is None or not out.is_dir():
        return
    for folder in sorted((p for p in [out, *out.rglob("*")] if p.is_dir()), key=lambda p: len(p.parts), reverse=True):
        if folder not in before and not any(folder.iterdir()):
            folder.rmdir()


def other_split_shards(out: Location, configs: Sequence[str], split: str) -> list[Location]:
    """The shards of the folder's other splits: what this split must not reuse comes from them."""
    return [f for config in configs for other in SPLITS if other != split
            for f in glob(child(out, config), f"{other}-*.parquet")]


def missing_shards(out: Location, configs: Sequence[str], split: str, ranges: Sequence[range], rows_per_item: int = 1,
                   stale: Callable[[Location], bool] | None = None, linked: bool = False,
                   features: datasets.Features | None = None) -> dict[int, dict[str, Location]]:
    """shard index -> config -> path of the shards still to write (`ranges`: the items of each
    shard, `rows_per_item` rows each); a finished shard with its sidecar (and, given `features`,
    their columns and types: a damaged shard is rewritten) is kept unless `stale(path)` says it
    holds a row to regenerate (one a reviewer rejected). With `linked` (configs that are views of
    the same items), a stale shard rewrites every config's shard k."""
    todo: dict[int, dict[str, Location]] = {}
    schema = features.arrow_schema if features is not None else None
    for k, items in enumerate(ranges):
        paths = {config: child(out, config, shard_name(split, k, len(ranges))) for config in configs}
        done = {config: complete_shard(path, len(items) * rows_per_item, schema) is not None
                for config, path in paths.items()}
        redo = {config: done[config] and stale is not None and stale(path) for config, path in paths.items()}
        for config, path in paths.items():
            if not done[config] or redo[config] or (linked and any(redo.values())):
                todo.setdefault(k, {})[config] = path
    return todo


class ShardSet:
    """The shards one job writes, one per config: each row goes straight to storage; on leaving
    the block they are published with their sidecar `stats[config]`, or, on any error, all of
    them are removed (so a failed job leaves no file a resumed build would trust)."""

    def __init__(self, paths: Mapping[str, Location], features: datasets.Features, row_group_size: int = 8):
        self.writers: dict[str, ShardWriter] = {}
        self.stats: dict[str, dict] = {}
        try:
            for config, path in paths.items():
                self.writers[config] = ShardWriter(path, features, row_group_size=row_group_size)
        except BaseException:
            self._abort()
            raise

    def write(self, config: str, row: dict) -> None:
        self.writers[config].write(row)

    def _abort(self) -> None:
        for writer in self.writers.values():
            writer.abort()

    def __enter__(self) -> "ShardSet":
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        if exc_type is not None:
            self._abort()
            return
        try:
            for config, writer in self.writers.items():
                writer.close(sidecar=self.stats[config])
        except BaseException:
            self._abort()  # removes those not yet published: the rerun writes them
            raise


def run_jobs(fn: Callable[[object], dict], jobs: Sequence, total: int, desc: str, run: RunOptions) -> None:
    """`fn` over the shard jobs on the chosen engine; the bar counts the rows each job reports."""
    bar = tqdm(total=total, desc=desc, unit="row", disable=not run.progress or total == 0)
    try:
        for stats in map_jobs(fn, jobs, engine=run.engine, num_proc=run.num_proc, ray_address=run.ray_address):
            bar.update(stats["rows"])
    finally:
        bar.close()


def refuse_shared(values: Iterable[str], held_out: frozenset[str], message: Callable[[str], str]) -> None:
    """Raise a one-line error when a row uses a value (base scene, photo, panel image) that
    another split in the folder already uses: splits must not share one."""
    for value in values:
        if value in held_out:
            raise UserError(message(value))
