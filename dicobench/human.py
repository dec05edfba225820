"""DiCoBench's human accuracy against time allowed (its Figure 5): each time limit's answers
scored like a model's (`dicobench.score`), overall and per track, with bootstrap intervals
clustered by row (several participants answer the same row)."""

from __future__ import annotations

from dicobench.kit.people.human import HumanFigure
from dicobench.schema import TRACKS
from dicobench.scoring import score

SERIES = ("overall", *(f"{t} track" for t in TRACKS))
TITLE = "DiCoBench: human accuracy vs time allowed"


def score_lines(lines: list[dict], rows: list[dict], n_boot: int = 2000) -> dict:
    result = score([l["response"] for l in lines], [r["answer"] for r in rows], [r["task"] for r in rows],
                   [r["options"] for r in rows], [r["id"] for r in rows], n_boot=n_boot)
    return {"overall": {"n": result["n"], "accuracy": result["accuracy"], "ci": result["accuracy_ci"]},
            **{f"{t} track": result["per_track"].get(t) for t in TRACKS}}


FIGURE = HumanFigure(SERIES, TITLE, score_lines)
