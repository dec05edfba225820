"""Rows of a benchmark as Inspect samples, without importing Inspect: the parts of one user
message in order, with each image as a PNG file (the stored bytes, written once under a
content-addressed name), so Inspect sends the file as it is and its logs hold paths, not
megabytes of base64."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Callable, Iterator, Sequence

from dicobench.kit.eval.evaluation import interleave
from dicobench.kit.io.predictions import load_split


def image_cache() -> Path:
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "dicobench" / "inspect-images"


def png_file(cell: dict, root: Path) -> str:
    """The path of a dataset image cell's PNG bytes, written under their digest if new."""
    data = cell.get("bytes")
    if data is None:
        return cell["path"]
    path = root / f"{hashlib.sha256(data).hexdigest()}.png"
    if not path.exists():
        root.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_bytes(data)
        tmp.replace(path)
    return str(path)


class ImageFile(str):
    """An image file's path among the text parts of a prompt."""


def rows_as_parts(dataset: str, config: str, split: str, image_columns: Sequence[str],
                  prompt: Callable[[dict], tuple[list, str]], limit: int | None = None,
                  root: Path | None = None) -> Iterator[tuple[dict, list]]:
    """(row with ClassLabels as names, prompt parts with ImageFile paths) for every row."""
    import datasets

    rows = load_split(dataset, config, f"{split}[:{limit}]" if limit else split)
    for column in image_columns:
        rows = rows.cast_column(column, datasets.Image(decode=False))
    names = {c: f.names for c, f in rows.features.items() if hasattr(f, "names")}
    root = root or image_cache()
    for row in rows:
        plain = {k: names[k][v] if k in names and isinstance(v, int) else v for k, v in row.items()}
        files = {c: ImageFile(png_file(row[c], root)) for c in image_columns}
        images, text = prompt({**plain, **files})
        yield plain, interleave(images, text)
