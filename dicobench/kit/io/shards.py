"""Streaming Parquet shards that are either complete or absent, on any fsspec filesystem.

Rows go straight to storage in small row groups, so memory stays flat however large the
split; a shard is written under a temporary name and published only once complete (an
atomic rename on local disk, a move of the finished temporary object on object stores), so
an interrupted build never leaves a half-written shard that `load_dataset` would pick up.
Paths are local paths or fsspec URLs (`s3://`, `gs://`, `memory://`, ...), so workers on
other machines can write to shared storage.
"""

from __future__ import annotations

import hashlib
import json
import os
import posixpath
from pathlib import Path
from typing import TYPE_CHECKING

import fsspec
import pyarrow as pa
import pyarrow.parquet as pq
from fsspec.implementations.local import LocalFileSystem

from dicobench.kit.errors import UserError
from dicobench.kit.io.parquet_options import footer_metadata, writer_options

if TYPE_CHECKING:
    import datasets  # type hints only: `datasets` (and pandas) load when a shard is written

Location = Path | str  # a local folder or file, or an fsspec URL


def resolve(location: Location) -> tuple[fsspec.AbstractFileSystem, str]:
    """The filesystem and the path on it of a local path or fsspec URL."""
    return fsspec.core.url_to_fs(str(location))


def location(out: str | os.PathLike) -> Location:
    """`out` as builds keep it: a `Path` for local folders (so callers keep using pathlib),
    else the normalised URL."""
    fs, root = resolve(out)
    if isinstance(fs, LocalFileSystem):
        return Path(root) if "://" in str(out) else Path(out)
    return fs.unstrip_protocol(root)


def child(base: Location, *parts: str) -> Location:
    return base.joinpath(*parts) if isinstance(base, Path) else "/".join([base.rstrip("/"), *parts])


def glob(base: Location, pattern: str) -> list[Location]:
    """The files under `base` matching `pattern`, sorted, in the form of `base`."""
    fs, root = resolve(base)
    found = sorted(fs.glob(posixpath.join(root, pattern)))
    return [Path(p) if isinstance(base, Path) else fs.unstrip_protocol(p) for p in found]


def stem(path: Location) -> str:
    """The file name without its extension, for paths and URLs alike."""
    return posixpath.splitext(posixpath.basename(str(path)))[0]


def _publish(fs, tmp: str, path: str) -> None:
    if isinstance(fs, LocalFileSystem):
        os.replace(tmp, path)
    else:
        fs.mv(tmp, path)


def _tmp_name(path: str) -> str:
    return posixpath.join(posixpath.dirname(path), f".{posixpath.basename(path)}.partial")


def shard_name(split: str, index: int, count: int) -> str:
    return f"{split}-{index:05d}-of-{count:05d}.parquet"


