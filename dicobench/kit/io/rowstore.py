"""Rows of a local build, looked up by id: where each row lies (shard, row group, offset),
its small columns, and its images' stored bytes read from that one row group.

Images are returned exactly as stored (PNG bytes), never decoded, so serving a 2K pair costs
one row-group read; each row has a `version` for cacheable URLs, and a shard rewritten while the
store is open is refused rather than read at stale offsets. Only shards inside the build folder are indexed: a symlink
that leads out of it is skipped, so nothing outside the folder can be served.
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
from pathlib import Path
from typing import Sequence

import datasets
import pyarrow as pa
import pyarrow.parquet as pq

from dicobench.kit.errors import UserError
from dicobench.kit.io.row_digest import row_digest


@dataclasses.dataclass(frozen=True)
class Place:
    shard: Path
    row_group: int
    offset: int
    version: str  # changes whenever the bytes stored for the row can have changed


class Changed(Exception):
    """A shard was rewritten after the store indexed it (a rebuild while serving); `status` is
    the HTTP status a server answers with. The message names the shard relative to the build."""

    status = 409


class Removed(Changed):
    """A shard was removed after the store indexed it."""

    status = 410


def _identity(path: Path) -> tuple[int, int, int]:
    """What changes whenever a shard file is written anew: inode, size, modification time."""
    st = path.stat()
    return st.st_ino, st.st_size, st.st_mtime_ns


class RowStore:
    """The rows of `split` in the config folders `configs` of the build at `root`."""

    def __init__(self, root: str | os.PathLike, configs: Sequence[str], image_columns: Sequence[str],
                 split: str = "test"):
        self.root = Path(root).resolve()
        self.image_columns = tuple(image_columns)
        self.places: dict[str, Place] = {}
        self.rows: dict[str, dict] = {}  # id -> the decoded small columns
        self.identities: dict[Path, tuple[int, int, int]] = {}  # shard -> its file's identity when indexed
        self._digests: dict[str, str] = {}
        for config in configs:
            for shard in sorted((self.root / config).glob(f"{split}-*.parquet")):
                if not shard.resolve().is_relative_to(self.root):
                    continue
                self._index(shard.resolve())
        if not self.rows:
            raise UserError(f"{root} holds no {split} rows for {', '.join(configs)}")

    def _index(self, shard: Path) -> None:
        self.identities[shard] = identity = _identity(shard)
        file = pq.ParquetFile(shard)
        features = datasets.Features.from_arrow_schema(file.schema_arrow)
        small = [c for c in file.schema_arrow.names if c not in self.image_columns]
        for group in range(file.num_row_groups):
            table = file.read_row_group(group, columns=small)
            for offset, row in enumerate(table.to_pylist()):
                row = decode_labels(features, row)
                if row["id"] in self.rows:
                    raise UserError(f"{shard}: row id {row['id']} appears twice in the build")
                self.rows[row["id"]] = row
                key = f"{shard}:{identity}:{group}:{offset}:{row.get('seed')}"
                self.places[row["id"]] = Place(shard, group, offset, hashlib.sha256(key.encode()).hexdigest()[:16])

    def ids(self) -> list[str]:
        return list(self.rows)

    def version(self, row_id: str) -> str:
        """A name for the row's stored bytes, for URLs a browser may cache: a rebuilt row (same id,
        new bytes) gets another, since its shard was written anew."""
        return self.places[row_id].version

    def digest(self, row_id: str) -> str:
        """The row's content digest (`row_digest`), read once (Changed as `image`)."""
        if row_id not in self._digests:
            self._digests[row_id] = row_digest(self.rows[row_id], [self.image(row_id, c) for c in self.image_columns])
        return self._digests[row_id]

    def image(self, row_id: str, column: str) -> bytes:
        """The stored bytes of one image of a row (KeyError for unknown rows or columns; Changed
        when its shard was rewritten since it was indexed)."""
        if column not in self.image_columns:
            raise KeyError(column)
        place = self.places[row_id]
        name = place.shard.relative_to(self.root).as_posix()  # never the server's own path
        rewritten = Changed(f"{name} was rewritten after the server started: restart it to serve the new rows")
        try:
            if _identity(place.shard) != self.identities[place.shard]:
                raise rewritten
            table = pq.ParquetFile(place.shard).read_row_group(place.row_group, columns=[column])
        except FileNotFoundError:
            raise Removed(f"{name} was removed after the server started: rebuild it (rerun the build) or restart "
                          "the server") from None
        except (OSError, pa.ArrowException):  # replaced between the check and the read
            raise rewritten from None
        return table.column(column)[place.offset]["bytes"].as_py()


def decode_labels(features: datasets.Features, row: dict) -> dict:
    """Class-label integers as their names (task, track, answer, ...)."""
    return {k: features[k].int2str(v) if isinstance(features.get(k), datasets.ClassLabel) else v
            for k, v in row.items()}


def config_folders(root: Path, config: str, configs: Sequence[str]) -> list[str]:
    """The folders a `--config` names: one config, or every config folder present for `all`."""
    if config not in (*configs, "all"):
        raise UserError(f"unknown config {config!r}; expected one of {', '.join(configs)} or all")
    names = configs if config == "all" else [config]
    return [c for c in names if (root / c).is_dir()]
