"""`dicobench score` and `multipanelvqa score` on tiny Parquet datasets laid out like the builder's."""

import io
import json

import datasets
import pytest
from openai_stub import StubServer
from PIL import Image

from dicobench.cli.score import register as register_dicobench
from dicobench.kit.cli.commands import run
from dicobench.schema import features
from multipanelvqa.cli.score import register as register_multipanel

TASKS = ("attribute", "spatial_relation", "instance")


def png() -> dict:
    buf = io.BytesIO()
    Image.new("RGB", (8, 8), (200, 10, 10)).save(buf, format="PNG")
    return {"bytes": buf.getvalue(), "path": None}


def write_layout(root, parts: dict, feats: datasets.Features) -> None:
    """`<root>/<config>/test-00000-of-00001.parquet` per config, `all` over every folder, README YAML."""
    yaml = ["---", "configs:", "- config_name: all", "  default: true", "  data_files:", "  - split: test",
            "    path:"]
    yaml += [f"    - {name}/test-*.parquet" for name in parts]
    for name, rows in parts.items():
        (root / name).mkdir(parents=True)
        datasets.Dataset.from_list(rows, features=feats).to_parquet(root / name / "test-00000-of-00001.parquet")
        yaml += [f"- config_name: {name}", "  data_files:", "  - split: test", f"    path: {name}/test-*.parquet"]
    (root / "README.md").write_text("\n".join(yaml + ["---", "", "A test dataset."]) + "\n")


@pytest.fixture(scope="module")
def dicobench_dir(tmp_path_factory):
    root = tmp_path_factory.mktemp("dicobench")
    parts = {}
    for t, task in enumerate(TASKS):
        track = 0 if task in ("attribute", "spatial_relation") else 1
        parts[task] = [
            {
                "id": f"{task}-{i}", "track": track, "task": task, "image_a": png(), "image_b": png(),
                "question": "What is the difference between the two images?",
                "options": ["red cup", "blue lamp", "green clock", "a dog", "There is no visible difference"],
                "answer": "ABCDE"[i], "cues": [], "changed_area": 0.01, "source": f"procedural:{t}-{i // 2}",
                "seed": i, "generator": "test",
            }
            for i in range(4)
        ]
    write_layout(root, parts, features())
    return root


def dicobench(argv):
    return run("dicobench", "test", [register_dicobench], argv)


def write_jsonl(path, rows):
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_dicobench_score_writes_report_charts_and_table(dicobench_dir, tmp_path, capsys):
    # Right on attribute (4/4), half on spatial_relation, none on instance.
    rows = [{"id": f"attribute-{i}", "response": f"The answer is ({'ABCD'[i]})."} for i in range(4)]
    rows += [{"id": f"spatial_relation-{i}", "prediction": "AB"[i % 2] if i < 2 else "E"} for i in range(4)]
    rows += [{"id": f"instance-{i}", "response": "I cannot tell."} for i in range(4)]
    preds = write_jsonl(tmp_path / "model.jsonl", rows)
    out = tmp_path / "out"
    assert dicobench(["score", str(preds), "--dataset", str(dicobench_dir), "--out", str(out), "--n-boot", "200"]) == 0
    report = json.loads((out / "scores.json").read_text())
    assert report["n"] == 12 and report["accuracy"] == pytest.approx(6 / 12)
    assert report["per_task"]["attribute"]["accuracy"] == 1.0
    assert report["per_task"]["spatial_relation"]["accuracy"] == 0.5
    assert report["per_task"]["instance"]["accuracy"] == 0.0
    assert report["unparsed_rate"] == pytest.approx(4 / 12)
    assert report["cluster_by"] == "source" and report["n_clusters"] == 6
    for chart in ("per_task.png", "radar.png"):
        assert (out / chart).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    table = capsys.readouterr().out
    assert "spatial_relation" in table and "overall" in table and "50.0" in table


def test_dicobench_score_one_task_config(dicobench_dir, tmp_path):
    preds = write_jsonl(tmp_path / "p.jsonl", [{"id": f"instance-{i}", "response": "ABCDE"[i]} for i in range(4)])
    assert dicobench(["score", str(preds), "--dataset", str(dicobench_dir), "--config", "instance"]) == 0
    assert json.loads((tmp_path / "p.scores" / "scores.json").read_text())["accuracy"] == 1.0


