"""An evaluation's run folder: made (or a temporary one), locked, resumed, and its run.json.

`OUT/predictions.jsonl` holds one line per answered row; `OUT/run.json` the settings that shape
answers, the content of the rows they were asked from and how they were made
(dicobench.kit.eval.provenance). A rerun keeps the answered rows and is refused where its settings
or rows differ; one run at a time writes into a folder (`OUT/.lock`); a folder this run created
is removed again when the run fails before any answer."""

from __future__ import annotations

import contextlib
import json
import shutil
import tempfile
from pathlib import Path
from typing import Iterator

from dicobench.kit.errors import UserError
from dicobench.kit.eval import provenance
from dicobench.kit.io.jsonl import read_lines
from dicobench.kit.io.locks import ExclusiveLock
from dicobench.kit.io.outputs import output_folder

PREDICTIONS = "predictions.jsonl"
RUN = "run.json"
LOCK = ".lock"  # held while a run writes into its folder: one run at a time (dicobench.kit.io.locks)
PROVENANCE = "provenance"  # the part of run.json that says how, not what: left out of the settings check
LIMIT = "limit"  # run.json's `eval --limit N` scored as a selection (None otherwise): a rerun may change it


def check_out(out: str | Path | None) -> None:
    """Refuse an `out` that is a file, before any data loads."""
    if out is not None and Path(out).exists() and not Path(out).is_dir():
        raise UserError(f"--out {out} exists and is not a folder")


@contextlib.contextmanager
def run_folder(out: str | Path | None) -> Iterator[Path]:
    """The folder a run writes into, held under its lock: `out` (created if needed, and removed
    again if the run fails before its first answer), or a temporary folder for this call only."""
    fresh = out is not None and not Path(out).exists()
    place = tempfile.TemporaryDirectory() if out is None else contextlib.nullcontext(output_folder(out))
    with place as folder, _removed_unless_answered(Path(folder) if fresh else None), \
            ExclusiveLock(Path(folder) / LOCK, lambda owner: f"{folder} is in use by another eval (pid {owner}): "
                          "wait for it to finish, or use another --out"):
        yield Path(folder)


@contextlib.contextmanager
def _removed_unless_answered(folder: Path | None) -> Iterator[None]:
    """On failure, remove `folder` (one this call created) while it holds no answer: a refused
    run leaves nothing behind, an interrupted one keeps what it was told."""
    try:
        yield
    except BaseException:
        answers = folder / PREDICTIONS if folder is not None else None
        if answers is not None and not (answers.exists() and answers.stat().st_size):
            shutil.rmtree(folder, ignore_errors=True)
        raise


def record_settings(path: Path, predictions: Path, settings: dict, prompt_hash: str | None,
                    limit: int | None = None, content: dict[str, str] | None = None) -> None:
    """Refuse to add answers made with other settings, or asked from other rows (`content`:
    `provenance.content` of the split), to existing ones; record the settings, the rows' content,
    the selection `limit` (so that `score` reads the run as eval scored it) and their provenance."""
    if path.exists() and predictions.exists() and predictions.stat().st_size:
        before = json.loads(path.read_text())
        before.pop(PROVENANCE, None)
        before.pop(LIMIT, None)
        rows = provenance.changed_rows(before.pop(provenance.ROWS, None), content or {})
        changed = sorted(k for k in settings.keys() | before.keys() if before.get(k) != settings.get(k))
        if changed:
            raise UserError(f"{path.parent} holds answers made with other settings ({', '.join(changed)}): "
                            "use another --out, or the same settings to resume")
        if rows:
            raise UserError(f"{settings['dataset']} is not the dataset the answers in {path.parent} were asked from: "
                            f"its {', '.join(rows)} differ from what run.json records (rebuilt with other options, or "
                            "edited): use another --out for this dataset, or resume with the one they were asked from")
    made = provenance.record(model=settings["model"], name=settings["model"], dataset=settings["dataset"],
                             config=settings["config"], split=settings["split"], view=settings.get("view", "full"),
                             prompt_hash=prompt_hash)
    path.write_text(json.dumps({**settings, LIMIT: limit, provenance.ROWS: content, PROVENANCE: made},
                               indent=2) + "\n")


def keep_answered(path: Path, selected: set[str]) -> set[str]:
    """Rewrite the predictions file with its answered rows only (failed rows and a line cut off by
    an interruption go), atomically; return their ids."""
    if not path.exists():
        return set()
    kept: dict[str, str] = {}
    for line in read_lines(path):
        try:
            record = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(record, dict) and record.get("error") is None and "id" in record:
            kept[record["id"]] = line
    outside = [key for key in kept if key not in selected]
    if outside:
        raise UserError(f"{path} answers {len(outside)} rows outside this selection (e.g. {outside[0]}): "
                        "keep --config and --limit, or use another --out")
    tmp = path.with_suffix(".tmp")
    tmp.write_text("".join(line + "\n" for line in kept.values()), encoding="utf-8")
    tmp.replace(path)
    return set(kept)
