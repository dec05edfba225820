"""Accuracy that cannot inflate: rows that could not be scored bound the accuracy instead of vanishing.

A row is unscored when its model call failed or the judge it needed did not answer. Those rows
are mostly the hard ones, so leaving them out would raise the number. A result with unscored
rows is incomplete: it reports `accuracy_lower` (unscored counted wrong) and `accuracy_upper`
(counted right) instead of `accuracy`, and its interval spans from the lower bound's low end to
the upper bound's high end. Complete results keep a single `accuracy`.
"""

from __future__ import annotations

from typing import Callable, Mapping, Sequence

import numpy as np

#: exit status of a command whose result is incomplete (bad input stays 2)
INCOMPLETE_STATUS = 1

Interval = Callable[[np.ndarray, Sequence[int]], "list[float] | None"]


def bounded(correct: np.ndarray, scored: np.ndarray, rows: Sequence[int], interval: Interval | None = None, *,
            name: str = "accuracy", ci_name: str | None = "ci") -> dict:
    """`{name: x, ci_name: [lo, hi]}` over `rows` when all are scored, else
    `{name_lower, name_upper, ci_name}` with the unscored rows counted wrong, then right."""
    rows = list(rows)
    lower = correct[rows]
    missing = ~scored[rows]
    out: dict = {}
    if not missing.any():
        out[name] = float(lower.mean()) if rows else None
        if ci_name:
            out[ci_name] = interval(lower, rows) if interval and rows else None
        return out
    upper = np.where(missing, 1.0, lower)
    out[f"{name}_lower"] = float(lower.mean())
    out[f"{name}_upper"] = float(upper.mean())
    if ci_name:
        low, high = (interval(lower, rows), interval(upper, rows)) if interval else (None, None)
        out[ci_name] = [low[0], high[1]] if low and high else None
    return out


def as_metric(result):
    """A score dict as `evaluate` metric users read it: every bounded value also under its own
    name (None while incomplete, beside its `_lower` and `_upper`), so `result["accuracy"]` never
    raises, and every value in plain Python types (numpy scalars as float, int, bool; tuples as lists)."""
    if isinstance(result, Mapping):
        out = {k: as_metric(v) for k, v in result.items()}
        for key in [k for k in out if isinstance(k, str)]:  # rows by position are keyed by int
            name = key.removesuffix("_lower")
            if name != key and f"{name}_upper" in out:
                out.setdefault(name, None)
        return out
    if isinstance(result, (list, tuple, np.ndarray)):
        return [as_metric(v) for v in result]
    return result.item() if isinstance(result, np.generic) else result


def completeness(scored: np.ndarray) -> dict:
    unscored = int((~scored).sum())
    return {"complete": unscored == 0, "unscored": unscored}


def span(group: Mapping, name: str = "accuracy") -> tuple[float, float] | None:
    """(lower, upper) of a group's value: equal for a complete group; None when there is none."""
    if group.get(name) is not None:
        return group[name], group[name]
    if group.get(f"{name}_lower") is not None:
        return group[f"{name}_lower"], group[f"{name}_upper"]
    return None


def format_value(group: Mapping, name: str = "accuracy", digits: int = 1) -> str:
    """"61.2", or "40.0-55.0" for an incomplete group, or "-" when there is nothing."""
    found = span(group, name)
    if found is None:
        return "-"
    low, high = (f"{100 * v:.{digits}f}" for v in found)
    return low if group.get(name) is not None else f"{low}-{high}"


def percent(value: float | None) -> str:
    """"61.2" for 0.612, "-" for None."""
    return "-" if value is None else f"{100 * value:.1f}"


def interval(ci: Sequence[float] | None) -> str:
    """"[55.0, 67.1]" for a confidence interval, "" when there is none."""
    return f"[{percent(ci[0])}, {percent(ci[1])}]" if ci else ""


def text_table(rows: Sequence[Sequence[str]], result: Mapping) -> list[str]:
    """`rows` (the first is the header) as aligned lines, labels left and numbers right, a rule
    under the header and, for an incomplete result, its `headline` above."""
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = ["  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths))) for r in rows]
    lines.insert(1, "-" * len(lines[0]))
    warning = headline(result)
    return [warning, *lines] if warning else lines


def headline(result: Mapping) -> str | None:
    """The warning printed above an incomplete result's table; None when it is complete."""
    if result.get("complete", True):
        return None
    low, high = span(result)
    return (f"INCOMPLETE: {result['unscored']} of {result['n']} rows could not be scored; accuracy is between "
            f"{100 * low:.1f}% and {100 * high:.1f}% (unscored rows counted wrong, then right)")


def resume_message(result: Mapping, reasons: str, how: str) -> str:
    """The one line a command prints on stderr before exiting with INCOMPLETE_STATUS (after `PROG: `)."""
    return f"incomplete: {result['unscored']} rows unscored ({reasons}); {how}"


def partial_reason(missing: int) -> str:
    """What an incomplete result's message says of the rows a partial run did not answer."""
    return f"{missing} rows have no prediction (a partial run)" if missing else ""


PARTIAL_REMEDY = "score a run over every row for a headline accuracy"
