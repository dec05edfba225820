"""Human accuracy against the time allowed, pooled over a build's study sessions.

Each benchmark scores a group of answers its own way (`score_lines`: the rules models are
scored by); this module reads the sessions, groups them by time limit and writes the table
and the chart (DiCoBench's Figure 5; MultipanelVQA's human row of Table 2 per question type).
"""

from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Sequence

from dicobench.kit.errors import UserError
from dicobench.kit.io.jsonl import read_objects
from dicobench.kit.io.rowstore import RowStore
from dicobench.kit.people.webapp.spec import STUDY_DIR, BenchmarkSpec
from dicobench.kit.release.card import markdown_table

# answers of one time limit and their rows -> {series: {"n", "accuracy", "ci"}}
ScoreLines = Callable[[list[dict], list[dict]], dict[str, dict | None]]


@dataclass(frozen=True)
class HumanFigure:
    """A benchmark's human figure: its series (the table's rows, the chart's lines), the chart's
    title, and how it scores one time limit's answers (`score_lines(lines, rows, n_boot=, **judge)`)."""

    series: tuple[str, ...]
    title: str
    score_lines: Callable[..., dict[str, dict | None]]


def read_sessions(root: Path) -> list[dict]:
    """Every answer line of every session file; a bad line is a one-line error naming it."""
    lines = []
    for path in sorted((root / STUDY_DIR).glob("*.jsonl")):
        lines += read_objects(path, lambda line: isinstance(line.get("id"), str) and "time_limit" in line
                              and "participant" in line, "a study answer (id, response, time_limit, participant)")
    if not lines:
        raise UserError(f"{root / STUDY_DIR} holds no study answers; run the study command on {root} first")
    return lines


def pool(spec: BenchmarkSpec, root: str | Path, score_lines: ScoreLines) -> dict:
    """{time limit label: participants, timeouts and every series' accuracy with its CI}."""
    root = Path(root)
    spec.check_build(root)
    store = RowStore(root, [c for c in spec.configs if (root / c).is_dir()], spec.image_columns)
    groups: dict[float | None, list[dict]] = defaultdict(list)
    for line in read_sessions(root):
        if line["id"] not in store.rows:
            raise UserError(f"study answer for row {line['id']!r}, which is not in {root}")
        groups[line["time_limit"]].append(line)
    out = {}
    for limit in sorted(groups, key=lambda t: float("inf") if t is None else t):
        lines = groups[limit]
        out["none" if limit is None else f"{limit:g}"] = {
            "time_limit": limit,
            "n": len(lines),
            "participants": sorted({l["participant"] for l in lines}),
            "timed_out": sum(bool(l.get("timed_out")) for l in lines),
            **score_lines(lines, [store.rows[l["id"]] for l in lines]),
        }
    return out


def model_lines(specs: Sequence[str]) -> dict[str, float]:
    """NAME=scores.json (or just the path: named by its folder) -> overall accuracy."""
    out = {}
    for spec in specs:
        name, _, path = spec.rpartition("=") if "=" in spec else ("", "", spec)
        try:
            data = json.loads(Path(path).read_text())
            out[name or Path(path).parent.name] = float(data["accuracy"])
        except (OSError, ValueError, KeyError, TypeError):
            raise UserError(f"{path}: not a scores.json with an overall accuracy") from None
    return out


def table(pooled: dict, series: Sequence[str]) -> str:
    def cell(g):
        if not g or g.get("accuracy") is None:
            return "-"
        ci = f" [{100 * g['ci'][0]:.1f}, {100 * g['ci'][1]:.1f}]" if g.get("ci") else ""
        return f"{100 * g['accuracy']:.1f}{ci} (n={g['n']})"

    rows = [[label if label == "none" else f"{label} s", ", ".join(p["participants"]), p["timed_out"],
             *(cell(p.get(s)) for s in series)] for label, p in pooled.items()]
    return markdown_table(["time limit", "participants", "timeouts", *(f"{s} % [95% CI]" for s in series)], rows)


def figure(pooled: dict, series: Sequence[str], models: dict[str, float], path: Path, title: str) -> Path:
    """Accuracy against time limit, one line per series with its CIs; models as dashed lines."""
    labels = list(pooled)
    from matplotlib.backends.backend_agg import FigureCanvasAgg  # deferred: matplotlib is slow to import
    from matplotlib.figure import Figure

    fig = Figure(figsize=(6.5, 4.2))
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    for k, name in enumerate(series):
        points = [(x + 0.04 * (k - 1), pooled[l].get(name)) for x, l in enumerate(labels)]
        points = [(x, g) for x, g in points if g and g.get("accuracy") is not None]
        if not points:
            continue
        y = [100 * g["accuracy"] for _, g in points]
        cis = [g.get("ci") or [g["accuracy"]] * 2 for _, g in points]
        err = [[v - 100 * c[0] for v, c in zip(y, cis)], [100 * c[1] - v for v, c in zip(y, cis)]]
        ax.errorbar([x for x, _ in points], y, yerr=err, marker="o", capsize=3,
                    linewidth=2 if name == series[0] else 1, label=f"human, {name}")
    for name, accuracy in models.items():
        ax.axhline(100 * accuracy, linestyle="--", linewidth=1, color="grey")
        ax.text(len(labels) - 0.5, 100 * accuracy + 1, name, ha="right", fontsize=8, color="dimgray")
    ax.set_xlim(-0.5, len(labels) - 0.5)  # a tick's series side by side at it, however few time limits there are
    ax.set_xticks(list(range(len(labels))))
    ax.set_xticklabels([l if l == "none" else f"{l} s" for l in labels])
    ax.set_xlabel("time limit per item (none: unlimited)")
    ax.set_ylabel("accuracy (%)")
    ax.set_ylim(0, 105)
    ax.set_title(title)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, loc="best")  # clear of the lines, the models' dashed ones included
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    return path


def write_report(pooled: dict, series: Sequence[str], models: dict[str, float], out: Path,
                 title: str) -> tuple[str, list[Path]]:
    """human.json, human.md (the table) and human_accuracy.png in `out`; returns the table."""
    out.mkdir(parents=True, exist_ok=True)
    (out / "human.json").write_text(json.dumps({"time_limits": pooled, "models": models}, indent=2) + "\n")
    text = table(pooled, series)
    (out / "human.md").write_text(text + "\n")
    return text, [out / "human.json", out / "human.md",
                  figure(pooled, series, models, out / "human_accuracy.png", title)]
