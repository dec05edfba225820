"""`dicobench leaderboard`: Table 1 as Markdown/CSV/LaTeX, Figures 4, 6 and 7, from scores computed
on a small fixture; every number below is counted by hand."""

import csv
import json
import re

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from chart_capture import bar_heights, bar_widths, drawn, line_points  # noqa: F401 (fixture)

from dicobench.cli.main import main as dicobench
from dicobench.kit.cli.commands import run
from multipanelvqa.cli.score import register as register_multipanel
from tests.dicobench.test_score_cli import dicobench_dir, mpvqa_dir, write_jsonl  # noqa: F401 (fixtures)

TASKS = ("attribute", "spatial_relation", "instance")  # the fixture's tasks; answers per task: A, B, C, D


def responses(right: dict) -> list[dict]:
    """The first `right[task]` rows of each task answered right, the others with another letter."""
    return [{"id": f"{t}-{i}", "response": "ABCD"[i] if i < right[t] else "ABCD"[(i + 1) % 4]}
            for t in TASKS for i in range(4)]


def score(dataset, folder, right, name, view=None):
    folder.mkdir(parents=True)
    preds = write_jsonl(folder / "predictions.jsonl", responses(right))
    if view:
        (folder / "run.json").write_text(json.dumps({"model": "hf:m", "view": view}))
    assert dicobench(["score", str(preds), "--dataset", str(dataset), "--out", str(folder), "--name", name,
                      "--n-boot", "20"]) == 0
    return folder


@pytest.fixture
def results(dicobench_dir, tmp_path):  # noqa: F811
    return [
        score(dicobench_dir, tmp_path / "m1", {"attribute": 4, "spatial_relation": 2, "instance": 0}, "M1"),
        score(dicobench_dir, tmp_path / "m2a", {"attribute": 2, "spatial_relation": 4, "instance": 1}, "M2"),
        score(dicobench_dir, tmp_path / "m2b", {"attribute": 3, "spatial_relation": 4, "instance": 1}, "M2"),
        score(dicobench_dir, tmp_path / "m1crop", {"attribute": 4, "spatial_relation": 4, "instance": 2}, "M1",
              view="crop"),
    ]


def test_runs_of_a_copied_build_combine_and_of_another_do_not(results, dicobench_dir, tmp_path, capsys):  # noqa: F811
    """The dataset is known by its shards' content, not its folder: an ablation view scored on a copy
    of the build joins the full runs; one scored on an edited copy is refused."""
    import shutil

    copy = tmp_path / "copied-build"
    shutil.copytree(dicobench_dir, copy)
    view = score(copy, tmp_path / "m2crop", {"attribute": 1, "spatial_relation": 1, "instance": 1}, "M2", view="crop")
    assert dicobench(["leaderboard", *map(str, results), str(view), "--out", str(tmp_path / "lb")]) == 0
    capsys.readouterr()
    shard = sorted(copy.rglob("*.parquet"))[0]  # one question reworded: another dataset
    table = pq.read_table(shard)
    questions = table.column("question").to_pylist()
    table = table.set_column(table.schema.get_field_index("question"), "question",
                             pa.array([questions[0] + " (edited)", *questions[1:]]))
    pq.write_table(table, shard)
    other = score(copy, tmp_path / "m3crop", {"attribute": 1, "spatial_relation": 1, "instance": 1}, "M3", view="crop")
    assert dicobench(["leaderboard", *map(str, results), str(other), "--out", str(tmp_path / "lb2")]) == 2
    assert "scores another dataset" in capsys.readouterr().err


def texts(path):
    return set(re.findall(r"<text[^>]*>([^<]*)</text>", path.read_text()))


