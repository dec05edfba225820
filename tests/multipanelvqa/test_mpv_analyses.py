"""MultipanelVQA analyses on a hand-made fixture: per layout style, number of subfigures and source,
the interference factors (Tables 3 and 4) with paired CIs, and their charts."""

import io
import json
import re

import datasets
import pytest
from chart_capture import bar_heights, drawn, line_points  # noqa: F401 (fixture)
from PIL import Image

import multipanelvqa.scoring
from dicobench.kit.cli.commands import run
from multipanelvqa.cli.score import register
from multipanelvqa.schema import features
from tests.dicobench.test_score_cli import write_jsonl, write_layout

LAYOUTS = (("splash", 2), ("grid_same", 4), ("grid_mixed", 4))  # L000, L001, L002
ANSWERS = {"q1": "yes", "q2": "umbrella", "q3": "b"}
WRONG = {"q1": "No.", "q2": "a car", "q3": "(c)"}
# right (1) or wrong (0) per config, layout (rows) and question q1 q2 q3 (columns)
RIGHT = {
    "original": ["110", "101", "111"],  # 7/9
    "low_similarity": ["111", "111", "110"],  # 8/9
    "chessboard": ["000", "101", "110"],  # 4/9
    "captions": ["010", "010", "010"],  # Q2 3/3
}


def png() -> dict:
    buf = io.BytesIO()
    Image.new("RGB", (16, 16), (10, 200, 10)).save(buf, format="PNG")
    return {"bytes": buf.getvalue(), "path": None}


def row_id(config, layout, qt):
    return f"{config}-procedural_scene-s0-L{layout:03d}-{qt}"


def rows(config):
    out = []
    for layout, (style, k) in enumerate(LAYOUTS):
        for qt in ("q1", "q2", "q3"):
            out.append({
                "id": row_id(config, layout, qt), "image": png(), "question_type": qt, "question": f"{qt}?",
                "answer": ANSWERS[qt], "choices": ["left", "right", "top", "bottom"] if qt == "q3" else [],
                "subset": "synthetic", "source": "procedural_scene" if layout < 2 else "procedural_edit",
                "augmentation": config, "layout_id": layout, "layout_style": style, "num_subfigures": k,
                "subfigures": [{"bbox": [0, 0, 8, 8], "position": "left", "source_id": "x"}] * k,
                "target_index": 0, "seed": 0,
            })
    return out


@pytest.fixture(scope="module")
def dataset(tmp_path_factory):
    root = tmp_path_factory.mktemp("mpv_factors")
    write_layout(root, {c: rows(c) for c in RIGHT}, features())
    return root


def predictions(path, right=RIGHT):
    lines = []
    for config, table in right.items():
        for layout, marks in enumerate(table):
            for qt, mark in zip(("q1", "q2", "q3"), marks):
                lines.append({"id": row_id(config, layout, qt), "response": ANSWERS[qt] if mark == "1" else WRONG[qt]})
    return write_jsonl(path, lines)


def texts(path):
    return re.findall(r"<text[^>]*>([^<]*)</text>", path.read_text())


def test_groups_and_factors_counted_by_hand(dataset, tmp_path, capsys, drawn):
    out = tmp_path / "o"
    assert run("multipanelvqa", "t", [register], ["score", str(predictions(tmp_path / "p.jsonl")), "--dataset",
                                                str(dataset), "--out", str(out), "--n-boot", "200"]) == 0
    r = json.loads((out / "scores.json").read_text())
    assert r["accuracy"] == pytest.approx(22 / 36)
    acc = {k: g["accuracy"] for k, g in r["per_layout_style"].items()}
    assert acc == {"splash": pytest.approx(6 / 12), "grid_same": pytest.approx(8 / 12),
                   "grid_mixed": pytest.approx(8 / 12)}
    assert list(r["per_num_subfigures"]) == ["2", "4"]
    assert r["per_num_subfigures"]["2"]["accuracy"] == pytest.approx(6 / 12)
    assert (r["per_num_subfigures"]["4"]["n"] == 24
            and r["per_num_subfigures"]["4"]["accuracy"] == pytest.approx(16 / 24))
    assert r["per_source"]["procedural_edit"]["accuracy"] == pytest.approx(8 / 12)
    assert r["per_subset_question_type"]["synthetic"]["q2"]["accuracy"] == pytest.approx(9 / 12)
    found = {f["factor"]: f for f in r["factors"]}
    # enlarged, text_hint and captions_referenced are absent: omitted, not zero
    assert list(found) == ["visual_similarity", "layout_style", "background", "captions"]
    expect = {"visual_similarity": ("original", "low_similarity", 9, 7 / 9, 8 / 9),
              "layout_style": ("splash", "grid", 9, 2 / 3, 5 / 6),
              "background": ("chessboard", "original", 9, 4 / 9, 7 / 9),
              "captions": ("original", "captions", 3, 2 / 3, 1.0)}
    for name, (base, variant, n, b, v) in expect.items():
        f = found[name]
        assert (f["base"], f["variant"], f["n"]) == (base, variant, n)
        assert f["base_accuracy"] == pytest.approx(b) and f["variant_accuracy"] == pytest.approx(v)
        assert f["delta"] == pytest.approx(v - b) and f["delta_ci"][0] <= f["delta"] <= f["delta_ci"][1]
        assert f["complete"] is True
    assert found["layout_style"]["paired"] is False and found["captions"]["question_types"] == ["q2"]
    table = capsys.readouterr().out
    assert "layout splash" in table and "factor background: chessboard 44.4% -> original 77.8%" in table
    assert {"2", "4"} <= set(texts(out / "per_num_subfigures.svg"))
    assert {"+11.1", "+16.7", "+33.3", "visual similarity", "layout style", "background", "captions"} \
        <= set(texts(out / "factors.svg"))
    for stem in ("per_num_subfigures", "factors"):
        assert (out / f"{stem}.png").read_bytes()[:4] == b"\x89PNG"
    assert line_points(drawn["per_num_subfigures"]) == {"p": [50.0, 66.7]}
    assert bar_heights(drawn["factors"]) == [11.1, 16.7, 33.3, 33.3]


