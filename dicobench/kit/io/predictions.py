"""Read a predictions file: JSON Lines, one object per line with `id` and `response` (or `prediction`).

Model runners write this format; scoring joins it to the dataset on `id`. A line whose `error`
is set records a model call that failed: that row has no answer and is unscored, not wrong.
Every malformed line is reported as one clear UserError naming the file and line.

A study session (people's answers) asks a seeded sample of rows, not all of them: it declares
that sample beside its answers (`sample_path`), and `join` then scores exactly those rows. A
model's predictions declare nothing and must answer every row.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Iterable, Sequence

from dicobench.kit.errors import UserError, first_line
from dicobench.kit.io.jsonl import read_lines

TEXT_FIELDS = ("response", "prediction")


def texts(records: dict[str, tuple[str | None, str | None]]) -> dict[str, str | None]:
    """Map id -> response text of records from `read_records`."""
    return {key: text for key, (text, _) in records.items()}


def read_records(path: str | Path) -> dict[str, tuple[str | None, str | None]]:
    """Map id -> (response text, error): the error is None unless the model call failed."""
    path = Path(path)
    try:
        lines = read_lines(path)
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) else "not a UTF-8 text file"
        raise UserError(f"cannot read predictions {path}: {reason}") from None
    out: dict[str, tuple[str | None, str | None]] = {}
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        where = f"{path}:{number}"
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise UserError(f"{where}: not valid JSON ({exc.msg})") from None
        except RecursionError:
            raise UserError(f"{where}: JSON nested too deeply to be a prediction") from None
        if not isinstance(row, dict):
            raise UserError(f"{where}: expected a JSON object with id and response")
        key = row.get("id")
        if not isinstance(key, (str, int)) or isinstance(key, bool):
            raise UserError(f"{where}: missing or invalid 'id'")
        field = next((f for f in TEXT_FIELDS if f in row), None)
        if field is None:
            raise UserError(f"{where}: no 'response' or 'prediction' field")
        text = row[field]
        if text is not None and not isinstance(text, str):
            raise UserError(f"{where}: '{field}' must be a string or null")
        error = row.get("error")
        if str(key) in out:
            raise UserError(f"{where}: duplicate id {key!r}")
        out[str(key)] = (text, None if error is None else str(error))
    if not out:
        raise UserError(f"{path}: no predictions")
    return out


def align(predictions: dict[str, str | None], ids: Sequence[str], what: str) -> list[str | None]:
    """Responses in the order of `ids`; every id must have exactly one prediction."""
    missing = [i for i in ids if i not in predictions]
    known = set(ids)
    unknown = [i for i in predictions if i not in known]
    if missing or unknown:
        raise UserError(
            f"predictions do not match {what}: {len(predictions)} predictions for {len(ids)} rows"
            + _sample(", missing ids", missing)
            + _sample(", unknown ids", unknown)
            + (" (a partial run? score --allow-partial or --limit N counts those rows unscored)"
               if missing and not unknown else "")
        )
    return [predictions[i] for i in ids]


SAMPLE_SUFFIX = ".sample.json"


def sample_path(predictions: str | Path) -> Path:
    """Where the sample of a study session's answers is declared: `NAME.sample.json` beside `NAME.jsonl`."""
    return Path(predictions).with_suffix(SAMPLE_SUFFIX)


def write_sample(predictions: str | Path, ids: Sequence[str], **about) -> None:
    """Declare the rows a session asks (`about`: who, the time limit, seed, ...)."""
    sample_path(predictions).write_text(json.dumps({**about, "ids": list(ids)}, indent=2) + "\n", encoding="utf-8")


def read_sample(predictions: str | Path) -> dict | None:
    """The declaration beside a study session's answers, None beside a model's predictions."""
    path = sample_path(predictions)
    if not path.exists():
        return None
    try:
        found = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(found, dict) or not all(isinstance(i, str) for i in found["ids"]) or not found["ids"]:
            raise ValueError
    except (OSError, ValueError, KeyError, TypeError):
        raise UserError(f"{path}: not a study sample (a JSON object with a non-empty list of row ids)") from None
    return found


