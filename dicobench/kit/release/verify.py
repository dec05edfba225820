"""A build's own check, run before any command reads or publishes it (`info --verify DIR`).

A build folder is its card (README.md: `configs:` and, in `dataset_info`, the features and row
count of every config and split) and the Parquet shards the card's patterns name. A shard cut
short by a full disk, a copy interrupted, a file edited by hand, a column dropped: `datasets`,
Arrow and the web app each fail on these in their own way (a traceback, a 500, a wrong number).
`verify_build` checks what every reader relies on, from the footers alone (no page is read):
each shard opens as Parquet, holds every column the card lists (typed as the card says) and
every column the caller needs, and each config's shards hold the rows the card records. The
first problem is one `UserError` naming the file and what is wrong.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

import datasets
import pyarrow as pa
import pyarrow.parquet as pq

from dicobench.kit.errors import UserError, first_line
from dicobench.kit.io.shards import altered, sidecar_path
from dicobench.kit.release.layout import README, card_patterns, glob_regex, read_configs, read_metadata

REMEDY = ("rerun the build that wrote it with the same options (a resumed build rewrites damaged shards), "
          "or copy it again")


@dataclass(frozen=True)
class Verified:
    """What a verified build holds: its shards (folder-relative posix paths) and the rows of
    every (config, split) checked."""

    folder: Path
    shards: tuple[str, ...]
    rows: dict[tuple[str, str], int]

    def describe(self) -> str:
        configs = sorted({c for c, _ in self.rows})
        splits = sorted({s for _, s in self.rows})
        total = {s: max(n for (c, t), n in self.rows.items() if t == s) for s in splits}  # its largest config: all
        counts = ", ".join(f"{n} rows in split {s}" for s, n in total.items())
        return (f"{self.folder}: verified {len(self.shards)} shards of {len(configs)} configs ({counts}): every "
                "footer reads, every column the card lists is there with its type, and the row counts match the card")


def verify_build(folder, *, config: str | None = None, split: str | None = None,
                 columns: Iterable[str] = (), digests: bool = False) -> Verified:
    """Check the build at `folder` against its card; `config` and `split` narrow the check to the
    shards a command reads, `columns` names those the command needs besides the card's. With
    `digests` (`info --verify`), every shard's bytes are also checked against the digest its
    sidecar recorded at build time: a changed answer or image, swapped shards, a shard of another
    build (every byte is read: the other checks read footers only)."""
    folder = Path(folder)
    if not folder.is_dir():
        raise UserError(f"{folder} is not a folder")
    readme = folder / README
    meta = read_metadata(folder)
    configs = read_configs(folder, meta)
    info = {str(c.get("config_name")): c for c in meta.get("dataset_info") or [] if isinstance(c, dict)}
    patterns = [p for p in card_patterns(configs) if (config is None or p[0] == config)
                and (split is None or p[1] == split)]
    if not patterns:
        listed = sorted({f"{c}/{s}" for c, s, _ in card_patterns(configs)})
        raise UserError(f"{readme} lists no config {config or '*'!r} with split {split or '*'!r} "
                        f"(it has: {', '.join(listed)})")
    files = sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*.parquet")
                   if not any(part.startswith(".") for part in p.relative_to(folder).parts))
    needed = tuple(columns)
    footers: dict[str, pq.FileMetaData] = {}
    rows: dict[tuple[str, str], int] = {}
    for name, split_name, pattern in patterns:
        matched = [f for f in files if glob_regex(pattern).match(f)]
        if not matched:
            raise UserError(f"{readme}: config {name!r} split {split_name!r} path {pattern!r} matches no shard: "
                            f"the build is unfinished or a shard was removed; {REMEDY}")
        expected = _card_schema(info.get(name), readme, name)
        for shard in matched:
            if shard not in footers:
                footers[shard] = _footer(folder / shard)
            _check_schema(folder / shard, footers[shard].schema.to_arrow_schema(), expected, needed)
        rows[(name, split_name)] = rows.get((name, split_name), 0) + sum(footers[f].num_rows for f in matched)
    for (name, split_name), found in rows.items():
        recorded = _recorded_rows(info.get(name), split_name)
        if recorded is not None and recorded != found:
            raise UserError(f"{folder}: config {name!r} split {split_name!r} holds {found} rows, its card records "
                            f"{recorded} rows: a shard was cut short, removed or replaced; {REMEDY}")
    for shard in footers if digests else ():  # the slow check last: the others name the problem better
        _check_digest(folder, shard)
    return Verified(folder, tuple(sorted(footers)), rows)


def verify_dataset(dataset, **checks) -> Verified | None:
    """`verify_build` for a dataset the user names: a local folder is verified, a Hub repo id is
    left to `datasets` (None)."""
    from dicobench.kit.io.dataset_input import locate

    where = locate(dataset)
    return verify_build(where, **checks) if Path(where).is_dir() else None


def _check_digest(folder: Path, shard: str) -> None:
    sidecar = sidecar_path(folder / shard)
    try:
        recorded = json.loads(sidecar.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        raise UserError(f"{folder / shard}: its build record {sidecar.relative_to(folder)} is missing or unreadable, "
                        f"so its bytes cannot be checked; {REMEDY}") from None
    if altered(folder / shard, recorded):
        raise UserError(f"{folder / shard}: its bytes are not those the build wrote (the sha256 in "
                        f"{sidecar.relative_to(folder)} differs): an answer or image was changed, shards were swapped "
                        f"or one came from another build; {REMEDY}")


def _footer(path: Path) -> pq.FileMetaData:
    try:
        return pq.read_metadata(path)
    except (pa.ArrowException, OSError) as exc:
        raise UserError(f"{path}: not a readable Parquet file ({first_line(exc)}): the shard is damaged or cut short; "
                        f"{REMEDY}") from None


def _card_schema(info: dict | None, readme: Path, config: str) -> pa.Schema | None:
    """The Arrow schema of the features the card records for `config` (None for cards of older
    versions, which record none)."""
    if not info or not info.get("features"):
        return None
    try:
        return datasets.Features._from_yaml_list(info["features"]).arrow_schema
    except (TypeError, ValueError, KeyError) as exc:
        raise UserError(f"{readme}: the features of config {config!r} cannot be read ({first_line(exc)})") from None


def _check_schema(path: Path, found: pa.Schema, expected: pa.Schema | None, needed: tuple[str, ...]) -> None:
    for column in (*(expected.names if expected is not None else ()), *needed):
        if column not in found.names and expected is not None and column in expected.names:
            raise UserError(f"{path}: no {column!r} column, though the card lists it: the shard is damaged or from "
                            f"another build; {REMEDY}")
        if column not in found.names:
            raise UserError(f"{path}: no {column!r} column: not a build of this benchmark, a build of an older "
                            "version, or a damaged shard")
        if (expected is not None and column in expected.names
                and found.field(column).type != expected.field(column).type):
            raise UserError(f"{path}: column {column!r} is {found.field(column).type}, the card says "
                            f"{expected.field(column).type}: the shard is damaged or from another build; {REMEDY}")


def _recorded_rows(info: dict | None, split: str) -> int | None:
    for entry in (info or {}).get("splits") or []:
        if isinstance(entry, dict) and entry.get("name") == split and isinstance(entry.get("num_examples"), int):
            return entry["num_examples"]
    return None
