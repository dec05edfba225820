"""`multipanelvqa import`: real multipanel images + JSONL -> the real_world config."""

import io
import json

import datasets
import numpy as np
import pytest
from PIL import Image

from multipanelvqa.cli.main import main


def _folder(tmp_path, lines=None):
    folder = tmp_path / "real"
    folder.mkdir()
    for name, value in (("poster.png", 30), ("web.jpg", 200)):
        buf = io.BytesIO()
        Image.fromarray(np.full((120, 160, 3), value, np.uint8)).save(buf,
                                                                      format="PNG" if name.endswith("png") else "JPEG")
        (folder / name).write_bytes(buf.getvalue())
    if lines is None:
        lines = []
        for image in ("poster.png", "web.jpg"):
            lines += [
                {"image": image, "question_type": "q1",
                 "question": "Do all panels show a person? Please answer yes/no.", "answer": "No"},
                {"image": image, "question_type": "q2", "question": "What is in the top panel?", "answer": "A red car",
                 "subfigures": [{"bbox": [0, 0, 160, 60], "position": "top subfigure"},
                                {"bbox": [0, 60, 160, 60], "position": "bottom subfigure"}],
                 "target_index": 0},
                {"image": image, "question_type": "q3",
                 "question": "Which panel shows the car?\na. top\nb. bottom\nc. none\nd. all",
                 "answer": "a", "choices": ["top", "bottom", "none", "all"]},
            ]
    (folder / "questions.jsonl").write_text("\n".join(json.dumps(l) if isinstance(l, dict) else l for l in lines)
                                            + "\n")
    return folder


def test_import_writes_a_loadable_real_world_config(tmp_path):
    folder = _folder(tmp_path)
    assert main(["import-images", str(folder), "--out", str(tmp_path / "out")]) == 0
    ds = datasets.load_dataset(str(tmp_path / "out"), "real_world", split="test")
    assert len(ds) == 6 and set(ds["subset"]) == {1} and set(ds["source"]) == {"imported"}
    assert ds[0]["answer"] == "no" and ds[1]["answer"] == "A red car" and ds[2]["choices"][0] == "top"
    assert (ds[1]["num_subfigures"] == 2 and ds[1]["subfigures"][0]["bbox"] == [0, 0, 160, 60]
            and ds[0]["layout_id"] == -1)
    assert ds[3]["image"].format == "JPEG"  # bytes kept as given
    assert len(datasets.load_dataset(str(tmp_path / "out"), "all", split="test")) == 6
    assert "real_world" in (tmp_path / "out" / "README.md").read_text()


@pytest.mark.parametrize("line, message", [
    ("{not json", "questions.jsonl:1: not JSON"),
    ({"image": "poster.png", "question_type": "q4", "question": "?", "answer": "x"},
     "questions.jsonl:1: question_type must be"),
    ({"image": "poster.png", "question_type": "q3", "question": "?", "answer": "e"}, "a q3 answer must be one of a-d"),
    ({"image": "poster.png", "question_type": "q1", "question": "?", "answer": "maybe"},
     "a q1 answer must be yes or no"),
    ({"image": "missing.png", "question_type": "q2", "question": "?", "answer": "x"},
     "image 'missing.png' is not a file"),
    ({"image": "../x.png", "question_type": "q2", "question": "?", "answer": "x"}, "is not a file in"),
])
def test_bad_input_is_one_line_exit_2(tmp_path, capsys, line, message):
    folder = _folder(tmp_path, [line])
    assert main(["import-images", str(folder), "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err.strip()
    assert message in err and "\n" not in err


def test_corrupt_image_is_reported(tmp_path, capsys):
    folder = _folder(tmp_path)
    (folder / "web.jpg").write_bytes(b"not an image")
    assert main(["import-images", str(folder), "--out", str(tmp_path / "out")]) == 2
    assert "cannot decode" in capsys.readouterr().err
    assert not list((tmp_path / "out").rglob("*.parquet"))


@pytest.mark.parametrize("into", ["new folder", "a build"])
def test_a_failed_import_leaves_nothing_that_stops_the_corrected_retry(tmp_path, capsys, into):
    """Issue 35: an image that does not decode failed the import after its folders were made, and
    the corrected retry was refused ("not empty and holds no MultipanelVQA build")."""
    folder = _folder(tmp_path)
    good = (folder / "web.jpg").read_bytes()
    (folder / "web.jpg").write_bytes(b"not an image")
    out = tmp_path / "out"
    if into == "a build":
        from multipanelvqa.build import build

        build(out, layouts=[0], configs=["original"], num_proc=1, progress=False)
    before = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*") if "real" not in p.parts)
    assert main(["import-images", str(folder), "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip()
    assert "web.jpg" in err and "\n" not in err
    assert sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*") if "real" not in p.parts) == before
    (folder / "web.jpg").write_bytes(good)
    assert main(["import-images", str(folder), "--out", str(out)]) == 0
    assert len(datasets.load_dataset(str(out), "real_world", split="test")) == 6
