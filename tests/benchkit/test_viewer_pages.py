"""Every config of a default build keeps a 100-row Dataset Viewer page within the budget."""

from pathlib import Path

import pytest

from benchkit.release.viewer import PAGE_BUDGET, ROW_BUDGET, VIEWER_LIMIT, VIEWER_PAGE_ROWS, bytes_per_row
from dicobench.build import build
from dicobench.schema import TASKS


def test_the_budget_leaves_margin_under_the_viewer_limit():
    assert PAGE_BUDGET == VIEWER_PAGE_ROWS * ROW_BUDGET <= VIEWER_LIMIT * 5 / 6


@pytest.mark.parametrize("task", TASKS)
def test_default_build_rows_fit_the_viewer_budget(small_build, task):
    per_row = bytes_per_row(Path(small_build) / task)
    assert per_row <= ROW_BUDGET, f"{task}: {per_row / 1e6:.2f} MB per row, a 100-row page of {per_row / 1e4:.0f} MB"


def test_the_budget_check_catches_heavy_rows(tmp_path):
    # the same default scenes stored without compression weigh several times the budget
    out = build(tmp_path / "b", per_task=1, tasks="attribute", compress_level=0, num_proc=1, progress=False)
    assert bytes_per_row(out / "attribute") > 2 * ROW_BUDGET


def test_bytes_per_row_refuses_an_empty_config(tmp_path):
    with pytest.raises(ValueError, match="no rows"):
        bytes_per_row(tmp_path)
