"""Report charts as a paper prints them: PNG and SVG, readable at column width, colour-blind-safe.

Charts: a radar of per-task accuracy (DiCoBench's Figure 4), bars with CIs, grouped bars (one
group per task, one bar per series: Figure 6's views), stacked shares (Figure 7's error types),
lines of accuracy against a count (MultipanelVQA's Figure 5) and signed deltas (its Table 3).
Incomplete groups (only bounds known) are drawn as a solid bar to the lower bound and a hatched
one up to the upper bound, never as a single value. Uses matplotlib's object API with the Agg
and SVG canvases, so no display or global backend is touched.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import TYPE_CHECKING, Mapping, Sequence

from dicobench.kit.eval.completeness import span

# Okabe & Ito's palette, distinguishable under the common colour-vision deficiencies.
PALETTE = ("#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442", "#000000")
HATCHES = ("", "//", "..", "xx", "\\\\", "++", "oo", "--")
COLUMN_WIDTH = 3.5  # inches: one column of a two-column paper
FONT = 8

if TYPE_CHECKING:
    from matplotlib.figure import Figure


def colour(i: int) -> str:
    return PALETTE[i % len(PALETTE)]


def _figure(width: float = COLUMN_WIDTH, height: float = 2.6) -> Figure:
    from matplotlib.figure import Figure  # deferred: importing matplotlib takes a second every command would pay

    return Figure(figsize=(width, height))


def save(fig: Figure, path: str | Path) -> Path:
    """Write `path` (PNG, 300 dpi) and the same stem as SVG with its text kept as text (editable,
    searchable); return the PNG path."""
    from matplotlib import rc_context

    path = Path(path)
    with rc_context({"svg.fonttype": "none", "svg.hashsalt": "dicobench"}):  # salt: the same SVG bytes each run
        for target in (path.with_suffix(".png"), path.with_suffix(".svg")):
            fig.savefig(target, dpi=300, bbox_inches="tight", metadata={"Date": None} if target.suffix == ".svg"
                        else None)
    return path.with_suffix(".png")


def _label(name: str) -> str:
    return name.replace("_", " ")


def _value(v) -> tuple[float, float] | None:
    """(lower, upper) in percent of a float or a result group."""
    if v is None:
        return None
    if isinstance(v, Mapping):
        found = span(v)
        return None if found is None else (100 * found[0], 100 * found[1])
    return 100 * v, 100 * v


def _style(ax, ylabel: str | None = "accuracy (%)") -> None:
    ax.tick_params(labelsize=FONT)
    if ylabel:
        ax.set_ylabel(ylabel, fontsize=FONT)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)


def radar(series: Mapping[str, Mapping], path: str | Path, title: str = "") -> Path:
    """One closed polygon per series (e.g. per model) over the same axes (e.g. tasks), in percent.
    Values are floats or result groups; an incomplete group is drawn at its lower bound."""
    axes_names = list(next(iter(series.values())))
    angles = [2 * math.pi * i / len(axes_names) for i in range(len(axes_names))]
    fig = _figure(COLUMN_WIDTH, COLUMN_WIDTH)
    ax = fig.add_subplot(projection="polar")
    ax.set_theta_offset(math.pi / 2)  # first axis at the top, going clockwise, as in the paper's figure
    ax.set_theta_direction(-1)
    for i, (name, values) in enumerate(series.items()):
        points = [(_value(values.get(a)) or (0.0, 0.0))[0] for a in axes_names]
        ax.plot(angles + angles[:1], points + points[:1], linewidth=1.2, label=name, color=colour(i),
                linestyle=("-", "--", ":", "-.")[i % 4])
        ax.fill(angles + angles[:1], points + points[:1], alpha=0.08, color=colour(i))
    ax.set_xticks(angles)
    ax.set_xticklabels([_label(a) for a in axes_names], fontsize=FONT - 1)
    ax.set_ylim(0, 100)
    ax.tick_params(axis="y", labelsize=FONT - 2)
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.08), fontsize=FONT - 1, ncol=2, frameon=False)
    if title:
        ax.set_title(title, fontsize=FONT + 1)
    return save(fig, path)


def grouped_bars(series: Mapping[str, Mapping], path: str | Path, title: str = "",
                 ylabel: str = "accuracy (%)", ylim: tuple[float, float] | None = (0, 100)) -> Path:
    """Bars per group (x) for every series (colour and hatch), with CIs where the groups have them.
    `series` maps a series name to {group: float or result group}."""
    names, groups, width, fig, ax = _bar_axes(series, 0.45)
    for s, name in enumerate(names):
        for g, group in enumerate(groups):
            found = _value(series[name].get(group))
            if found is None:
                continue
            x = g - 0.4 + width * (s + 0.5)
            low, high = found
            ax.bar(x, low, width, color=colour(s), hatch=HATCHES[s % len(HATCHES)], edgecolor="white",
                   linewidth=0.3, label=name)
            if high > low:
                ax.bar(x, high - low, width, bottom=low, color="none", edgecolor=colour(s), hatch="////",
                       linewidth=0.5)
            ci = series[name][group].get("ci") if isinstance(series[name][group], Mapping) else None
            if ci:
                ax.errorbar(x, low, yerr=[[max(0.0, low - 100 * ci[0])], [max(0.0, 100 * ci[1] - low)]],
                            fmt="none", ecolor="black", elinewidth=0.6, capsize=1.5)
    if ylim:
        ax.set_ylim(*ylim)
    return _finish_bars(fig, ax, names, groups, ylabel, title, path)


def bars(groups: Mapping[str, Mapping], path: str | Path, title: str = "", ylabel: str = "accuracy (%)") -> Path:
    """Bars of `accuracy` per group with error bars from `ci` ([low, high]) where present;
    groups with nothing scored are left out."""
    kept = {n: g for n, g in groups.items() if span(g) is not None}
    return grouped_bars({"": kept}, path, title, ylabel)


def stacked_shares(series: Mapping[str, Mapping[str, int]], path: str | Path, kinds: Sequence[str],
                   title: str = "", xlabel: str = "share of errors (%)") -> Path:
    """One horizontal bar per series (e.g. per model or task), split into the shares of `kinds`;
    each bar is annotated with its total count."""
    names = [n for n in series if sum(series[n].get(k, 0) for k in kinds)]
    fig = _figure(COLUMN_WIDTH, 0.35 * len(names) + 1.0)
    ax = fig.add_subplot()
    for row, name in enumerate(names):
        total = sum(series[name].get(k, 0) for k in kinds)
        left = 0.0
        for k, kind in enumerate(kinds):
            share = 100 * series[name].get(kind, 0) / total
            ax.barh(row, share, left=left, color=colour(k), hatch=HATCHES[k % len(HATCHES)], edgecolor="white",
                    linewidth=0.3, label=_label(kind) if row == 0 else None)
            if share >= 10:
                ax.text(left + share / 2, row, f"{share:.0f}", ha="center", va="center", fontsize=FONT - 2,
                        color="white" if k in (0, 3, 7) else "black",
                        bbox={"facecolor": colour(k), "edgecolor": "none", "pad": 0.6})
            left += share
        ax.text(101, row, f"n={total}", va="center", fontsize=FONT - 2)
    ax.set_yticks(range(len(names)))
    ax.set_yticklabels([_label(n) for n in names], fontsize=FONT)
    ax.invert_yaxis()
    ax.set_xlim(0, 100)
    _style(ax, None)
    ax.set_xlabel(xlabel, fontsize=FONT)
    ax.legend(fontsize=FONT - 1, frameon=False, ncol=2, loc="lower center", bbox_to_anchor=(0.5, 1.0))
    if title:
        ax.set_title(title, fontsize=FONT + 1, pad=30)
    return save(fig, path)


def lines(series: Mapping[str, Mapping[float, Mapping]], path: str | Path, title: str = "", xlabel: str = "",
          ylabel: str = "accuracy (%)") -> Path:
    """One line per series (e.g. per model) of accuracy against a number (e.g. subfigures), with a
    shaded CI where the groups have one; incomplete points are drawn at their lower bound, hollow."""
    fig = _figure()
    ax = fig.add_subplot()
    markers = ("o", "s", "^", "D", "v", "P", "X", "*")
    for i, (name, points) in enumerate(series.items()):
        xs = sorted(points, key=float)
        values = [_value(points[x]) for x in xs]
        kept = [(float(x), v, points[x]) for x, v in zip(xs, values) if v is not None]
        if not kept:
            continue
        ax.plot([k[0] for k in kept], [k[1][0] for k in kept], color=colour(i), marker=markers[i % len(markers)],
                markersize=3.5, linewidth=1.2, label=name, linestyle=("-", "--", ":", "-.")[i % 4])
        for x, (low, high), group in kept:
            if high > low:
                ax.plot([x], [low], marker=markers[i % len(markers)], markerfacecolor="white", color=colour(i))
        cis = [(x, g.get("ci")) for x, _, g in kept if isinstance(g, Mapping) and g.get("ci")]
        if len(cis) == len(kept) and len(kept) > 1:
            ax.fill_between([x for x, _ in cis], [100 * c[0] for _, c in cis], [100 * c[1] for _, c in cis],
                            color=colour(i), alpha=0.12, linewidth=0)
    ticks = sorted({x for points in series.values() for x in points}, key=float)
    ax.set_xticks([float(x) for x in ticks])
    ax.set_xticklabels([str(x) for x in ticks])
    ax.set_ylim(0, 100)
    ax.set_xlabel(xlabel, fontsize=FONT)
    _style(ax, ylabel)
    if len(series) > 1 or next(iter(series), ""):
        ax.legend(fontsize=FONT - 1, frameon=False)
    if title:
        ax.set_title(title, fontsize=FONT + 1)
    return save(fig, path)


def deltas(series: Mapping[str, Mapping[str, Mapping]], path: str | Path, title: str = "",
           ylabel: str = "accuracy change (points)") -> Path:
    """Signed bars of `delta` per factor (x) for every series (e.g. model), with `delta_ci`; each bar's
    value is printed by the zero line, as the paper's Table 3 prints "(+2.3)"."""
    names, factors, width, fig, ax = _bar_axes(series, 0.5)
    for s, name in enumerate(names):
        for f, factor in enumerate(factors):
            entry = series[name].get(factor)
            if not entry or entry.get("delta") is None:
                continue
            x = f - 0.4 + width * (s + 0.5)
            d = 100 * entry["delta"]
            ci = entry.get("delta_ci")
            err = [[max(0.0, d - 100 * ci[0])], [max(0.0, 100 * ci[1] - d)]] if ci else None
            ax.bar(x, d, width, yerr=err, capsize=1.5, color=colour(s), hatch=HATCHES[s % len(HATCHES)],
                   edgecolor="white", linewidth=0.3, error_kw={"elinewidth": 0.6}, label=name)
            ax.annotate(f"{d:+.1f}", (x, 0), xytext=(0, -8 if d >= 0 else 3), textcoords="offset points",
                        ha="center", fontsize=FONT - 3)
    ax.axhline(0, color="black", linewidth=0.6)
    # room on both sides of the zero line for the printed values, clear of the title and ticks
    low, high = ax.get_ylim()
    room = 0.15 * (high - low)
    ax.set_ylim(min(low, -room), max(high, room))
    return _finish_bars(fig, ax, names, factors, ylabel, title, path)


