"""The Hub Dataset Viewer's page limit, and what a config's rows weigh against it.

The viewer reads a page of 100 rows at once and refuses one whose Arrow data is over about
300 MB. Builds aim at `ROW_BUDGET` per row (a 100-row page of 250 MB), leaving a sixth of the
limit for heavier rows and for the extra rows a page reads when it straddles row groups.
"""

from __future__ import annotations

from pathlib import Path

import pyarrow.parquet as pq

VIEWER_PAGE_ROWS = 100
VIEWER_LIMIT = 300e6
ROW_BUDGET = 2.5e6
PAGE_BUDGET = VIEWER_PAGE_ROWS * ROW_BUDGET


def bytes_per_row(config: Path) -> float:
    """Mean Arrow bytes of one row of a config folder's shards (what a viewer page holds in memory)."""
    tables = [pq.read_table(shard) for shard in sorted(Path(config).glob("*.parquet"))]
    rows = sum(t.num_rows for t in tables)
    if not rows:
        raise ValueError(f"{config} has no rows")
    return sum(t.nbytes for t in tables) / rows