def test_api_and_metric_give_the_command_numbers(dataset, tmp_path):
    from pathlib import Path

    import evaluate

    ref = datasets.load_dataset(str(dataset), "all", split="test").remove_columns(["image"]).to_dict()
    preds = {json.loads(line)["id"]: json.loads(line)["response"]
             for line in predictions(tmp_path / "p.jsonl").read_text().splitlines()}
    responses = [preds[i] for i in ref["id"]]
    kw = dict(choices=ref["choices"], augmentations=ref["augmentation"], subsets=ref["subset"], ids=ref["id"],
              layout_styles=ref["layout_style"], num_subfigures=ref["num_subfigures"], sources=ref["source"],
              n_boot=100)
    api = multipanelvqa.scoring.score(responses, ref["answer"], ref["question"], ref["question_type"], **kw)
    metric = evaluate.load(str(Path(__file__).resolve().parents[2] / "metrics" / "multipanelvqa_accuracy"))
    got = metric.compute(predictions=responses, references=ref["answer"], questions=ref["question"],
                         question_types=ref["question_type"], **kw)
    assert got == api
    assert {f["factor"] for f in got["factors"]} == {"visual_similarity", "layout_style", "background", "captions"}


def test_asked_factor_with_missing_configs_is_an_error(dataset, tmp_path, capsys):
    preds = predictions(tmp_path / "p.jsonl")
    code = run("multipanelvqa", "t", [register], ["score", str(preds), "--dataset", str(dataset), "--factors",
                                                 "background,subfigure_size", "--out", str(tmp_path / "o")])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and "factor 'subfigure_size' needs rows of 'original' and 'enlarged'" in err[0]
    assert run("multipanelvqa", "t", [register], ["score", str(preds), "--dataset", str(dataset), "--factors",
                                                 "colour"]) == 2
    assert "unknown factor 'colour'" in capsys.readouterr().err


def test_factor_pairs_with_an_unscored_side_are_left_out_and_flagged():
    ids = ["original-x-q1", "low_similarity-x-q1", "original-y-q1", "low_similarity-y-q1"]
    r = multipanelvqa.scoring.score(["yes", "yes", "no", None], ["yes"] * 4, ["q"] * 4, ["q1"] * 4, ids=ids,
                                    augmentations=["original", "low_similarity"] * 2,
                                    failed=[False, False, False, True], n_boot=20)
    f = r["factors"][0]
    assert f["n"] == 1 and f["unscored"] == 1 and f["complete"] is False and f["delta"] == 0.0


def score_to(dataset, folder, right, name):
    folder.mkdir(parents=True)
    preds = predictions(folder / "predictions.jsonl", right)
    assert run("multipanelvqa", "t", [register], ["score", str(preds), "--dataset", str(dataset), "--out", str(folder),
                                                 "--name", name, "--n-boot", "50"]) == 0
    return folder