def test_table_1_figures_4_6_7(results, dicobench_dir, tmp_path, capsys, drawn):  # noqa: F811
    human = score(dicobench_dir, tmp_path / "study", {t: 4 for t in TASKS}, "participants")
    out = tmp_path / "board"
    capsys.readouterr()
    assert dicobench(["leaderboard", *map(str, results), "--out", str(out), "--human", str(human)]) == 0
    md = (out / "leaderboard.md").read_text().splitlines()
    assert md[2] == "| model | difference Attr. | difference Spa. | commonality Ins. | Avg. |"
    # M2: attribute 2/4 and 3/4 -> 62.5 ± 17.7 (sample std); average (7/12 and 8/12) -> 62.5 ± 5.9
    assert md[4:] == [
        "| M1 | **100.0** ▲ | 50.0 | 0.0 ▼ | 50.0 |",
        "| M2 | 62.5 ± 17.7 | **100.0 ± 0.0** ▲ | **25.0 ± 0.0** ▼ | **62.5 ± 5.9** |",
        "| M1 (crop) | 100.0 ▲ | 100.0 | 50.0 ▼ | 83.3 |",
        "| *Random chance* | 20.0 | 20.0 | 20.0 | 20.0 |",
        "| *Human* | 100.0 | 100.0 | 100.0 | 100.0 |",
    ]
    assert capsys.readouterr().out.startswith("**DiCoBench accuracy by task**")
    rows = list(csv.DictReader((out / "leaderboard.csv").open()))
    m2 = next(r for r in rows if r["model"] == "M2")
    assert m2["runs"] == "2" and m2["attribute"] == "62.50" and m2["attribute_std"] == "17.68"
    assert m2["best"] == "spatial_relation" and m2["worst"] == "instance"
    assert [r["kind"] for r in rows] == ["model", "model", "view", "chance", "human"]
    tex = (out / "leaderboard.tex").read_text()
    assert r"\multicolumn{2}{c}{Difference} & \multicolumn{1}{c}{Commonality}" in tex
    assert r"M1 & \textcolor{blue}{\textbf{100.0}} & 50.0 & \textcolor{red}{0.0} & 50.0 \\" in tex
    assert r"62.5 $\pm$ 17.7" in tex
    # Figure 4: every model on the radar; Figure 6: M1's views; Figure 7: errors per model (M1: 2 + 4,
    # M2: 2 + 3 + 1 + 3, M1 crop: 2)
    assert {"M1", "M2"} <= texts(out / "radar.svg") and "M1 (crop)" not in texts(out / "radar.svg")
    assert {"full", "crop"} <= texts(out / "views_M1.svg") and not (out / "views_M2.svg").exists()
    assert {"n=6", "n=9", "n=2", "M1", "M2", "M1 (crop)"} <= texts(out / "error_types.svg")
    # the plotted values: radar polygons (closed: the first point again), bars per view, error shares
    assert line_points(drawn["radar"]) == {"M1": [100.0, 50.0, 0.0, 100.0], "M2": [62.5, 100.0, 25.0, 62.5]}
    # views_M1: full on attribute, spatial, instance, average, then crop
    assert bar_heights(drawn["views_M1"]) == [100.0, 50.0, 0.0, 50.0, 100.0, 100.0, 50.0, 83.3]
    # error_types: M1 (2 wrong_option on spatial, 4 on instance: all wrong option), M2 (9 wrong options),
    # M1 (crop) 2; each bar split into missed_cue, ex_nihilo, wrong_option, unparsed
    assert bar_widths(drawn["error_types"]) == [0.0, 0.0, 100.0, 0.0] * 3
    for stem in ("radar", "views_M1", "error_types"):
        assert (out / f"{stem}.png").read_bytes()[:4] == b"\x89PNG"


def test_incomplete_scores_show_bounds(dicobench_dir, tmp_path):  # noqa: F811
    folder = tmp_path / "m3"
    folder.mkdir()
    rows = responses({"attribute": 4, "spatial_relation": 4, "instance": 4})
    rows[0] = {"id": "attribute-0", "response": None, "error": "APIConnectionError"}
    preds = write_jsonl(folder / "predictions.jsonl", rows)
    assert dicobench(["score", str(preds), "--dataset", str(dicobench_dir), "--out", str(folder), "--name", "M3",
                      "--n-boot", "20"]) == 1
    out = tmp_path / "board"
    assert dicobench(["leaderboard", str(folder / "scores.json"), "--out", str(out)]) == 0
    # attribute 3/4 answered right, 1 unscored: 75-100; ranked by its lower bound, so it is M3's worst
    assert ("| M3 | **75.0-100.0** ▼ | **100.0** ▲ | **100.0** | **91.7-100.0** |"
            in (out / "leaderboard.md").read_text())


