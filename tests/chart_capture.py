"""A pytest fixture that keeps every figure dicobench.kit.report.plots saves, by file stem, so tests can read
the plotted values (bar heights and widths, line points) and not only the written files."""

from pathlib import Path

import pytest

from dicobench.kit.report import plots


@pytest.fixture
def drawn(monkeypatch):
    figures = {}
    save = plots.save

    def keep(fig, path):
        figures[Path(path).stem] = fig
        return save(fig, path)

    monkeypatch.setattr(plots, "save", keep)
    return figures


def bar_heights(fig) -> list[float]:
    return [round(p.get_height(), 1) for p in fig.axes[0].patches]


def bar_widths(fig) -> list[float]:
    return [round(p.get_width(), 1) for p in fig.axes[0].patches]


def line_points(fig) -> dict[str, list[float]]:
    return {line.get_label(): [round(float(y), 1) for y in line.get_ydata()] for line in fig.axes[0].lines
            if not line.get_label().startswith("_")}
