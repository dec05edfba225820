"""How a number was made: what `scores.json` and `run.json` record so that a score can be traced.

The model and its display name, the versions of the packages that shape answers and scores, the
dataset (a local folder, or a Hub repo and its revision) with a fingerprint of the rows actually
scored, the selection (config, split, view), a hash of the prompt template, the judge, the
bootstrap's seed and resamples, and the time. Never a key or an endpoint's credentials.
"""

from __future__ import annotations

import hashlib
import json
from datetime import datetime, timezone
from importlib import metadata
from pathlib import Path
from typing import Mapping, Sequence

import dicobench.kit

PACKAGES = ("datasets", "transformers", "openai")


def versions() -> dict[str, str | None]:
    """This package's version and those of the libraries in PACKAGES (None when not installed)."""
    found: dict[str, str | None] = {"dicobench": dicobench.kit.__version__}
    for name in PACKAGES:
        try:
            found[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            found[name] = None
    return found


def digest(value) -> str:
    """sha256 of a JSON-serialisable value (keys sorted), as hex."""
    text = json.dumps(value, sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def fingerprint(columns: Mapping[str, Sequence]) -> str:
    """A fingerprint of the reference rows scored (ids, answers, labels: never images), so that
    two scores can be checked to come from the same rows."""
    return digest({name: list(values) for name, values in columns.items()})


def dataset_source(dataset: str) -> dict:
    """A local folder by its absolute path; a Hub repo with the revision it resolves to now
    (None when the Hub cannot be asked, e.g. offline)."""
    path = Path(dataset)
    if path.exists():
        return {"path": str(path.resolve()), "revision": None}
    try:
        from huggingface_hub import HfApi

        revision = HfApi().dataset_info(dataset, timeout=10).sha
    except Exception:  # offline, private or unknown: the revision is simply not known
        revision = None
    return {"repo": dataset, "revision": revision}


def now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def record(*, model: str | None, name: str | None, dataset: str, config: str, split: str,
           view: str | None = None, prompt_hash: str | None = None, judge: str | None = None,
           seed: int | None = None, n_boot: int | None = None, rows: Mapping[str, Sequence] | None = None,
           dataset_info: dict | None = None) -> dict:
    """The provenance block; `rows` (reference columns) gives the fingerprint of what was scored."""
    return {
        "model": model,
        "name": name,
        "versions": versions(),
        "dataset": dataset_info if dataset_info is not None else dataset_source(dataset),
        "fingerprint": fingerprint(rows) if rows is not None else None,
        "n_rows": len(next(iter(rows.values()))) if rows else None,
        "config": config,
        "split": split,
        "view": view,
        "prompt_hash": prompt_hash,
        "judge": judge,
        "seed": seed,
        "n_boot": n_boot,
        "time": now(),
    }


def run_settings(predictions: str | Path) -> dict:
    """The settings in the `run.json` that `eval` wrote beside a predictions file (model, mode,
    view), with the prompt hash of its provenance block; {} when there is none."""
    path = Path(predictions).parent / "run.json"
    try:
        found = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(found, dict):
        return {}
    made = found.pop("provenance", None) or {}
    return {**found, "prompt_hash": made.get("prompt_hash")}


def run_limit(settings: dict, config: str, split: str) -> int | None:
    """The `eval --limit N` that `run_settings` records for this config and split: the predictions
    answer that selection, and are scored as it (None when the run was not limited so)."""
    limit = settings.get("limit")
    same = settings.get("config") == config and settings.get("split") == split
    return limit if same and isinstance(limit, int) and not isinstance(limit, bool) and limit > 0 else None
