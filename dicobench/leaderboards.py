"""`dicobench.leaderboard`: the paper's Table 1, Figure 4 (radar), Figure 6 (views of one model)
and Figure 7 (error types of each model) from scores.json files, as the `leaderboard` command
writes them (dicobench.kit.report.leaderboard builds and writes the table)."""

from __future__ import annotations

from pathlib import Path
from typing import Mapping, Sequence

from dicobench.analysis import ERROR_TYPES
from dicobench.kit.report import leaderboard as board
from dicobench.kit.report.leaderboard import Column, Table, cell
from dicobench.kit.report.plots import grouped_bars, radar, stacked_shares
from dicobench.schema import LETTERS, TASKS, track_of
from dicobench.tasks.registry import task_label

CHANCE = 1 / len(LETTERS)


def _average(scores: Mapping) -> dict | None:
    """The task mean (every task weighs the same, as the paper's Avg.), bounded when incomplete."""
    if scores.get("task_mean_accuracy") is not None:
        return {"accuracy": scores["task_mean_accuracy"]}
    if scores.get("task_mean_accuracy_lower") is not None:
        return {"accuracy_lower": scores["task_mean_accuracy_lower"],
                "accuracy_upper": scores["task_mean_accuracy_upper"]}
    return None


def columns(scores: Sequence[Mapping]) -> list[Column]:
    present = {t for s in scores for t in s.get("per_task", {})}
    found = [Column(t, task_label(t), track_of(t), lambda s, t=t: s.get("per_task", {}).get(t))
             for t in TASKS if t in present]
    return found + [Column("average", "Avg.", "", _average, ranked=False)]


def charts(table: Table, runs: Mapping[str, Mapping[str, list[Mapping]]], cols: list[Column], out: Path) -> list[Path]:
    tasks = [c for c in cols if c.ranked]
    written = []
    models = {r.name: r for r in table.rows if r.kind == "model"}
    if len(tasks) >= 3 and models:
        series = {name: {c.key: row.cells[i].rank_value for i, c in enumerate(cols) if c.ranked and row.cells[i]}
                  for name, row in models.items()}
        written.append(radar(series, out / "radar.png", "DiCoBench accuracy by task"))
    for name, views in runs.items():
        if len(views) > 1:  # Figure 6: the views of one model side by side
            series = {}
            for view, view_runs in views.items():
                values = {c.key: cell([c.get(r) for r in view_runs]) for c in cols}
                series[view] = {k: v.rank_value for k, v in values.items() if v is not None}
            written.append(grouped_bars(series, out / f"views_{_slug(name)}.png", f"DiCoBench views: {name}"))
    errors = {}
    for name, views in runs.items():
        for view, view_runs in views.items():
            label = name if view == "full" else f"{name} ({view})"
            counts = [r["error_types"]["overall"] for r in view_runs if r.get("error_types")]
            if counts:
                errors[label] = {k: sum(c[k] for c in counts) for k in ERROR_TYPES}
    if any(sum(v.values()) for v in errors.values()):
        written.append(stacked_shares(errors, out / "error_types.png", ERROR_TYPES, "DiCoBench error types"))
    return written


def _slug(name: str) -> str:
    return "".join(ch if ch.isalnum() or ch in "-." else "_" for ch in name)


SPEC = board.LeaderboardSpec("dicobench", "DiCoBench accuracy by task", columns,
                        {**{t: CHANCE for t in TASKS}, "average": CHANCE}, charts)


def leaderboard(results: Sequence[str | Path], out: str | Path, *, human: Sequence[str | Path] = ()
                ) -> tuple[Table, list[Path]]:
    """The leaderboard of `results` (result folders or scores.json files) written to `out`, as the
    `leaderboard` command writes it: (the table, the files written). `human`: scores of study
    sessions, a row per time limit. Bad input raises UserError."""
    return board.build_leaderboard(SPEC, results, out, human)