def shard_count(rows: int, rows_per_shard: int) -> int:
    return max(1, -(-rows // rows_per_shard))


def shard_ranges(rows: int, rows_per_shard: int) -> list[range]:
    count = shard_count(rows, rows_per_shard)
    return [range(i * rows_per_shard, min(rows, (i + 1) * rows_per_shard)) for i in range(count)]


class _Sink:
    """The file Arrow writes a shard to, which never lets a write fail inside Arrow: Arrow's Parquet
    writer aborts the whole process (SIGABRT) when a write fails in some of its paths (a full disk,
    a file size limit). The first failure is kept, later writes are dropped, and `check` raises
    it once Arrow is back in Python."""

    def __init__(self, file, path: Location):
        self.file = file
        self.path = path
        self.error: OSError | None = None

    def write(self, data) -> int:
        if self.error is None:
            try:
                return self.file.write(data)
            except OSError as exc:
                self.error = exc
        return memoryview(data).nbytes

    def __getattr__(self, name):
        return getattr(self.file, name)

    def check(self) -> None:
        if self.error is not None:
            reason = self.error.strerror or str(self.error)
            raise UserError(f"cannot write {self.path}: {reason} (a full disk or a file size limit); make room and "
                            "rerun the same command: it resumes, keeping the shards already written")


class ShardWriter:
    """Write encoded rows of one shard; `close()` publishes it (rename, or move on object stores)."""

    def __init__(self, path: Location, features: datasets.Features, row_group_size: int = 8):
        self.path = path
        self.fs, self._path = resolve(path)
        self.tmp = _tmp_name(self._path)
        self.features = features
        self.schema = features.arrow_schema
        self.row_group_size = row_group_size
        self.rows = 0
        self._pending: list[dict] = []
        self.fs.makedirs(posixpath.dirname(self._path), exist_ok=True)
        self._file = _Sink(self.fs.open(self.tmp, "wb"), path)
        self._writer = pq.ParquetWriter(self._file, self.schema, **writer_options(features))
        self._writer.add_key_value_metadata(footer_metadata())

    def write(self, row: dict) -> None:
        self._pending.append(self.features.encode_example(row))
        if len(self._pending) >= self.row_group_size:
            self._flush()

    def _flush(self) -> None:
        if self._pending:
            self._writer.write_table(pa.Table.from_pylist(self._pending, schema=self.schema))
            self._file.check()
            self.rows += len(self._pending)
            self._pending = []

    def close(self, sidecar: dict | None = None) -> None:
        """Finish the file, write its sidecar (stats) first, then publish the shard."""
        try:
            self._flush()
            self._writer.close()
            self._file.check()
        except BaseException:
            self.abort()  # no half-written file left: the rerun writes this shard again
            raise
        self._file.close()
        if sidecar is not None:  # with the digest of the bytes published, checked by `info --verify` and a rerun
            write_json_atomic(sidecar_path(self.path), {**sidecar, DIGEST: file_digest(self.tmp, self.fs)})
        _publish(self.fs, self.tmp, self._path)

    def abort(self) -> None:
        self._writer.close()
        self._file.close()
        if self.fs.exists(self.tmp):
            self.fs.rm(self.tmp)


DIGEST = "sha256"  # the sidecar's record of its shard's bytes


def file_digest(path: Location, fs=None) -> str:
    """sha256 of a file's bytes, as hex (`fs`: the filesystem `path` is on, else resolved from it)."""
    if fs is None:
        fs, path = resolve(path)
    digest = hashlib.sha256()
    with fs.open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def altered(path: Location, sidecar: dict) -> bool:
    """Whether the shard at `path` is not the one its sidecar records (edited, replaced, swapped);
    sidecars of builds made before digests were recorded hold none, and say nothing."""
    recorded = sidecar.get(DIGEST) if isinstance(sidecar, dict) else None
    return recorded is not None and recorded != file_digest(path)


def sidecar_path(shard: Location) -> Location:
    if isinstance(shard, Path):
        return shard.parent / ".stats" / (shard.name + ".json")
    head, name = shard.rsplit("/", 1)
    return f"{head}/.stats/{name}.json"


def local_shards(folder: str | Path) -> list[tuple[str, Path, str | None]]:
    """(name relative to the build, path, the sha256 its sidecar records or None) of every shard of a
    local build, sorted by name; hidden folders (caches, review logs) are not the build's shards."""
    folder = Path(folder)
    found = []
    for path in sorted(folder.rglob("*.parquet")):
        name = path.relative_to(folder).as_posix()
        if any(part.startswith(".") for part in name.split("/")):
            continue
        try:
            recorded = json.loads(sidecar_path(path).read_text(encoding="utf-8")).get(DIGEST)
        except (OSError, ValueError, AttributeError):
            recorded = None
        found.append((name, path, recorded))
    return found


def read_json(path: Location):
    fs, p = resolve(path)
    return json.loads(fs.cat_file(p).decode("utf-8"))


def write_text_atomic(path: Location, text: str) -> None:
    """Write under a temporary name, then publish: readers never see a half-written file."""
    fs, p = resolve(path)
    fs.makedirs(posixpath.dirname(p), exist_ok=True)
    tmp = _tmp_name(p)
    fs.pipe_file(tmp, text.encode("utf-8"))
    _publish(fs, tmp, p)


def write_json_atomic(path: Location, data) -> None:
    write_text_atomic(path, json.dumps(data, indent=1, sort_keys=True))


def exists(path: Location) -> bool:
    fs, p = resolve(path)
    return fs.exists(p)


def remove(path: Location) -> None:
    fs, p = resolve(path)
    if fs.exists(p):
        fs.rm(p)


def remove_shards(folder: Location, split: str) -> None:
    """Delete a split's shards in `folder`, with their sidecars (for --overwrite)."""
    for f in glob(folder, f"{split}-*.parquet"):
        remove(sidecar_path(f))
        remove(f)


def read_column(path: Location, column: str) -> list:
    fs, p = resolve(path)
    with fs.open(p, "rb") as f:
        return pq.read_table(f, columns=[column]).column(column).to_pylist()


def complete_shard(path: Location, expected_rows: int, schema: pa.Schema | None = None) -> dict | None:
    """The sidecar of a finished shard with the expected rows (and, given `schema`, exactly its
    columns and types) and the bytes the sidecar records, or None if it must be (re)built. Both files must exist:
    on object stores the shard's move is not atomic with its sidecar."""
    if not (exists(path) and exists(sidecar_path(path))):
        return None
    fs, p = resolve(path)
    try:
        with fs.open(p, "rb") as f:
            file = pq.ParquetFile(f)
            if file.metadata.num_rows != expected_rows:
                return None
            if schema is not None and not file.schema_arrow.remove_metadata().equals(schema.remove_metadata()):
                return None
        sidecar = read_json(sidecar_path(path))
        return None if altered(path, sidecar) else sidecar
    except Exception:
        return None
