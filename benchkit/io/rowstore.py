"""Rows of a local build, looked up by id: where each row lies (shard, row group, offset),
its small columns, and its images' stored bytes read from that one row group.

Images are returned exactly as stored (PNG bytes), never decoded, so serving a 2K pair costs
one row-group read. Only shards inside the build folder are indexed: a symlink that leads
out of it is skipped, so nothing outside the folder can be served.
"""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path
from typing import Sequence

import datasets
import pyarrow.parquet as pq

from benchkit.cli.errors import UserError


@dataclasses.dataclass(frozen=True)
class Place:
    shard: Path
    row_group: int
    offset: int


class RowStore:
    """The rows of `split` in the config folders `configs` of the build at `root`."""

    def __init__(self, root: str | os.PathLike, configs: Sequence[str], image_columns: Sequence[str], split: str = "test"):
        self.root = Path(root).resolve()
        self.image_columns = tuple(image_columns)
        self.places: dict[str, Place] = {}
        self.rows: dict[str, dict] = {}  # id -> the decoded small columns
        for config in configs:
            for shard in sorted((self.root / config).glob(f"{split}-*.parquet")):
                if not shard.resolve().is_relative_to(self.root):
                    continue
                self._index(shard.resolve())
        if not self.rows:
            raise UserError(f"{root} holds no {split} rows for {', '.join(configs)}")

    def _index(self, shard: Path) -> None:
        file = pq.ParquetFile(shard)
        features = datasets.Features.from_arrow_schema(file.schema_arrow)
        small = [c for c in file.schema_arrow.names if c not in self.image_columns]
        for group in range(file.num_row_groups):
            table = file.read_row_group(group, columns=small)
            for offset, row in enumerate(table.to_pylist()):
                row = _decode_labels(features, row)
                if row["id"] in self.rows:
                    raise UserError(f"{shard}: row id {row['id']} appears twice in the build")
                self.rows[row["id"]] = row
                self.places[row["id"]] = Place(shard, group, offset)

    def ids(self) -> list[str]:
        return list(self.rows)

    def image(self, row_id: str, column: str) -> bytes:
        """The stored bytes of one image of a row (KeyError for unknown rows or columns)."""
        if column not in self.image_columns:
            raise KeyError(column)
        place = self.places[row_id]
        table = pq.ParquetFile(place.shard).read_row_group(place.row_group, columns=[column])
        return table.column(column)[place.offset]["bytes"].as_py()


def _decode_labels(features: datasets.Features, row: dict) -> dict:
    """Class-label integers as their names (task, track, answer, ...)."""
    return {k: features[k].int2str(v) if isinstance(features.get(k), datasets.ClassLabel) else v
            for k, v in row.items()}


def config_folders(root: Path, config: str, configs: Sequence[str]) -> list[str]:
    """The folders a `--config` names: one config, or every config folder present for `all`."""
    if config not in (*configs, "all"):
        raise UserError(f"unknown config {config!r}; expected one of {', '.join(configs)} or all")
    names = configs if config == "all" else [config]
    return [c for c in names if (root / c).is_dir()]
