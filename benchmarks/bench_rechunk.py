"""How much of a rebuilt task's shard a re-push can skip on Xet storage.

Xet storage splits files into content-defined byte chunks (~64 KiB) and uploads only chunks it
does not hold yet. This script builds one DiCoBench task, rebuilds it with one more row (the
earlier rows are the same, by seed), (the correct letters are rebalanced, so a few
earlier rows change too), and reports the share of the new shard's bytes that fall in chunks
the previous shard already has, for the shards as the build writes them
(content-defined Parquet pages, `dicobench.kit.io.parquet_options`) and for the same rows written with
pyarrow's default writer (what builds wrote before). A second scenario replaces one row in the
middle of the shard (as when a reviewed row is regenerated), with both writers. Chunks are cut
with FastCDC (`pip install fastcdc`; min 8 KiB, average 64 KiB, max 128 KiB, Xet's sizes) and
compared by SHA-256.

    python benchmarks/bench_rechunk.py [--per-task 8] [--task attribute]
"""

from __future__ import annotations

import argparse
import hashlib
import tempfile
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
from fastcdc import fastcdc

from dicobench import build
from dicobench.kit.io.parquet_options import footer_metadata, writer_options
from dicobench.schema import features

XET_CHUNKS = {"min_size": 8 * 1024, "avg_size": 64 * 1024, "max_size": 128 * 1024}
ROW_GROUP = 8  # rows per row group, as ShardWriter writes them


def chunks(path: Path) -> list[tuple[str, int]]:
    return [(hashlib.sha256(c.data).hexdigest(), c.length) for c in fastcdc(str(path), fat=True, **XET_CHUNKS)]


def shared_share(new: Path, old: list[Path]) -> float:
    """Share of `new`'s bytes in chunks that one of `old` already has."""
    known = {h for f in old for h, _ in chunks(f)}
    new_chunks = chunks(new)
    return sum(n for h, n in new_chunks if h in known) / sum(n for _, n in new_chunks)


def write(table: pa.Table, path: Path, cdc: bool) -> Path:
    """`table` in row groups of ROW_GROUP rows, with the build's options or pyarrow's defaults."""
    options = writer_options(features()) if cdc else {}
    with pq.ParquetWriter(path, table.schema, **options) as writer:
        if cdc:
            writer.add_key_value_metadata(footer_metadata())
        for start in range(0, len(table), ROW_GROUP):
            writer.write_table(table.slice(start, ROW_GROUP))
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--per-task", type=int, default=8)
    parser.add_argument("--task", default="attribute")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        tables = {}
        for name, n in (("prev", args.per_task), ("next", args.per_task + 1)):
            out = build(tmp / name, per_task=n, tasks=[args.task], num_proc=1, progress=False)
            (shard,) = sorted((out / args.task).glob("test-*.parquet"))
            tables[name] = pq.read_table(shard)
        prev, nxt = tables["prev"], tables["next"]
        same = sum(a == b for a, b in zip(prev.drop_columns(["image_a", "image_b"]).to_pylist(),
                                          nxt.drop_columns(["image_a", "image_b"]).to_pylist()))
        middle = len(prev) // 2
        replaced = pa.concat_tables([prev.slice(0, middle), nxt.slice(len(prev), 1), prev.slice(middle + 1)])
        print(f"{args.task}: {len(prev)} rows, rebuilt with {len(nxt)}: {same} of the first {len(prev)} rows "
              f"unchanged (the letter balance moves the others); {prev.nbytes / len(prev) / 1e6:.2f} MB per row")
        for cdc in (True, False):
            label = "content-defined pages + page index" if cdc else "pyarrow default writer"
            old = write(prev, tmp / f"old-{cdc}.parquet", cdc)
            added = write(nxt, tmp / f"added-{cdc}.parquet", cdc)
            swapped = write(replaced, tmp / f"swapped-{cdc}.parquet", cdc)
            print(f"{label}: rebuilt with one more row: "
                  f"{100 * shared_share(added, [old]):.1f}% of the new shard's bytes already stored; "
                  f"row {middle} regenerated: {100 * shared_share(swapped, [old]):.1f}% "
                  f"(shard {added.stat().st_size / 1e6:.1f} MB)")


if __name__ == "__main__":
    main()
