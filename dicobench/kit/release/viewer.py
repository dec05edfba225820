"""The Hub Dataset Viewer's page limit, and what a config's rows weigh against it.

The viewer reads a page of 100 rows at once and refuses one whose Arrow data is over about
300 MB. Builds aim at `ROW_BUDGET` per row (a 100-row page of 250 MB), leaving a sixth of the
limit for heavier rows and for the extra rows a page reads when it straddles row groups.
A build with a page over the limit (e.g. DiCoBench's 4K `extreme` canvases) gets `viewer: false`
in its card (`heavy_pages`, `viewer_note`): the Hub then shows no viewer instead of an error page,
and `load_dataset` reads the data as usual. Pages are measured as the viewer does, from the
row groups' sizes in the Parquet footers (no data is read).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Mapping

import pyarrow.parquet as pq

from dicobench.kit.io.shards import Location, child, glob, resolve

VIEWER_PAGE_ROWS = 100
VIEWER_LIMIT = 300e6
ROW_BUDGET = 2.5e6
PAGE_BUDGET = VIEWER_PAGE_ROWS * ROW_BUDGET


def _row_groups(config: Location, pattern: str) -> list[tuple[int, int]]:
    """(rows, bytes) of every row group of the shards matching `pattern`, in order, from their
    footers alone: bytes is the uncompressed size a footer records, what the viewer adds up."""
    groups = []
    for shard in glob(config, pattern):
        fs, path = resolve(shard)
        with fs.open(path, "rb") as f:
            meta = pq.ParquetFile(f).metadata
        groups += [(meta.row_group(i).num_rows, meta.row_group(i).total_byte_size) for i in range(meta.num_row_groups)]
    return groups


def bytes_per_row(config: Location, pattern: str = "*.parquet") -> float:
    """Mean bytes of one row of a config folder's shards (what a viewer page holds in memory);
    `pattern` picks the shards (e.g. "test-*.parquet" for one split)."""
    return _per_row(_row_groups(config, pattern), config)


def largest_page(config: Location, pattern: str = "*.parquet") -> int:
    """The most bytes the viewer reads for one page of a config folder's shards."""
    return _largest_page(_row_groups(config, pattern))


def _per_row(groups: list[tuple[int, int]], config: Location) -> float:
    rows = sum(n for n, _ in groups)
    if not rows:
        raise ValueError(f"{config} has no rows")
    return sum(size for _, size in groups) / rows


def _largest_page(groups: list[tuple[int, int]]) -> int:
    """Page k is rows [100k, 100k + 100), read as every row group it overlaps, whole (so a page
    straddling row groups reads more than 100 rows)."""
    pages: dict[int, int] = {}
    start = 0
    for rows, size in groups:
        if rows:
            for page in range(start // VIEWER_PAGE_ROWS, (start + rows - 1) // VIEWER_PAGE_ROWS + 1):
                pages[page] = pages.get(page, 0) + size
        start += rows
    return max(pages.values(), default=0)


@dataclass(frozen=True)
class HeavyPage:
    config: str
    split: str
    bytes_per_row: float
    page_bytes: int  # the largest page's


def heavy_pages(out: Location, splits: Mapping[str, Iterable[str]]) -> list[HeavyPage]:
    """The (config, split)s of `splits` ({config folder under `out`: its splits}) with a viewer page
    over `VIEWER_LIMIT`, measured from the footers of the shards written."""
    heavy = []
    for config, names in splits.items():
        for split in names:
            groups = _row_groups(child(out, config), f"{split}-*.parquet")
            page = _largest_page(groups)
            if page > VIEWER_LIMIT:
                heavy.append(HeavyPage(config, split, _per_row(groups, config), page))
    return heavy


def viewer_note(heavy: Iterable[HeavyPage]) -> str:
    """The card's paragraph saying why the viewer is off (`viewer: false`)."""
    pages = ", ".join(f"`{p.config}` (split `{p.split}`, {p.bytes_per_row / 1e6:.1f} MB per row, pages up to "
                      f"{p.page_bytes / 1e6:.0f} MB)" for p in heavy)
    return (f"The Hub's Dataset Viewer is turned off for this dataset (`viewer: false`): it reads "
            f"{VIEWER_PAGE_ROWS} rows a page and refuses a page over {VIEWER_LIMIT / 1e6:.0f} MB, and these "
            f"configs' rows are heavier than that allows: {pages}. `load_dataset` works as usual.")
