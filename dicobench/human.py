"""Human accuracy against the time allowed (DiCoBench's Figure 5), pooled over study sessions.

Every `<build>/.study/*.jsonl` session is scored with the same rules as models
(`dicobench.score`), grouped by time limit: overall and per track, with bootstrap intervals
clustered by row (several participants answer the same row). Models' `scores.json` files
are drawn as horizontal lines.
"""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from benchkit.card import markdown_table
from benchkit.errors import UserError
from benchkit.rowstore import RowStore
from benchkit.webapp.spec import STUDY_DIR
from dicobench.people import SPEC
from dicobench.schema import TRACKS
from dicobench.scoring import score

SERIES = ("overall", *TRACKS)


def read_sessions(root: Path) -> list[dict]:
    """Every answer line of every session file; a bad line is a one-line error naming it."""
    lines = []
    for path in sorted((root / STUDY_DIR).glob("*.jsonl")):
        for number, text in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if not text.strip():
                continue
            try:
                line = json.loads(text)
                if not isinstance(line["id"], str) or "time_limit" not in line or "participant" not in line:
                    raise KeyError
            except (ValueError, KeyError, TypeError):
                raise UserError(f"{path}:{number}: not a study answer (id, response, time_limit, participant)") from None
            lines.append(line)
    if not lines:
        raise UserError(f"{root / STUDY_DIR} holds no study answers; run `dicobench study {root} ...` first")
    return lines


def pool(root: str | Path, n_boot: int = 2000) -> dict:
    """{time limit label: accuracy overall and per track, with CIs, n, participants, timeouts}."""
    root = Path(root)
    SPEC.check_build(root)
    store = RowStore(root, [c for c in SPEC.configs if (root / c).is_dir()], SPEC.image_columns)
    groups: dict[float | None, list[dict]] = defaultdict(list)
    for line in read_sessions(root):
        if line["id"] not in store.rows:
            raise UserError(f"study answer for row {line['id']!r}, which is not in {root}")
        groups[line["time_limit"]].append(line)
    out = {}
    for limit in sorted(groups, key=lambda t: float("inf") if t is None else t):
        lines = groups[limit]
        rows = [store.rows[l["id"]] for l in lines]
        result = score([l["response"] for l in lines], [r["answer"] for r in rows], [r["task"] for r in rows],
                       [r["options"] for r in rows], [r["id"] for r in rows], n_boot=n_boot)
        out["none" if limit is None else f"{limit:g}"] = {
            "time_limit": limit,
            "n": result["n"],
            "participants": sorted({l["participant"] for l in lines}),
            "timed_out": sum(bool(l.get("timed_out")) for l in lines),
            "overall": {"n": result["n"], "accuracy": result["accuracy"], "ci": result["accuracy_ci"]},
            **{t: result["per_track"].get(t) for t in TRACKS},
        }
    return out


def model_lines(specs: list[str]) -> dict[str, float]:
    """NAME=scores.json (or just the path: named by its folder) -> overall accuracy."""
    out = {}
    for spec in specs:
        name, _, path = spec.rpartition("=") if "=" in spec else (None, "", spec)
        try:
            data = json.loads(Path(path).read_text())
            out[name or Path(path).parent.name] = float(data["accuracy"])
        except (OSError, ValueError, KeyError, TypeError):
            raise UserError(f"{path}: not a scores.json with an overall accuracy") from None
    return out


def table(pooled: dict) -> str:
    def cell(g):
        if not g:
            return "-"
        ci = f" [{100 * g['ci'][0]:.1f}, {100 * g['ci'][1]:.1f}]" if g.get("ci") else ""
        return f"{100 * g['accuracy']:.1f}{ci} (n={g['n']})"

    rows = [[label if label == "none" else f"{label} s", ", ".join(p["participants"]), p["timed_out"],
             *(cell(p.get(s)) for s in SERIES)] for label, p in pooled.items()]
    return markdown_table(["time limit", "participants", "timeouts", *(f"{s} % [95% CI]" for s in SERIES)], rows)


def figure(pooled: dict, models: dict[str, float], path: Path) -> Path:
    labels = list(pooled)
    xs = range(len(labels))
    fig = Figure(figsize=(6.5, 4.2))
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    for k, series in enumerate(SERIES):
        points = [(x, pooled[l].get(series)) for x, l in zip(xs, labels)]
        points = [(x + 0.04 * (k - 1), g) for x, g in points if g]
        if not points:
            continue
        y = [100 * g["accuracy"] for _, g in points]
        err = [[100 * (g["accuracy"] - g["ci"][0]) for _, g in points], [100 * (g["ci"][1] - g["accuracy"]) for _, g in points]]
        ax.errorbar([x for x, _ in points], y, yerr=err, marker="o", capsize=3, linewidth=2 if series == "overall" else 1,
                    label=f"human, {series}" if series == "overall" else f"human, {series} track")
    for name, accuracy in models.items():
        ax.axhline(100 * accuracy, linestyle="--", linewidth=1, color="grey")
        ax.text(len(labels) - 1, 100 * accuracy + 1, name, ha="right", fontsize=8, color="dimgray")
    ax.set_xticks(list(xs))
    ax.set_xticklabels([l if l == "none" else f"{l} s" for l in labels])
    ax.set_xlabel("time limit per item (none: unlimited)")
    ax.set_ylabel("accuracy (%)")
    ax.set_ylim(0, 105)
    ax.set_title("DiCoBench: human accuracy vs time allowed")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, loc="lower right")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    return path
