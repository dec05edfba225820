"""A scored run read back, row by row: what the results explorer (`review --predictions`) and the
HTML report (`report`) show.

A run folder is what `eval --out` or `score --out` wrote: `scores.json` (with its provenance) and
the predictions it scored (`predictions.jsonl` in an eval folder, else the file `scores.json`
names). Each benchmark turns it into one `Outcome` per row with its own scoring code (its
`Benchmark.results.outcomes`: the letter or answer read as `score` reads it, the error type, the
judge's verdict as `score` recorded it); `check_reproduces` then refuses a run whose rows no longer
give the accuracy its `scores.json` records (predictions changed, or another dataset), so what the
pages show is what was scored.
"""

from __future__ import annotations

import dataclasses
import json
from collections import Counter
from pathlib import Path
from typing import Sequence

from dicobench.kit.errors import UserError
from dicobench.kit.eval.completeness import span
from dicobench.kit.eval.report import SCORES

PREDICTIONS = "predictions.jsonl"  # the name `eval --out` gives them (dicobench.kit.eval.evaluation)
OUTCOMES = ("right", "wrong", "unscored")


@dataclasses.dataclass(frozen=True)
class ScoredRun:
    """A run folder: its scores (the scores.json dict) and the predictions file they come from."""

    folder: Path
    scores: dict
    predictions: Path

    @property
    def name(self) -> str:
        return self.scores["provenance"].get("name") or self.folder.name

    @property
    def model(self) -> str | None:
        return self.scores["provenance"].get("model")

    @property
    def dataset(self) -> str:
        """The dataset as it was scored: a local folder's absolute path where it still exists, else as given."""
        source = self.scores["provenance"].get("dataset") or {}
        path = source.get("path")
        return path if path and Path(path).exists() else self.scores["dataset"]


@dataclasses.dataclass(frozen=True)
class Outcome:
    """One row of a scored run, as its benchmark's scoring reached it."""

    id: str
    position: int  # the row's index in the split (or selection) scored, for its images
    group: str  # the task (DiCoBench) or config (MultipanelVQA)
    answer: str  # the right answer
    response: str | None  # the model's raw reply
    read: str | None  # the letter (or normalised answer) read from the reply; None when none was read
    outcome: str  # right, wrong or unscored
    error_type: str | None = None  # why it is wrong, in the benchmark's types (None when right or unscored)
    unparsed: bool = False  # scored, and nothing could be read from the reply
    judge: str | None = None  # the judge's verdict, where a judge was asked about this row
    unscored: str | None = None  # why the row is unscored: the model call's error, "not answered", "unjudged"

    def to_dict(self) -> dict:
        return dataclasses.asdict(self)


def read_run(path: str | Path, benchmark: str) -> ScoredRun:
    """The run folder at `path` (or its scores.json) scored for `benchmark`; one-line UserErrors."""
    path = Path(path)
    folder = path.parent if path.name == SCORES and path.is_file() else path
    if not folder.is_dir():
        raise UserError(f"{path} is not a run folder (the folder `{benchmark} eval --out` or `score --out` wrote)")
    file = folder / SCORES
    if not file.is_file():
        raise UserError(f"{folder} holds no {SCORES}: score its predictions first ({benchmark} score PREDICTIONS "
                        f"--dataset DIR --out {folder})")
    try:
        scores = json.loads(file.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise UserError(f"{file}: not a scores file ({type(exc).__name__})") from None
    if not isinstance(scores, dict) or not isinstance(scores.get("provenance"), dict) or "dataset" not in scores:
        raise UserError(f"{file}: not a scores file written by `{benchmark} score` or `eval`")
    if scores.get("benchmark") != benchmark:
        raise UserError(f"{file} holds scores of {scores.get('benchmark')!r}, not {benchmark}: use "
                        f"{scores.get('benchmark')} for it")
    return ScoredRun(folder, scores, _predictions(folder, scores))


def _predictions(folder: Path, scores: dict) -> Path:
    """`predictions.jsonl` beside scores.json (eval), else the file scores.json names: as given, or
    beside the folder (where `score`'s default `--out` puts it)."""
    named = Path(str(scores.get("predictions") or PREDICTIONS))
    for candidate in (folder / PREDICTIONS, named, folder.parent / named.name):
        if candidate.is_file():
            return candidate
    raise UserError(f"{folder}: the predictions it scored ({named}) are not there any more")


def check_reproduces(run: ScoredRun, rows: Sequence[Outcome]) -> None:
    """Refuse a run whose rows, scored again here, do not give the right answers its scores.json records."""
    scores = run.scores
    low = span(scores)
    expected = None if low is None else round(low[0] * scores["n"])
    right = sum(r.outcome == "right" for r in rows)
    if len(rows) != scores["n"] or right != expected:
        raise UserError(f"{run.folder}: its predictions and dataset now give {right} right answers of "
                        f"{len(rows)} rows, its {SCORES} {expected} of {scores['n']}: the predictions or the "
                        "dataset changed since it was scored; score it again")


def tally(rows: Sequence[Outcome], field: str, kinds: Sequence[str]) -> dict[str, dict[str, int]]:
    """Counts of each of `kinds` of `field` per group and overall (`{"overall": {...}, group: {...}}`)."""
    groups: dict[str, Counter] = {"overall": Counter()}
    for r in rows:
        value = getattr(r, field)
        if value is not None:
            groups["overall"][value] += 1
            groups.setdefault(r.group, Counter())[value] += 1
    return {g: {k: c.get(k, 0) for k in kinds} for g, c in groups.items()}
