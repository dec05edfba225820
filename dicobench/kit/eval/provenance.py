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
from dicobench.kit.errors import UserError
from dicobench.kit.io.shards import file_digest, local_shards

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


ROWS = "rows"  # run.json: per column, a digest of the split the answers were asked from (`content`)


def content(rows) -> dict[str, str]:
    """Per column, a sha256 of a split's values in row order, image columns by their bytes: what
    binds a run to the rows it asked (a rebuild with other options keeps ids, not options or images)."""
    import datasets  # deferred: reading run.json should not pay for it

    images = {c for c, f in rows.features.items() if isinstance(f, datasets.Image)}
    digests = {c: hashlib.sha256() for c in rows.column_names}
    for batch in rows.with_format("arrow").iter(batch_size=64):
        for column, digest in digests.items():
            values = batch.column(column)
            if column in images:
                for data in values.combine_chunks().field("bytes").to_pylist():
                    digest.update(hashlib.sha256(data or b"").digest())
            else:
                digest.update(json.dumps(values.to_pylist(), sort_keys=True, default=str).encode("utf-8"))
    return {c: d.hexdigest() for c, d in sorted(digests.items())}


def changed_rows(recorded, found: dict[str, str]) -> list[str]:
    """The columns whose content differs from a run's record (none when the run recorded nothing)."""
    if not isinstance(recorded, dict):
        return []
    return sorted(c for c in recorded.keys() | found.keys() if recorded.get(c) != found.get(c))


def check_rows(settings: dict, dataset: str, config: str, split: str) -> None:
    """Refuse to score a run's answers against rows other than those it asked: `settings` is the
    run.json beside the predictions (`run_settings`); a run of another config or split is not checked."""
    if not isinstance(settings.get(ROWS), dict) or (settings.get("config"), settings.get("split")) != (config, split):
        return
    from dicobench.kit.io.predictions import load_split

    changed = changed_rows(settings[ROWS], content(load_split(dataset, config, split)))
    if changed:
        raise UserError(f"{dataset} is not the dataset these answers were asked from: its {', '.join(changed)} differ "
                        "from what run.json records (rebuilt with other options, or edited): score against that "
                        "dataset, or ask this one with eval into another --out")


def build_digest(folder: Path) -> str | None:
    """What a local build holds, wherever it lies: a digest of its shards' names and bytes (the sha256
    each shard's sidecar records, else the shard's own), so that a copied or moved build is the same
    dataset and a rebuilt one is not. None for a folder without shards (a single file, say)."""
    shards = local_shards(folder)
    if not shards:
        return None
    found = hashlib.sha256()
    for name, path, recorded in shards:
        found.update(f"{name} {recorded or file_digest(path)}\n".encode())
    return found.hexdigest()


def dataset_source(dataset: str) -> dict:
    """A local folder by its absolute path; a Hub repo with the revision it resolves to now
    (None when the Hub cannot be asked, e.g. offline)."""
    path = Path(dataset)
    if path.exists():
        return {"path": str(path.resolve()), "revision": None, "digest": build_digest(path)}
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
