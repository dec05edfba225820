"""The Hub Dataset Viewer's page limit, and what a config's rows weigh against it.

The viewer reads a page of 100 rows at once and refuses one whose Arrow data is over about
300 MB. Builds aim at `ROW_BUDGET` per row (a 100-row page of 250 MB), leaving a sixth of the
limit for heavier rows and for the extra rows a page reads when it straddles row groups.
A build whose rows are heavier than the limit allows (e.g. DiCoBench's 4K `extreme` canvases)
gets `viewer: false` in its card (`heavy_pages`, `viewer_note`): the Hub then shows no viewer
instead of an error page, and `load_dataset` reads the data as usual.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Mapping

import pyarrow.parquet as pq

from benchkit.io.shards import Location, child, glob, resolve

VIEWER_PAGE_ROWS = 100
VIEWER_LIMIT = 300e6
ROW_BUDGET = 2.5e6
PAGE_BUDGET = VIEWER_PAGE_ROWS * ROW_BUDGET


def bytes_per_row(config: Location, pattern: str = "*.parquet") -> float:
    """Mean Arrow bytes of one row of a config folder's shards (what a viewer page holds in memory);
    `pattern` picks the shards (e.g. "test-*.parquet" for one split)."""
    nbytes = rows = 0
    for shard in glob(config, pattern):
        fs, path = resolve(shard)
        with fs.open(path, "rb") as f:
            parquet = pq.ParquetFile(f)
            for i in range(parquet.num_row_groups):  # a row group at a time: heavy shards stay out of memory
                table = parquet.read_row_group(i)
                nbytes += table.nbytes
                rows += table.num_rows
    if not rows:
        raise ValueError(f"{config} has no rows")
    return nbytes / rows


@dataclass(frozen=True)
class HeavyPage:
    config: str
    split: str
    bytes_per_row: float


def heavy_pages(out: Location, splits: Mapping[str, Iterable[str]]) -> list[HeavyPage]:
    """The (config, split)s of `splits` ({config folder under `out`: its splits}) whose 100-row
    viewer page would hold more than `VIEWER_LIMIT`, measured from the shards written."""
    heavy = []
    for config, names in splits.items():
        for split in names:
            if not glob(child(out, config), f"{split}-*.parquet"):
                continue
            per_row = bytes_per_row(child(out, config), f"{split}-*.parquet")
            if per_row * VIEWER_PAGE_ROWS > VIEWER_LIMIT:
                heavy.append(HeavyPage(config, split, per_row))
    return heavy


def viewer_note(heavy: Iterable[HeavyPage]) -> str:
    """The card's paragraph saying why the viewer is off (`viewer: false`)."""
    pages = ", ".join(f"`{p.config}` (split `{p.split}`, {p.bytes_per_row / 1e6:.1f} MB per row)" for p in heavy)
    return (f"The Hub's Dataset Viewer is turned off for this dataset (`viewer: false`): it reads "
            f"{VIEWER_PAGE_ROWS} rows a page and refuses a page over {VIEWER_LIMIT / 1e6:.0f} MB, and these "
            f"configs' rows are heavier than that allows: {pages}. `load_dataset` works as usual.")
