"""Streaming Parquet shards that are either complete or absent.

Rows go straight to disk in small row groups, so memory stays flat however large the
split; a shard is written under a temporary name and renamed only once complete, so an
interrupted build never leaves a half-written shard that `load_dataset` would pick up.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import datasets
import pyarrow as pa
import pyarrow.parquet as pq


def shard_name(split: str, index: int, count: int) -> str:
    return f"{split}-{index:05d}-of-{count:05d}.parquet"


def shard_count(rows: int, rows_per_shard: int) -> int:
    return max(1, -(-rows // rows_per_shard))


def shard_ranges(rows: int, rows_per_shard: int) -> list[range]:
    count = shard_count(rows, rows_per_shard)
    return [range(i * rows_per_shard, min(rows, (i + 1) * rows_per_shard)) for i in range(count)]


class ShardWriter:
    """Write encoded rows of one shard; `close()` publishes it with an atomic rename."""

    def __init__(self, path: Path, features: datasets.Features, row_group_size: int = 8):
        self.path = Path(path)
        self.tmp = self.path.with_name(f".{self.path.name}.partial")
        self.features = features
        self.schema = features.arrow_schema
        self.row_group_size = row_group_size
        self.rows = 0
        self._pending: list[dict] = []
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._writer = pq.ParquetWriter(self.tmp, self.schema)

    def write(self, row: dict) -> None:
        self._pending.append(self.features.encode_example(row))
        if len(self._pending) >= self.row_group_size:
            self._flush()

    def _flush(self) -> None:
        if self._pending:
            self._writer.write_table(pa.Table.from_pylist(self._pending, schema=self.schema))
            self.rows += len(self._pending)
            self._pending = []

    def close(self, sidecar: dict | None = None) -> None:
        """Finish the file, write its sidecar (stats) first, then publish the shard."""
        self._flush()
        self._writer.close()
        if sidecar is not None:
            write_json_atomic(sidecar_path(self.path), sidecar)
        os.replace(self.tmp, self.path)

    def abort(self) -> None:
        self._writer.close()
        self.tmp.unlink(missing_ok=True)


def sidecar_path(shard: Path) -> Path:
    return shard.parent / ".stats" / (shard.name + ".json")


def write_json_atomic(path: Path, data) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.partial")
    tmp.write_text(json.dumps(data, indent=1, sort_keys=True), encoding="utf-8")
    os.replace(tmp, path)


def complete_shard(path: Path, expected_rows: int) -> dict | None:
    """The sidecar of a finished shard with the expected rows, or None if it must be (re)built."""
    side = sidecar_path(path)
    if not path.exists() or not side.exists():
        return None
    try:
        if pq.ParquetFile(path).metadata.num_rows != expected_rows:
            return None
        return json.loads(side.read_text(encoding="utf-8"))
    except Exception:
        return None
