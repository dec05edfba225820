"""What scoring a predictions file gives, as a value: `Report`, and `write_report` for its files.

Each benchmark's `score_predictions` reads predictions and references and returns a Report;
`score`, `eval`, `evaluate()` and the leaderboard's inputs all come from it, so the library
never goes through a command line. The Report holds the same dict scores.json holds
(`to_dict()`), the text table the command prints, each chart's data (drawn only by
`write_report`, so scoring needs no matplotlib) and why the result is incomplete, if it is.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping, Sequence

from dicobench.kit.eval.completeness import resume_message, span

SCORES = "scores.json"


@dataclass(frozen=True)
class Figure:
    """One chart: `kind` names its function in dicobench.kit.report.plots, called as
    `kind(data, OUT/file, *args, **options)`."""

    file: str  # e.g. "per_task.png"
    kind: str  # bars, radar, stacked_shares, lines, deltas
    data: Mapping
    args: tuple = ()
    options: Mapping = field(default_factory=dict)


@dataclass(frozen=True)
class Completeness:
    """Whether every row was scored; when not, the accuracy's bounds, why, and what to do."""

    complete: bool
    unscored: int
    bounds: tuple[float, float] | None = None  # (unscored counted wrong, counted right); None when complete
    reasons: str = ""  # why rows are unscored
    remedy: str = ""  # how to score them

    @classmethod
    def of(cls, scores: Mapping, reasons: str = "", remedy: str = "") -> "Completeness":
        complete = bool(scores.get("complete", True))
        return cls(complete, int(scores.get("unscored", 0)), None if complete else span(scores), reasons, remedy)

    def message(self, scores: Mapping) -> str | None:
        """The one line an incomplete result's command prints; None when complete."""
        return None if self.complete else resume_message(scores, self.reasons, self.remedy)


@dataclass(frozen=True)
class Report:
    """A scored predictions file: `scores` (what scores.json holds, provenance included), the
    `table` the score command prints, the `figures` it draws, and its `completeness`."""

    benchmark: str
    scores: dict
    table: str
    figures: tuple[Figure, ...] = ()
    completeness: Completeness = Completeness(True, 0)

    @property
    def provenance(self) -> dict:
        return self.scores["provenance"]

    @property
    def complete(self) -> bool:
        return self.completeness.complete

    def to_dict(self) -> dict:
        """The scores.json dict, as reading the file back gives it (a copy in JSON's types)."""
        return json.loads(json.dumps(self.scores))


def write_report(report: Report, out: str | Path) -> list[Path]:
    """Write OUT/scores.json and the report's charts (PNG and SVG); the paths: scores.json, then
    each chart's PNG. `out` is created when missing."""
    from dicobench.kit.io.outputs import output_folder

    folder = output_folder(out)
    path = folder / SCORES
    path.write_text(json.dumps(report.scores, indent=2) + "\n")
    return [path] + draw(report.figures, folder)


def draw(figures: Sequence[Figure], folder: Path) -> list[Path]:
    """Draw each figure into `folder` (PNG and SVG); the PNG paths."""
    from dicobench.kit.report import plots  # deferred: matplotlib is for the charts only

    return [getattr(plots, f.kind)(f.data, folder / f.file, *f.args, **f.options) for f in figures]


def wrote(paths: Sequence[Path]) -> str:
    """The line a command prints after `write_report`."""
    return f"wrote {paths[0]} and {', '.join(p.name for p in paths[1:])}"