def test_bad_input_is_one_line_exit_2(results, dicobench_dir, mpvqa_dir, tmp_path, capsys):  # noqa: F811
    sub = tmp_path / "inst"
    sub.mkdir()
    preds = write_jsonl(sub / "predictions.jsonl", [{"id": f"instance-{i}", "response": "A"} for i in range(4)])
    assert dicobench(["score", str(preds), "--dataset", str(dicobench_dir), "--config", "instance", "--out", str(sub),
                      "--n-boot", "10"]) == 0
    mpv = tmp_path / "mpv"
    mpv_preds = write_jsonl(tmp_path / "mpv.jsonl", [{"id": f"{a}-{k}", "response": "no"}
                                                    for a in ("original", "chessboard") for k in range(3)])
    assert run("multipanelvqa", "t", [register_multipanel], ["score", str(mpv_preds), "--dataset", str(mpvqa_dir),
                                                           "--out", str(mpv), "--n-boot", "10"]) == 0
    capsys.readouterr()
    for bad, message in ((sub, "scores other rows than"), (mpv, "holds no dicobench scores"),
                         (tmp_path / "absent", "cannot read")):
        assert dicobench(["leaderboard", str(results[0]), str(bad), "--out", str(tmp_path / "b")]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and err[0].startswith("dicobench: error:") and message in err[0]


def test_python_api_gives_the_command_table(results, tmp_path):
    import dicobench
    from dicobench.kit.report.leaderboard import markdown

    table, written = dicobench.leaderboard(results, tmp_path / "api")
    assert markdown(table) == (tmp_path / "api" / "leaderboard.md").read_text()
    assert [r.name for r in table.rows] == ["M1", "M2", "M1 (crop)", "Random chance"]
    assert table.rows[1].cells[0].runs == 2 and round(table.rows[1].cells[0].std, 4) == 0.1768
    assert {p.name for p in written} >= {"leaderboard.md", "leaderboard.csv", "leaderboard.tex", "radar.png"}


def test_the_leaderboards_are_library_functions_the_command_only_prints(results, mpvqa_dir, tmp_path,  # noqa: F811
                                                                        capsys):
    import multipanelvqa
    from dicobench import leaderboard as dicobench_leaderboard
    from dicobench.kit.report import leaderboard as board
    from dicobench.tasks.registry import task_label

    assert not hasattr(board, "register") and not hasattr(board, "run")  # argparse and printing live in cli/
    assert [task_label(t) for t in TASKS] == ["Attr.", "Spa.", "Ins."]
    capsys.readouterr()  # the fixture's score output
    assert dicobench(["leaderboard", *map(str, results), "--out", str(tmp_path / "cli")]) == 0
    table, _ = dicobench_leaderboard(results, tmp_path / "api")
    assert capsys.readouterr().out.startswith(board.markdown(table))
    runs = []
    for name, answer in (("A", "yes"), ("B", "no")):
        preds = write_jsonl(tmp_path / f"{name}.jsonl", [{"id": f"{a}-{k}", "response": answer}
                                                         for a in ("original", "chessboard") for k in range(3)])
        assert run("multipanelvqa", "t", [register_multipanel], ["score", str(preds), "--dataset", str(mpvqa_dir),
                                                                 "--out", str(tmp_path / name), "--n-boot", "20"]) == 0
        runs.append(tmp_path / name)
    table, written = multipanelvqa.leaderboard(runs, tmp_path / "mpv")
    assert [r.name for r in table.rows][:2] == ["A", "B"]
    assert (tmp_path / "mpv" / "leaderboard.md").read_text() == board.markdown(table)
    assert {p.name for p in written} >= {"leaderboard.md", "leaderboard.csv", "leaderboard.tex"}
