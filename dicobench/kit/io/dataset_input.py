"""A dataset the user names on the command line: where it is, and whether it is the benchmark's.

`datasets.load_dataset` reads a name that is not a local folder as a Hub repo id, so a mistyped
folder surfaces as a Hub connection error; and a folder of the other benchmark, or one written
by an older version, loads fine and fails later with a KeyError deep in a prompt. Both are caught
here, before any row is read, as one-line UserErrors.
"""

from __future__ import annotations

from pathlib import Path
from typing import Iterable

import datasets
from huggingface_hub.errors import HFValidationError
from huggingface_hub.utils import validate_repo_id

from dicobench.kit.errors import UserError


def locate(dataset: str | Path) -> str:
    """`dataset` as `load_dataset` should get it: an existing folder, or a Hub repo id `ORG/NAME`.

    Anything else (a missing path, a file, a name that cannot be a repo id) is "no such folder"."""
    text = str(dataset)
    path = Path(text).expanduser()
    if path.is_dir():
        return str(path)
    if path.exists():
        raise UserError(f"{text} is a file, not a dataset folder (the folder that `build` wrote) or a Hub repo id")
    if looks_like_repo_id(text):
        return text
    raise UserError(f"no such folder {text} (and it is not a Hub repo id ORG/NAME)")


def looks_like_repo_id(text: str) -> bool:
    """`ORG/NAME`, valid on the Hub and not written as a path (`./x`, `/x`, `~/x`, `a/b/c`)."""
    if text.count("/") != 1 or text.startswith((".", "/", "~")) or "\\" in text:
        return False
    try:
        validate_repo_id(text)
    except HFValidationError:
        return False
    return True


def missing_hint(dataset: str) -> str:
    """What to add to a loading error of a repo id that is not a local folder either."""
    return "" if Path(dataset).expanduser().exists() else f" (no such folder {dataset} here either)"


def check_features(found: datasets.Features, expected: datasets.Features, columns: Iterable[str],
                   dataset: str, benchmark: str) -> None:
    """Refuse a dataset whose `columns` are missing or typed otherwise than `expected` has them:
    the other benchmark's dataset, or one built by an older version of the toolkit. `benchmark`
    is the command that builds it (dicobench, multipanelvqa)."""
    for column in columns:
        if column not in found:
            raise UserError(f"{dataset} has no {column!r} column: not a {benchmark} dataset, or one built by "
                            f"an older version (rebuild it with `{benchmark} build`)")
        if _kind(found[column]) != _kind(expected[column]):
            raise UserError(f"{dataset}: column {column!r} is {_kind(found[column])}, expected "
                            f"{_kind(expected[column])}: not a {benchmark} dataset, or one built by an older version "
                            f"(rebuild it with `{benchmark} build`)")


def _kind(feature) -> str:
    """A feature's type, with the class names of a ClassLabel and the fields of a struct."""
    if isinstance(feature, datasets.ClassLabel):
        return f"ClassLabel({', '.join(feature.names)})"
    if isinstance(feature, dict):
        return "{" + ", ".join(f"{k}: {_kind(v)}" for k, v in feature.items()) + "}"
    if isinstance(feature, (datasets.List, datasets.LargeList)):
        return f"List({_kind(feature.feature)})"
    if isinstance(feature, datasets.Value):
        return f"Value({feature.dtype})"
    return type(feature).__name__
