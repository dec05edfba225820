"""Charts as a paper prints them: PNG and SVG, column width, the colour-blind-safe palette, the same
bytes for the same input, and incomplete groups drawn as bounds (never one value)."""

from chart_capture import bar_heights, drawn  # noqa: F401 (fixture)
from matplotlib.backends.backend_agg import FigureCanvasAgg

from dicobench.kit.report import plots


def test_png_and_svg_at_column_width_with_the_same_bytes_each_time(tmp_path, drawn):  # noqa: F811
    groups = {"attribute": {"accuracy": 0.5, "ci": [0.25, 0.75]}, "entity": {"accuracy": 0.8, "ci": None}}
    first = plots.bars(groups, tmp_path / "a.png", "t")
    again = plots.bars(groups, tmp_path / "b.png", "t")
    assert first == tmp_path / "a.png" and (tmp_path / "a.svg").exists()
    assert first.read_bytes() == again.read_bytes()
    assert (tmp_path / "a.svg").read_bytes() == (tmp_path / "b.svg").read_bytes()
    fig = drawn["a"]
    assert tuple(fig.get_size_inches()) == (plots.COLUMN_WIDTH, 2.6)
    assert {p.get_facecolor()[:3] for p in fig.axes[0].patches} == {(0.0, 114 / 255, 178 / 255)}  # Okabe-Ito blue


def test_an_incomplete_group_is_drawn_as_its_bounds(tmp_path, drawn):  # noqa: F811
    groups = {"complete": {"accuracy": 0.5, "ci": None},
              "incomplete": {"accuracy_lower": 0.4, "accuracy_upper": 0.7, "ci": None}}
    plots.bars(groups, tmp_path / "c.png")
    # a bar to 50; a solid bar to the lower bound 40 and a hatched one of 30 points above it
    assert bar_heights(drawn["c"]) == [50.0, 40.0, 30.0]
    assert drawn["c"].axes[0].patches[2].get_hatch() == "////"


def test_series_get_distinct_palette_colours_and_hatches(tmp_path, drawn):  # noqa: F811
    series = {name: {"attribute": 0.1 * (i + 1)} for i, name in enumerate(["full", "crop", "crop-resize"])}
    plots.grouped_bars(series, tmp_path / "v.png")
    patches = drawn["v"].axes[0].patches
    assert len({p.get_facecolor() for p in patches}) == 3 and len({p.get_hatch() for p in patches}) == 3
    assert bar_heights(drawn["v"]) == [10.0, 20.0, 30.0]


def _overlaps(fig, a, b) -> bool:
    renderer = fig.canvas.get_renderer()
    return a.get_window_extent(renderer).overlaps(b.get_window_extent(renderer))


def test_factor_bars_print_their_values_clear_of_the_title_and_the_ticks(tmp_path, drawn):  # noqa: F811
    for sign, stem in ((-1, "down"), (1, "up")):  # every delta of one sign: the zero line sits at an edge
        series = {"model": {f: {"delta": sign * d, "delta_ci": sorted([sign * (d - 0.05), sign * (d + 0.05)])}
                            for f, d in (("background", 0.12), ("captions", 0.3))}}
        plots.deltas(series, tmp_path / f"{stem}.png", "MultipanelVQA factors")
        fig = drawn[stem]
        FigureCanvasAgg(fig).draw()
        ax = fig.axes[0]
        values = ax.texts
        assert [t.get_text() for t in values] == [f"{sign * 12:+.1f}", f"{sign * 30:+.1f}"]
        for text in values:
            assert not _overlaps(fig, text, ax.title)
            assert not any(_overlaps(fig, text, tick) for tick in ax.get_xticklabels())
            assert ax.bbox.contains(*text.get_window_extent(fig.canvas.get_renderer()).corners()[0])
