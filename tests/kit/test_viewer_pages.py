"""Every config of a default build keeps a 100-row Dataset Viewer page within the budget, and a
build whose pages would be over the viewer's limit gets a card with `viewer: false`."""

from pathlib import Path

import pytest
from huggingface_hub import DatasetCard

from dicobench.build import build
from dicobench.card import write_card
from dicobench.cli.main import main as dicobench
from dicobench.kit.release import viewer
from dicobench.kit.release.viewer import (
    PAGE_BUDGET,
    ROW_BUDGET,
    VIEWER_LIMIT,
    VIEWER_PAGE_ROWS,
    bytes_per_row,
    heavy_pages,
    largest_page,
)
from dicobench.schema import TASKS
from multipanelvqa.build import build as build_multipanelvqa
from multipanelvqa.card import write_card as write_multipanelvqa_card
from tests.kit.test_hub import fake_hub  # noqa: F401  (the fixture: HfApi backed by a folder)

VIEWER_OFF = "The Hub's Dataset Viewer is turned off for this dataset"


@pytest.fixture(scope="module")
def heavy_build(tmp_path_factory):
    """One row of `attribute` stored as uncompressed PNG: the default scenes at several times the budget."""
    return build(tmp_path_factory.mktemp("viewer") / "b", per_task=1, tasks="attribute", compress_level=0,
                 num_proc=1, progress=False)


def test_the_budget_leaves_margin_under_the_viewer_limit():
    assert PAGE_BUDGET == VIEWER_PAGE_ROWS * ROW_BUDGET <= VIEWER_LIMIT * 5 / 6


def test_default_build_rows_fit_the_viewer_budget(small_build):
    """Two rows of a task are a small sample of its 100-row page: one task's rows weigh from about
    2.0 to 3.1 MB with their surface and canvas (the default build's difference reasoning rows 0 and
    1: 3.08 and 2.40 MB, its one 96-row page 232.9 MB). So the small build's 16 rows together keep
    the budget, and each task's two rows keep the viewer's limit; the pages of whole builds are
    measured by `benchmarks/bench_viewer_pages.py`."""
    per_task = {task: bytes_per_row(Path(small_build) / task) for task in TASKS}
    mean = sum(per_task.values()) / len(per_task)
    assert mean <= ROW_BUDGET, f"{mean / 1e6:.2f} MB per row, a 100-row page of {mean / 1e4:.0f} MB"
    heaviest = max(per_task, key=per_task.get)
    assert per_task[heaviest] <= VIEWER_LIMIT / VIEWER_PAGE_ROWS, (heaviest, per_task[heaviest])


def test_the_budget_check_catches_heavy_rows(heavy_build):
    # the same default scenes stored without compression weigh several times the budget
    assert bytes_per_row(heavy_build / "attribute") > 2 * ROW_BUDGET


def test_bytes_per_row_refuses_an_empty_config(tmp_path):
    with pytest.raises(ValueError, match="no rows"):
        bytes_per_row(tmp_path)


@pytest.fixture
def low_limit(monkeypatch):
    """A viewer limit of 10 MB: the heavy build's one 16 MB page is over it, as 100 such rows are
    over the real 300 MB (building those would take minutes)."""
    monkeypatch.setattr(viewer, "VIEWER_LIMIT", 10e6)


def test_one_heavy_row_is_a_page_the_viewer_reads(heavy_build):
    # pages, not rows, meet the limit: a one-row config is one 16 MB page
    page = largest_page(heavy_build / "attribute", "test-*.parquet")
    assert page == bytes_per_row(heavy_build / "attribute") < VIEWER_LIMIT
    assert heavy_pages(heavy_build, {"attribute": ["test"]}) == []


