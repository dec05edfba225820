"""The isolation ablation's views (MultipanelVQA's Figure 4): pixels of each view, and `eval --view`
end to end against a 127.0.0.1 endpoint, asking only the questions that target one subfigure."""

import base64
import io
import json
import re

import numpy as np
from chart_capture import bar_heights, drawn  # noqa: F401 (fixture)
from openai_stub import StubServer
from PIL import Image

from dicobench.kit.cli.commands import run
from multipanelvqa.cli.eval import register
from multipanelvqa.cli.main import main as multipanelvqa
from multipanelvqa.cli.score import register as score_register
from multipanelvqa.schema import features
from multipanelvqa.views import apply_view
from tests.dicobench.test_score_cli import write_layout
from tests.multipanelvqa.test_mpv_analyses import RIGHT, predictions
from tests.multipanelvqa.test_mpv_analyses import rows as fixture_rows

BOXES = [[10, 10, 30, 20], [50, 40, 40, 40]]  # target (red) first, then a blue neighbour


def composite() -> Image.Image:
    image = Image.new("RGB", (100, 100), "white")
    image.paste((200, 0, 0), (10, 10, 40, 30))
    image.paste((0, 0, 200), (50, 40, 90, 80))
    return image


def row(augmentation="original"):
    return {"image": composite(), "subfigures": [{"bbox": b, "position": "p", "source_id": "s"} for b in BOXES],
            "target_index": 0, "augmentation": augmentation}


def test_isolated_blanks_the_neighbours_to_the_background():
    out = np.asarray(apply_view(row(), "isolated"))
    assert (out[10:30, 10:40] == (200, 0, 0)).all()  # the target stays at its place
    assert (out[40:80, 50:90] == 255).all()  # the neighbour is white background now
    assert (out[0:5] == 255).all()
    assert (np.asarray(apply_view(row(), "full")) == np.asarray(composite())).all()


def test_isolated_on_a_chessboard_restores_the_squares():
    image = Image.new("RGB", (1000, 1000), "white")
    image.paste((0, 0, 200), (100, 0, 200, 100))  # the neighbour covers squares (100..199, 0..99)
    r = {"image": image, "subfigures": [{"bbox": [0, 0, 50, 50], "position": "p", "source_id": "s"},
                                        {"bbox": [100, 0, 100, 100], "position": "q", "source_id": "s"}],
         "target_index": 0, "augmentation": "chessboard"}
    out = np.asarray(apply_view(r, "isolated"))
    # 50 px squares, white at the top left: columns 100-149 white, 150-199 black, then white below
    assert ((out[0:50, 100:150] == 255).all() and (out[0:50, 150:200] == 0).all()
            and (out[50:100, 150:200] == 255).all())


def test_single_is_the_target_alone():
    out = apply_view(row(), "single")
    assert out.size == (30, 20) and (np.asarray(out) == (200, 0, 0)).all()


def png_dict(image) -> dict:
    buf = io.BytesIO()
    image.save(buf, format="PNG")
    return {"bytes": buf.getvalue(), "path": None}


def test_eval_single_view_asks_only_q2_with_the_target_image(tmp_path):
    rows = []
    for k in range(2):
        for qt, answer in (("q1", "yes"), ("q2", "red"), ("q3", "a")):
            rows.append({"id": f"original-x{k}-{qt}", "image": png_dict(composite()), "question_type": qt,
                         "question": f"{qt} question {k}", "answer": answer,
                         "choices": ["top left", "top right", "bottom left", "bottom right"] if qt == "q3" else [],
                         "subset": "synthetic", "source": "procedural_scene", "augmentation": "original",
                         "layout_id": 0, "layout_style": "splash", "num_subfigures": 2,
                         "subfigures": [{"bbox": b, "position": "p", "source_id": "s"} for b in BOXES],
                         "target_index": 0, "seed": 0})
    root = tmp_path / "mpv"
    write_layout(root, {"original": rows}, features())
    out = tmp_path / "run"
    with StubServer(reply=lambda body: "Red.") as stub:
        code = run("multipanelvqa", "t", [register], ["eval", "--dataset", str(root), "--model", "openai:m",
                                                     "--base-url", stub.base_url, "--out", str(out), "--view",
                                                     "single", "--quiet"])
    assert code == 0 and len(stub.requests) == 2  # the two Q2 rows only
    for request in stub.requests:
        url = request["body"]["messages"][0]["content"][0]["image_url"]["url"]
        sent = Image.open(io.BytesIO(base64.b64decode(url.split(",", 1)[1])))
        assert sent.size == (30, 20)
    scores = json.loads((out / "scores.json").read_text())
    assert scores["n"] == 2 and scores["accuracy"] == 1.0 and scores["provenance"]["view"] == "single"
    assert json.loads((out / "run.json").read_text())["view"] == "single"


def test_leaderboard_figure_4_from_runs_of_several_views(tmp_path, drawn):
    root = tmp_path / "d"
    write_layout(root, {c: fixture_rows(c) for c in RIGHT}, features())
    folders = []
    for view, right in (("full", RIGHT), ("single", {c: ["111"] * 3 for c in RIGHT})):
        folder = tmp_path / view
        folder.mkdir()
        preds = predictions(folder / "all.jsonl", right)
        if view != "full":  # the single view answers the Q2 rows only
            lines = [line for line in preds.read_text().splitlines() if line.endswith('-q2", "response": "umbrella"}')]
            preds.write_text("\n".join(lines) + "\n")
        (folder / "run.json").write_text(json.dumps({"model": "openai:m", "view": view}))
        assert run("multipanelvqa", "t", [score_register], ["score", str(preds), "--dataset", str(root), "--out",
                                                           str(folder), "--name", "M", "--n-boot", "20"]) == 0
        folders.append(folder)
    single = json.loads((tmp_path / "single" / "scores.json").read_text())
    assert single["n"] == 12 and single["accuracy"] == 1.0
    out = tmp_path / "board"
    assert multipanelvqa(["leaderboard", *map(str, folders), "--out", str(out)]) == 0
    md = (out / "leaderboard.md").read_text()
    assert "| M | " in md and "| M (single) | - | 100.0 | - | 100.0 |" in md
    svg = (out / "views.svg").read_text()
    assert {"full", "single", "M"} <= set(re.findall(r"<text[^>]*>([^<]*)</text>", svg))
    # Q2 of the full view: 9/12 right; of the single view 12/12
    full = json.loads((tmp_path / "full" / "scores.json").read_text())
    assert full["per_question_type"]["q2"]["accuracy"] == 0.75
    assert bar_heights(drawn["views"]) == [75.0, 100.0]
