"""`multipanelvqa.leaderboard`: the paper's Table 2 (accuracy per subset and
question style, runs of one model as mean ± std), Table 3/4 (the interference factors of every
model, as a table and a chart of the deltas), Figure 4 (Q2 accuracy in the full, isolated and
single views, when runs of several views are given) and Figure 5 (accuracy against the number
of subfigures, a line per model).
From scores.json files, as the `leaderboard` command writes them."""

from __future__ import annotations

from pathlib import Path
from typing import Mapping, Sequence

from dicobench.kit.report import leaderboard as board
from dicobench.kit.report.leaderboard import Column, Table, cell
from dicobench.kit.report.plots import deltas, grouped_bars, lines
from multipanelvqa.factors import FACTORS
from multipanelvqa.schema import QUESTION_TYPES, SUBSETS

# Random choice: yes/no for Q1, one of four positions for Q3; Q2's open answers have no chance level.
CHANCE = {"q1": 0.5, "q3": 0.25}


def columns(scores: Sequence[Mapping]) -> list[Column]:
    present = [s for s in SUBSETS if any(s in r.get("per_subset_question_type", {}) for r in scores)]
    found = []
    for sub in present:
        for qt in QUESTION_TYPES:
            found.append(Column(f"{sub}_{qt}", qt.upper(), sub.replace("_", " "),
                                lambda r, sub=sub, qt=qt: r.get("per_subset_question_type", {}).get(sub, {}).get(qt)))
        found.append(Column(f"{sub}_overall", "Overall", sub.replace("_", " "),
                            lambda r, sub=sub: r.get("per_subset", {}).get(sub), ranked=False))
    return found


def _factor(scores: Mapping, name: str, side: str) -> dict | None:
    entry = next((f for f in scores.get("factors", []) if f["factor"] == name), None)
    if entry is None or entry[f"{side}_accuracy"] is None:
        return None
    return {"accuracy": entry[f"{side}_accuracy"]}


def factor_columns(scores: Sequence[Mapping]) -> list[Column]:
    present = {f["factor"] for s in scores for f in s.get("factors", [])}
    found = []
    for f in FACTORS:
        if f.name in present:
            for side, label in (("base", f.base), ("variant", f.variant)):
                found.append(Column(f"{f.name}_{side}", label.replace("_", " "), f.name.replace("_", " "),
                                    lambda s, n=f.name, side=side: _factor(s, n, side), ranked=False))
    return found


def charts(table: Table, runs: Mapping[str, Mapping[str, list[Mapping]]], cols: list[Column], out: Path) -> list[Path]:
    written = []
    full = {name: views["full"] for name, views in runs.items() if "full" in views}
    # Figure 5: a line per model, each point the mean over its runs
    series = {}
    for name, model_runs in full.items():
        counts = sorted({k for r in model_runs for k in r.get("per_num_subfigures", {})}, key=int)
        points = {k: cell([r.get("per_num_subfigures", {}).get(k) for r in model_runs]) for k in counts}
        series[name] = {k: {"accuracy": v.rank_value} for k, v in points.items() if v is not None}
    if any(len(points) > 1 for points in series.values()):
        written.append(lines(series, out / "per_num_subfigures.png", "MultipanelVQA by number of subfigures",
                             xlabel="subfigures"))
    # Figure 4: Q2 accuracy of each model in the views given (full, isolated, single)
    views = {}
    for name, model_views in runs.items():
        for view, view_runs in model_views.items():
            found = cell([r.get("per_question_type", {}).get("q2") for r in view_runs])
            if found is not None:
                views.setdefault(view, {})[name] = found.rank_value
    if len(views) > 1:
        written.append(grouped_bars(views, out / "views.png", "MultipanelVQA Q2 by view"))
    # Tables 3 and 4: the factors as a table and the deltas of every model (mean over runs)
    fcols = factor_columns([r for model_runs in full.values() for r in model_runs])
    if fcols:
        ftable = board.leaderboard_table("MultipanelVQA interference factors (accuracy % on each side)", fcols, full)
        written += board.write_table(ftable, out, "factors")
        effect = {}
        for name, model_runs in full.items():
            entries: dict[str, dict] = {}
            for f in FACTORS:
                found = [e for r in model_runs for e in r.get("factors", []) if e["factor"] == f.name and
                         e["delta"] is not None]
                if found:
                    entries[f.name] = {"delta": sum(e["delta"] for e in found) / len(found),
                                       "delta_ci": found[0]["delta_ci"] if len(found) == 1 else None}
            effect[name] = entries
        written.append(deltas(effect, out / "factors.png", "MultipanelVQA interference factors"))
    return written


SPEC = board.LeaderboardSpec("multipanelvqa", "MultipanelVQA accuracy by subset and question style", columns,
                        {f"{sub}_{qt}": p for sub in SUBSETS for qt, p in CHANCE.items()}, charts)


def leaderboard(results: Sequence[str | Path], out: str | Path, *, human: Sequence[str | Path] = ()
                ) -> tuple[Table, list[Path]]:
    """The leaderboard of `results` (result folders or scores.json files) written to `out`, as the
    `leaderboard` command writes it: (the table, the files written). `human`: scores of study
    sessions, a row per time limit. Bad input raises UserError."""
    return board.build_leaderboard(SPEC, results, out, human)
