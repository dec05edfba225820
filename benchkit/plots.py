"""Report charts as PNG: a radar of per-task accuracy (like DiCoBench's Figure 4) and bars with CIs.

Uses matplotlib's object API with the Agg canvas, so no display or global backend is touched.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Mapping

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure


def radar(series: Mapping[str, Mapping[str, float]], path: str | Path, title: str = "") -> Path:
    """One closed polygon per series (e.g. per model) over the same axes (e.g. tasks), in percent."""
    axes_names = list(next(iter(series.values())))
    angles = [2 * math.pi * i / len(axes_names) for i in range(len(axes_names))]
    fig = Figure(figsize=(6, 6))
    FigureCanvasAgg(fig)
    ax = fig.add_subplot(projection="polar")
    ax.set_theta_offset(math.pi / 2)  # first axis at the top, going clockwise, as in the paper's figure
    ax.set_theta_direction(-1)
    for name, values in series.items():
        points = [100 * values[a] for a in axes_names]
        ax.plot(angles + angles[:1], points + points[:1], linewidth=1.5, label=name)
        ax.fill(angles + angles[:1], points + points[:1], alpha=0.15)
    ax.set_xticks(angles)
    ax.set_xticklabels([a.replace("_", " ") for a in axes_names], fontsize=8)
    ax.set_ylim(0, 100)
    ax.legend(loc="upper right", bbox_to_anchor=(1.3, 1.1), fontsize=8)
    ax.set_title(title)
    fig.savefig(path, dpi=120, bbox_inches="tight")
    return Path(path)


def bars(groups: Mapping[str, Mapping], path: str | Path, title: str = "", ylabel: str = "accuracy (%)") -> Path:
    """Bars of `accuracy` per group with error bars from `ci` ([low, high]) where present;
    groups without an accuracy (nothing scored) are left out."""
    names = [n for n in groups if groups[n]["accuracy"] is not None]
    values = [100 * groups[n]["accuracy"] for n in names]
    errors = [[0.0] * len(names), [0.0] * len(names)]
    for i, n in enumerate(names):
        ci = groups[n].get("ci")
        if ci:
            errors[0][i] = max(0.0, values[i] - 100 * ci[0])
            errors[1][i] = max(0.0, 100 * ci[1] - values[i])
    fig = Figure(figsize=(max(4, 0.8 * len(names) + 2), 4))
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    ax.bar(range(len(names)), values, yerr=errors, capsize=4, color="#4c72b0")
    ax.set_xticks(range(len(names)))
    ax.set_xticklabels([n.replace("_", " ") for n in names], rotation=30, ha="right", fontsize=8)
    ax.set_ylim(0, 100)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    fig.savefig(path, dpi=120, bbox_inches="tight")
    return Path(path)