def first_per_config(configs: Sequence, n: int) -> list[int]:
    """The indices of the first `n` rows of each config, in row order: what `--limit N` takes
    (lmms-eval's meaning: N rows per task). `configs` holds each row's config (a task, an augmentation)."""
    seen: dict = {}
    keep = []
    for i, config in enumerate(configs):
        seen[config] = seen.get(config, 0) + 1
        if seen[config] <= n:
            keep.append(i)
    return keep


def select_rows(ref: dict[str, list], keep: Sequence[int]) -> dict[str, list]:
    """The reference columns of the rows `keep` (indices), in that order."""
    return {column: [values[i] for i in keep] for column, values in ref.items()}


def limited(ref: dict[str, list], column: str, limit: int | None, selection: int | None) -> dict[str, list]:
    """The reference rows a limited run is scored over: every row for `limit` (those not asked stay,
    unscored: `join`), the first `selection` rows of each config (`column`; one config without it) for `selection`."""
    if limit is not None and selection is not None:
        raise UserError("limit and selection are two readings of one limited run: give one of them")
    for name, value in (("limit", limit), ("selection", selection)):
        if value is not None and (not isinstance(value, int) or isinstance(value, bool) or value < 1):
            raise UserError(f"{name} must be an integer of at least 1, got {value!r}")
    if selection is None:
        return ref
    return select_rows(ref, first_per_config(ref.get(column) or [None] * len(ref["id"]), selection))


def join(records: dict[str, tuple[str | None, str | None]], ref: dict[str, list], what: str,
         sample: dict | None = None, *, limit: int | None = None, allow_partial: bool = False,
         configs: Sequence | None = None) -> tuple[dict[str, list], list[str | None], list[bool]]:
    """The rows to score: (reference columns, responses, unscored flags), in dataset order.

    A model's predictions (`sample` None) must answer every row of `ref`; a failed call is unscored.
    A partial run answers fewer: `limit` N says it asked the first N rows of each config (`configs`:
    each row's; None: one config), as `eval --limit` and lmms-eval's `--limit` do; `allow_partial`
    accepts any subset; the rows it did not ask stay in the result, unscored, so the headline is a
    pair of bounds and never the accuracy of a subset. An id outside `ref` is refused either way.
    A study session scores the rows its `sample` declares: one without an answer yet (the session
    is unfinished) is unscored, never dropped, and a timed-out item (response None) counts wrong."""
    if sample is None and limit is None and not allow_partial:
        responses = align(texts(records), ref["id"], what)
        return ref, responses, [records[i][1] is not None for i in ref["id"]]
    if sample is None:
        ids = ref["id"]
        known = set(ids)
        unknown = [i for i in records if i not in known]
        first = set(first_per_config(configs if configs is not None else [None] * len(ids), limit)) \
            if limit is not None else set(range(len(ids)))
        beyond = [i for k, i in enumerate(ids) if k not in first and i in records]
        missing = [] if allow_partial else [i for k, i in enumerate(ids) if k in first and i not in records]
        if unknown or beyond or missing:
            raise UserError(f"predictions do not match {what}" + _sample(", unknown ids", unknown)
                            + _sample(f", ids beyond the first {limit} rows of each config", beyond)
                            + _sample(f", missing ids among the first {limit} rows of each config", missing)
                            + (" (--allow-partial scores any subset)" if missing else ""))
        return ref, [records[i][0] if i in records else None for i in ids], \
            [i not in records or records[i][1] is not None for i in ids]
    asked = set(sample["ids"])
    keep = [k for k, i in enumerate(ref["id"]) if i in asked]
    found = {ref["id"][k] for k in keep}
    outside = [i for i in sample["ids"] if i not in found] + [i for i in records if i not in asked]
    if outside:
        raise UserError(f"study answers do not match {what}: {len(outside)} ids outside the declared sample or "
                        "the dataset" + _sample(", e.g.", outside))
    ref = select_rows(ref, keep)
    responses = [records[i][0] if i in records else None for i in ref["id"]]
    return ref, responses, [i not in records or records[i][1] is not None for i in ref["id"]]


def _sample(label: str, ids: Iterable[str]) -> str:
    ids = list(ids)
    if not ids:
        return ""
    shown = ", ".join(ids[:3]) + (f" (+{len(ids) - 3} more)" if len(ids) > 3 else "")
    return f"{label}: {shown}"


