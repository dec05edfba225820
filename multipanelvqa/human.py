"""MultipanelVQA's human accuracy per question type (its Table 2's human row), per time limit:
answers scored like a model's (`multipanelvqa.score`: rules, then the optional judge)."""

from __future__ import annotations

from dicobench.kit.people.human import HumanFigure
from multipanelvqa.schema import QUESTION_TYPES
from multipanelvqa.scoring import score

SERIES = ("overall", *QUESTION_TYPES)
TITLE = "MultipanelVQA: human accuracy vs time allowed"


def score_lines(lines: list[dict], rows: list[dict], n_boot: int = 2000, **judge) -> dict:
    result = score([l["response"] for l in lines], [r["answer"] for r in rows], [r["question"] for r in rows],
                   [r["question_type"] for r in rows], choices=[r["choices"] for r in rows],
                   clusters=[r["id"] for r in rows], n_boot=n_boot, **judge)
    return {"overall": {"n": result["n"], "accuracy": result["accuracy"], "ci": result["accuracy_ci"]},
            **{q: result["per_question_type"].get(q) for q in QUESTION_TYPES}}


FIGURE = HumanFigure(SERIES, TITLE, score_lines)