def _bar_axes(series: Mapping[str, Mapping], inches_per_group: float):
    """(series names, groups along x, bar width, figure, axes) for one bar per series in each group;
    the figure widens with the groups and, more slowly, with the series."""
    names = list(series)
    groups = list(dict.fromkeys(g for values in series.values() for g in values))
    fig = _figure(max(COLUMN_WIDTH, inches_per_group * len(groups) * max(1, len(names)) ** 0.5 + 1))
    return names, groups, 0.8 / max(1, len(names)), fig, fig.add_subplot()


def _finish_bars(fig: Figure, ax, names: list[str], groups: list, ylabel: str, title: str, path: str | Path) -> Path:
    """Group labels, axis style, the series legend above the axes and the title; then save."""
    ax.set_xticks(range(len(groups)))
    ax.set_xticklabels([_label(g) for g in groups], rotation=30, ha="right", fontsize=FONT)
    _style(ax, ylabel)
    if len(names) > 1:
        _legend(ax, len(names))
    if title:
        ax.set_title(title, fontsize=FONT + 1, pad=6 + 12 * ((len(names) + 2) // 3) if len(names) > 1 else 6)
    return save(fig, path)


def _legend(ax, columns: int) -> None:
    """One entry per label (bars are drawn one by one), above the axes."""
    handles, labels = ax.get_legend_handles_labels()
    unique = dict(zip(labels, handles))
    ax.legend(unique.values(), unique.keys(), fontsize=FONT - 1, frameon=False, ncol=min(3, columns),
              loc="lower center", bbox_to_anchor=(0.5, 1.0))
