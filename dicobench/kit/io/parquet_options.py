"""How shards are written: the Parquet writer options `datasets` uses for Hub uploads.

Content-defined chunking cuts data pages where the content says, not at fixed offsets, so a
rebuilt shard whose rows are partly unchanged shares most of its byte chunks with the old one
and a re-push to Xet storage uploads only the chunks that changed. The page index lets readers
(the Dataset Viewer among them) fetch a page of rows without scanning whole column chunks.
Image columns are PNG bytes already: stored uncompressed, like `datasets` does, but (unlike
`datasets`) with their dictionary kept, so rows that share an image in a row group (the three
questions of a MultipanelVQA composite) store it once; everything else is snappy-compressed.
The options change how pages are laid out in the file, never the rows or image bytes it holds.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import pyarrow as pa

if TYPE_CHECKING:
    import datasets

# the chunk sizes `datasets` uses (datasets.config.DEFAULT_CDC_OPTIONS in datasets 5)
CDC_OPTIONS = {"min_chunk_size": 256 * 1024, "max_chunk_size": 1024 * 1024, "norm_level": 0}
CDC_METADATA_KEY = "content_defined_chunking"  # recorded in the footer, as datasets does


def _leaves(path: str, pa_type: pa.DataType) -> list[str]:
    """Parquet leaf column paths under `path` (options are matched against leaves)."""
    if isinstance(pa_type, pa.ExtensionType):
        pa_type = pa_type.storage_type
    if pa.types.is_struct(pa_type):
        return [leaf for field in pa_type for leaf in _leaves(f"{path}.{field.name}", field.type)]
    if pa.types.is_list(pa_type) or pa.types.is_large_list(pa_type) or pa.types.is_fixed_size_list(pa_type):
        return _leaves(f"{path}.list.element", pa_type.value_type)
    return [path]


def writer_options(features: datasets.Features) -> dict:
    """Keyword arguments for `pyarrow.parquet.ParquetWriter` writing rows of `features`."""
    import datasets  # deferred: loaded with the features it reads

    compression = {}
    for field in features.arrow_schema:
        media = isinstance(features[field.name], datasets.Image)
        for leaf in _leaves(field.name, field.type):
            compression[leaf] = "none" if media else "snappy"
    return {"use_content_defined_chunking": CDC_OPTIONS, "write_page_index": True, "compression": compression}


def footer_metadata() -> dict[str, str]:
    return {CDC_METADATA_KEY: json.dumps(CDC_OPTIONS)}