def test_a_build_over_the_viewer_limit_turns_the_viewer_off(heavy_build, low_limit):
    write_card(heavy_build)
    per_row = bytes_per_row(heavy_build / "attribute", "test-*.parquet")
    page = largest_page(heavy_build / "attribute", "test-*.parquet")
    assert heavy_pages(heavy_build, {"attribute": ["test", "train"]}) == [viewer.HeavyPage("attribute", "test",
                                                                                           per_row, page)]
    card = DatasetCard.load(heavy_build / "README.md")
    assert card.data.viewer is False and card.data.to_dict()["viewer"] is False
    assert "\nviewer: false\n" in (heavy_build / "README.md").read_text()
    load = card.text.split("## Load", 1)[1].split("\n## ", 1)[0]  # the paragraph ends the Load section
    assert VIEWER_OFF in load and f"`attribute` (split `test`, {per_row / 1e6:.1f} MB per row, pages up to" in load
    assert "`load_dataset` works as usual" in load
    assert [c["config_name"] for c in card.data.configs] == ["attribute", "all"]  # the data is still described


def test_a_default_build_keeps_the_viewer(small_build):
    text = (small_build / "README.md").read_text()
    assert "viewer" not in DatasetCard.load(small_build / "README.md").data.to_dict()
    assert "viewer:" not in text and VIEWER_OFF not in text
    assert heavy_pages(small_build, {t: ["test"] for t in TASKS}) == []


def test_rewriting_and_pushing_the_card_keeps_viewer_false(heavy_build, low_limit, fake_hub, capsys):  # noqa: F811
    write_card(heavy_build)
    before = (heavy_build / "README.md").read_text()
    assert "\nviewer: false\n" in before
    write_card(heavy_build)  # what a resumed build, an import or `push --license` does
    assert (heavy_build / "README.md").read_text() == before
    # a refused --license re-renders the card twice on the way
    assert dicobench(["push", str(heavy_build), "--repo-id", "org/heavy", "--license", "mit", "--dry-run"]) == 2
    assert (heavy_build / "README.md").read_text() == before
    assert dicobench(["push", str(heavy_build), "--repo-id", "org/heavy"]) == 0
    pushed = DatasetCard.load(fake_hub.root / "org/heavy" / "README.md")
    assert pushed.data.viewer is False and VIEWER_OFF in pushed.text


def test_multipanelvqa_card_turns_the_viewer_off_over_the_limit(tmp_path, monkeypatch):
    out = build_multipanelvqa(tmp_path / "mpv", layouts=[0], configs=["original"], num_proc=1, progress=False)
    default = (out / "README.md").read_text()
    assert "viewer:" not in default and VIEWER_OFF not in default
    per_row = bytes_per_row(out / "original")
    with monkeypatch.context() as patch:
        patch.setattr(viewer, "VIEWER_LIMIT", largest_page(out / "original") * 0.9)  # its page 10% over the limit
        write_multipanelvqa_card(out)
    card = DatasetCard.load(out / "README.md")
    assert card.data.viewer is False
    assert VIEWER_OFF in card.text and f"`original` (split `test`, {per_row / 1e6:.1f} MB per row" in card.text
    write_multipanelvqa_card(out)
    assert (out / "README.md").read_text() == default  # under the limit again: the card as it was


def test_a_page_reads_every_row_group_it_overlaps(tmp_path, monkeypatch):
    """108 equal rows in row groups of 8: page 0 (rows 0-99) reads groups 0-12, 104 rows; page 1
    the last 8. Under a limit of 102 average rows the mean is under it, the first page over it."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    (tmp_path / "c").mkdir()
    table = pa.table({"blob": [bytes([i]) * 100_000 for i in range(108)]})  # rows of equal size, no two alike
    pq.write_table(table, tmp_path / "c" / "test-00000-of-00001.parquet", row_group_size=8, compression="none",
                   use_dictionary=False)
    meta = pq.read_metadata(tmp_path / "c" / "test-00000-of-00001.parquet")
    sizes = [meta.row_group(i).total_byte_size for i in range(meta.num_row_groups)]
    assert len(sizes) == 14 and largest_page(tmp_path / "c") == sum(sizes[:13])
    per_row = bytes_per_row(tmp_path / "c")
    assert per_row == sum(sizes) / 108
    monkeypatch.setattr(viewer, "VIEWER_LIMIT", 102 * per_row)
    assert per_row * VIEWER_PAGE_ROWS < viewer.VIEWER_LIMIT < sum(sizes[:13])
    assert [p.config for p in heavy_pages(tmp_path, {"c": ["test"]})] == ["c"]
    assert heavy_pages(tmp_path, {"c": ["train"]}) == []  # a split with no shards has no pages
