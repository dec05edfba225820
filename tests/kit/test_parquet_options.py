"""Shards are written as `datasets` writes them for the Hub: content-defined pages, a page index,
PNG bytes stored plain; the rows and image bytes they hold are unchanged."""

import json

import datasets
import pyarrow.parquet as pq

from dicobench.kit.io.parquet_options import CDC_METADATA_KEY, CDC_OPTIONS


def test_build_shards_use_content_defined_chunking_and_a_page_index(small_build):
    shard = next((small_build / "attribute").glob("test-*.parquet"))
    meta = pq.ParquetFile(shard).metadata
    assert json.loads(meta.metadata[CDC_METADATA_KEY.encode()]) == CDC_OPTIONS
    names = [meta.row_group(0).column(i).path_in_schema for i in range(meta.num_columns)]
    for i, name in enumerate(names):
        column = meta.row_group(0).column(i)
        assert column.has_offset_index, name  # page locations: a reader fetches one page of rows
        assert column.has_column_index or name.startswith("image_"), name  # (no min/max of PNG bytes)
        assert column.compression == ("UNCOMPRESSED" if name.startswith("image_") else "SNAPPY"), name
    assert b"huggingface" in meta.metadata  # the features still travel with the file


def test_rows_and_image_bytes_are_those_pyarrow_defaults_would_store(small_build, tmp_path):
    shard = next((small_build / "instance").glob("test-*.parquet"))
    table = pq.read_table(shard)
    plain = tmp_path / "plain.parquet"
    pq.write_table(table, plain)  # pyarrow's default writer: what builds wrote before
    assert pq.read_table(plain).to_pylist() == table.to_pylist()
    rows = datasets.load_dataset(str(small_build), "instance", split="test").cast_column("image_a",
                                                                                         datasets.Image(decode=False))
    assert [r["image_a"]["bytes"] for r in rows] == [r["image_a"]["bytes"] for r in table.to_pylist()]