@pytest.mark.parametrize(
    "lines,extra,message",
    [
        (['{"id": "attribute-0", "response": "A"}'], [], "4 predictions|1 predictions for 12 rows"),
        (['{"id": "attribute-0", "response": "A"'], [], "not valid JSON"),
        (['{"response": "A"}'], [], "missing or invalid 'id'"),
        (['{"id": "x", "text": "A"}'], [], "no 'response' or 'prediction'"),
        ([], ["--config", "colour"], "unknown task or config 'colour'"),
        ([], ["--cluster-by", "nope"], "no such column"),
    ],
)
def test_dicobench_bad_input_is_one_line_exit_2(dicobench_dir, tmp_path, capsys, lines, extra, message):
    preds = tmp_path / "p.jsonl"
    preds.write_text("\n".join(lines or [json.dumps({"id": f"{t}-{i}", "response": "A"}) for t in TASKS
                                         for i in range(4)]) + "\n")
    assert dicobench(["score", str(preds), "--dataset", str(dicobench_dir), *extra]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and err.startswith("dicobench: error:")
    assert any(m in err for m in message.split("|"))


def test_unreadable_predictions_and_missing_dataset(dicobench_dir, tmp_path, capsys):
    assert dicobench(["score", str(tmp_path / "absent.jsonl"), "--dataset", str(dicobench_dir)]) == 2
    assert "cannot read predictions" in capsys.readouterr().err
    preds = write_jsonl(tmp_path / "p.jsonl", [{"id": "x", "response": "A"}])
    assert dicobench(["score", str(preds), "--dataset", str(tmp_path / "no_such_dataset")]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "no such folder" in err


def mpvqa_features():
    return datasets.Features({
        "id": datasets.Value("string"), "image": datasets.Image(),
        "question_type": datasets.ClassLabel(names=["q1", "q2", "q3"]), "question": datasets.Value("string"),
        "answer": datasets.Value("string"), "choices": datasets.List(datasets.Value("string")),
        "subset": datasets.ClassLabel(names=["synthetic", "real_world"]), "source": datasets.Value("string"),
        "augmentation": datasets.Value("string"),
    })


@pytest.fixture(scope="module")
def mpvqa_dir(tmp_path_factory):
    root = tmp_path_factory.mktemp("mpvqa")
    pos = ["top left", "top right", "bottom left", "bottom right"]
    parts = {}
    for aug in ("original", "chessboard"):
        parts[aug] = [
            {"id": f"{aug}-0", "image": png(), "question_type": "q1", "question": "Do all subfigures show a dog?",
             "answer": "yes", "choices": [], "subset": "synthetic", "source": "procedural_scene", "augmentation": aug},
            {"id": f"{aug}-1", "image": png(), "question_type": "q2", "question": "What is in the top left subfigure?",
             "answer": "umbrella", "choices": [], "subset": "synthetic", "source": "procedural_scene",
             "augmentation": aug},
            {"id": f"{aug}-2", "image": png(), "question_type": "q3", "question": "Which subfigure shows a cat?",
             "answer": "b", "choices": pos, "subset": "synthetic", "source": "procedural_scene", "augmentation": aug},
        ]
    write_layout(root, parts, mpvqa_features())
    return root


def multipanel(argv):
    return run("multipanelvqa", "test", [register_multipanel], argv)


def test_multipanelvqa_score_with_judge(mpvqa_dir, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-cli-secret-key")
    answers = {"0": "Yes.", "1": "A red umbrella.", "2": "b) top right"}
    preds = write_jsonl(tmp_path / "m.jsonl", [{"id": f"{a}-{k}", "response": v}
                                               for a in ("original", "chessboard") for k, v in answers.items()])
    out = tmp_path / "out"
    with StubServer(reply=lambda body: "yes") as stub:
        code = multipanel(["score", str(preds), "--dataset", str(mpvqa_dir), "--out", str(out), "--judge",
                           "openai:judge-x", "--judge-base-url", stub.base_url, "--judge-cache", str(tmp_path / "c"),
                           "--n-boot", "100"])
        # Only the two "red umbrella" rows need the judge; their prompts are identical, so one request.
        assert code == 0 and len(stub.requests) == 1
    report = json.loads((out / "scores.json").read_text())
    assert report["accuracy"] == 1.0 and report["judged"] == 2 and report["judge"] == "openai:judge-x"
    assert set(report["per_augmentation"]) == {"original", "chessboard"}
    assert report["per_question_type"]["q3"]["accuracy"] == 1.0
    assert (out / "per_question_type.png").exists() and (out / "per_augmentation.png").exists()
    assert "q2" in capsys.readouterr().out
    for path in [*out.rglob("*"), *(tmp_path / "c").rglob("*")]:
        assert b"sk-cli-secret-key" not in path.read_bytes()


def test_multipanelvqa_bad_judge_spec(mpvqa_dir, tmp_path, capsys):
    preds = write_jsonl(tmp_path / "m.jsonl", [{"id": f"{a}-{k}", "response": "no"}
                                               for a in ("original", "chessboard") for k in range(3)])
    assert multipanel(["score", str(preds), "--dataset", str(mpvqa_dir), "--judge", "gpt-4o"]) == 2
    assert "unknown judge 'gpt-4o'" in capsys.readouterr().err