def load_split(dataset: str, config: str, split: str, columns: Sequence[str] | None = None):
    """One split of a dataset folder or Hub repo; any failure is a one-line UserError.

    A local build is verified first (`dicobench.kit.release.verify`). With `columns`, only those of
    them that exist are read, so scoring never copies a benchmark's images into the `datasets` cache.
    `datasets`' own progress bars and logs are silenced so that stderr holds only our messages."""
    import datasets  # deferred: reading predictions or `--help` should not pay for it

    from dicobench.kit.io.dataset_input import locate, missing_hint
    from dicobench.kit.release.verify import verify_dataset

    dataset = locate(dataset)
    verify_dataset(dataset, config=config, split=split.split("[")[0])  # a local build: its shards, first
    was_enabled = datasets.is_progress_bar_enabled()
    verbosity = datasets.logging.get_verbosity()
    datasets.disable_progress_bars()
    datasets.logging.set_verbosity(datasets.logging.CRITICAL)  # it logs a failed file's whole schema
    try:
        kwargs = {}
        if columns is not None:
            # the schema alone, read without loading any rows
            available = datasets.load_dataset(dataset, config, split=split.split("[")[0], streaming=True).column_names
            kwargs["columns"] = [c for c in columns if c in available]
        if Path(dataset).is_dir():
            return _load_local(dataset, config, split, kwargs)
        return datasets.load_dataset(dataset, config, split=split, **kwargs)
    except Exception as exc:  # any loading failure is the user's input: report it on one line
        raise UserError(f"cannot load dataset {dataset} (config {config!r}, split {split!r}): "
                        f"{first_line(_cause(exc))}"
                        + missing_hint(dataset)) from None
    finally:
        datasets.logging.set_verbosity(verbosity)
        if was_enabled:
            datasets.enable_progress_bars()


SOURCE_RECORD = "dicobench_source.json"  # in the `datasets` cache folder of a local build: the shards it holds


def _load_local(folder: str, config: str, split: str, kwargs: dict):
    """A local build's split, never the `datasets` cache of older bytes: `datasets` keys its cache
    of a local folder on the card and the shard paths only, so a shard rewritten in place (a build
    rerun that repairs it, an edit) would be read as it was. The cache folder records what it was
    made from (`shards_state`); when the shards differ, it is prepared again, in place (no copy
    left behind per version). Unchanged shards cost a `stat` and a sidecar read each."""
    import datasets

    builder = datasets.load_dataset_builder(folder, config, **kwargs)
    record = Path(builder.cache_dir) / SOURCE_RECORD
    state = shards_state(folder)
    try:
        fresh = json.loads(record.read_text(encoding="utf-8")) == state
    except (OSError, ValueError):
        fresh = False
    builder.download_and_prepare(download_mode=None if fresh else datasets.DownloadMode.FORCE_REDOWNLOAD)
    if not fresh:
        try:
            record.write_text(json.dumps(state), encoding="utf-8")
        except OSError:  # a read-only cache: the next load prepares again, and is right too
            pass
    return builder.as_dataset(split=split)


def shards_state(folder: str | Path) -> dict[str, list]:
    """What identifies the bytes of every shard of a local build without reading them: its size,
    times (ctime too, which no edit can set back) and inode, and the sha256 its sidecar recorded."""
    from dicobench.kit.io.shards import local_shards

    state: dict[str, list] = {}
    for name, path, recorded in local_shards(folder):
        try:
            stat = path.stat()
        except OSError:
            continue
        state[name] = [stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns, stat.st_ino, recorded]
    return state


def _cause(exc: BaseException) -> BaseException:
    """The failure under `datasets`' wrappers ("An error occurred while generating the dataset")."""
    while exc.__cause__ is not None:
        exc = exc.__cause__
    return exc


def load_references(dataset: str, config: str, split: str, columns: Sequence[str]) -> dict[str, list]:
    """The reference columns of one split (images are never read), as lists by column name.

    Optional columns missing from the dataset are simply absent from the result."""
    return load_split(dataset, config, split, columns).to_dict()
