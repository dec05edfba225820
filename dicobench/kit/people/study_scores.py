"""What the scores of a study session record, and how leaderboards name them.

A session (one participant, one time limit) is scored like a model on the sample it declares
(`dicobench.kit.io.predictions.join`); its `scores.json` says whose answers they are and under which
time limit, so that a leaderboard can give each time limit a human row of its own.
"""

from __future__ import annotations

from typing import Mapping

#: the reasons and the remedy an unfinished session's score prints (see dicobench.kit.eval.report.Completeness)
UNFINISHED = ("items of the declared sample not answered yet",
              "rerun the same study command to finish the session, then score it again")


def model(sample: Mapping | None) -> str | None:
    """The provenance `model` of a session's answers: `human:<participant>`."""
    return None if sample is None else f"human:{sample.get('participant', 'participant')}"


def about(sample: Mapping | None) -> dict:
    """`{"study": {participant, time_limit, seed, n}}` for a session's scores.json; {} for a model's."""
    if sample is None:
        return {}
    return {"study": {"participant": sample.get("participant"), "time_limit": sample.get("time_limit"),
                      "seed": sample.get("seed"), "n": len(sample["ids"])}}


def row_name(scores: Mapping) -> str:
    """The leaderboard row of a session's scores: `Human (30 s)`, `Human (no limit)`; plain
    `Human` for scores that record no study."""
    study = scores.get("study")
    if not isinstance(study, Mapping):
        return "Human"
    limit = study.get("time_limit")
    return "Human (no limit)" if limit is None else f"Human ({limit:g} s)"


def limit_order(scores: Mapping) -> float:
    """Sort key of a session's human row: shortest time limit first, no limit last."""
    study = scores.get("study")
    if not isinstance(study, Mapping):
        return float("inf")
    limit = study.get("time_limit")
    return float("inf") if limit is None else float(limit)