def test_leaderboard_table_2_3_and_figure_5(dataset, tmp_path, capsys, drawn):
    from multipanelvqa.cli.main import main as multipanelvqa

    every = {c: ["111"] * 3 for c in RIGHT}
    first_q1_wrong = {c: ["011", "111", "111"] for c in RIGHT}
    results = [score_to(dataset, tmp_path / "a", RIGHT, "A"), score_to(dataset, tmp_path / "b1", every, "B"),
               score_to(dataset, tmp_path / "b2", first_q1_wrong, "B")]
    out = tmp_path / "board"
    capsys.readouterr()
    assert multipanelvqa(["leaderboard", *map(str, results), "--out", str(out)]) == 0
    md = (out / "leaderboard.md").read_text().splitlines()
    assert md[2] == "| model | synthetic Q1 | synthetic Q2 | synthetic Q3 | synthetic Overall |"
    # A: Q1 8/12, Q2 9/12, Q3 5/12, all 22/36; B: Q1 12/12 and 8/12 (83.3 ± 23.6), overall 36/36 and 32/36
    assert md[4:] == [
        "| A | 66.7 | 75.0 ▲ | 41.7 ▼ | 61.1 |",
        "| B | **83.3 ± 23.6** ▼ | **100.0 ± 0.0** ▲ | **100.0 ± 0.0** | **94.4 ± 7.9** |",
        "| *Random chance* | 50.0 | - | 25.0 | - |",
    ]
    factors = (out / "factors.md").read_text()
    # visual similarity: A 7/9 -> 8/9; B: 9/9 -> 9/9 and 8/9 -> 8/9
    assert "| A | 77.8 | 88.9 | 66.7 | 83.3 | 44.4 | 77.8 | 66.7 | **100.0** |" in factors
    # B's splash side: 3/3 and 2/3 (its first Q1 is wrong in the second run)
    assert "| B | **94.4 ± 7.9** | **94.4 ± 7.9** | **83.3 ± 23.6** | **100.0 ± 0.0** |" in factors
    assert {"+11.1", "+16.7", "+33.3", "+0.0", "A", "B"} <= set(texts(out / "factors.svg"))
    assert {"A", "B", "2", "4"} <= set(texts(out / "per_num_subfigures.svg"))
    assert (out / "leaderboard.tex").read_text().count(r"\\") >= 4
    # Figure 5: A 6/12 on 2 subfigures, 16/24 on 4; B: 2 subfigures 12/12 and 8/12, 4 subfigures 24/24
    assert line_points(drawn["per_num_subfigures"]) == {"A": [50.0, 66.7], "B": [83.3, 100.0]}
    # factor deltas, A then B: visual similarity, layout style, background, captions
    assert bar_heights(drawn["factors"]) == [11.1, 16.7, 33.3, 33.3, 0.0, 16.7, 0.0, 0.0]


def test_leaderboard_refuses_other_benchmarks_scores(dataset, tmp_path, capsys):
    from multipanelvqa.cli.main import main as multipanelvqa

    good = score_to(dataset, tmp_path / "a", RIGHT, "A")
    other = tmp_path / "other.json"
    other.write_text(json.dumps({"benchmark": "dicobench", "provenance": {}}))
    capsys.readouterr()
    assert multipanelvqa(["leaderboard", str(good), str(other), "--out", str(tmp_path / "b")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "holds no multipanelvqa scores" in err[0]


def test_require_singles_reports_the_controlled_rows(dataset, tmp_path, capsys):
    preds = predictions(tmp_path / "p.jsonl")
    # the target alone (eval --view single) of the original config: right on L000 and L002, wrong on L001
    singles = write_jsonl(tmp_path / "singles.jsonl", [
        {"id": row_id("original", 0, "q2"), "response": "An umbrella."},
        {"id": row_id("original", 1, "q2"), "response": "car"},
        {"id": row_id("original", 2, "q2"), "response": "umbrella"},
    ])
    out = tmp_path / "o"
    assert run("multipanelvqa", "t", [register], ["score", str(preds), "--dataset", str(dataset), "--out", str(out),
                                                 "--require-singles", str(singles), "--n-boot", "20"]) == 0
    r = json.loads((out / "scores.json").read_text())
    # kept: the image sets of L000 and L002 in every config (24 rows); right among them by hand: 5 + 5 + 2 + 2
    assert r["controlled"]["n"] == 24 and r["controlled"]["accuracy"] == pytest.approx(14 / 24)
    assert r["accuracy"] == pytest.approx(22 / 36)  # the uncontrolled accuracy beside it
    assert "controlled (singles right)" in capsys.readouterr().out


@pytest.mark.parametrize("bad_id", ["original-procedural_scene-s9-L007-q2", "original-procedural_scene-s0-L000-q1"])
def test_require_singles_of_other_rows_is_an_error(dataset, tmp_path, capsys, bad_id):
    singles = write_jsonl(tmp_path / "s.jsonl", [{"id": bad_id, "response": "umbrella"}])
    code = run("multipanelvqa", "t", [register], ["score", str(predictions(tmp_path / "p.jsonl")), "--dataset",
                                                 str(dataset), "--require-singles", str(singles)])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and "are not of Q2 questions of" in err[0]
