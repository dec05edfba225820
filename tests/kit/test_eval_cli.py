"""`dicobench eval` end to end with a tiny local model, resume, settings guard, describe mode,
and `multipanelvqa eval` on a small Parquet dataset against a stub endpoint."""

import io
import json

import datasets
import pytest
from openai_stub import StubServer
from PIL import Image
from tiny_vlm import build_tiny_llava

from dicobench.cli.eval import DESCRIBE_INSTRUCTION, make_prompt
from dicobench.cli.main import main as dicobench
from dicobench.kit.cli.commands import run
from dicobench.kit.eval.extract import extract_choice
from dicobench.kit.eval.run_folder import PREDICTIONS, keep_answered
from dicobench.kit.eval.views import crop_box
from multipanelvqa.cli.eval import register as register_multipanel
from multipanelvqa.schema import features as multipanel_features
from tests.dicobench.test_score_cli import write_layout

FIELDS = {"id", "task", "response", "parsed", "answer", "latency", "error"}


def read(path):
    return [json.loads(line) for line in path.read_text().splitlines()]


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    pytest.importorskip("torch")
    return build_tiny_llava(tmp_path_factory.mktemp("tiny") / "llava")


def test_local_model_end_to_end_with_resume(small_build, tiny, tmp_path, capsys):
    out = tmp_path / "run"
    base = ["eval", "--dataset", str(small_build), "--model", f"hf:{tiny}", "--out", str(out),
            "--batch-size", "2", "--max-new-tokens", "6", "--dtype", "float32", "--device-map", "cpu",
            "--attn-implementation", "sdpa", "--model-args", "use_safetensors=true", "--quiet"]
    assert dicobench(base + ["--limit", "1"]) == 0  # lmms-eval's --limit: the first row of each task
    first = read(out / PREDICTIONS)
    assert len(first) == 8 and all(set(r) == FIELDS and r["error"] is None for r in first)
    assert len({r["task"] for r in first}) == 8 and all(r["answer"] in "ABCDE" for r in first)
    assert json.loads((out / "scores.json").read_text())["n"] == 8
    assert (out / "per_task.png").exists()

    assert dicobench(base + ["--limit", "2"]) == 0  # resume: only the eight new rows are asked
    assert "8 already answered, 8 to ask" in capsys.readouterr().out
    second = read(out / PREDICTIONS)
    assert second[:8] == first and len(second) == 16 and len({r["id"] for r in second}) == 16
    scores = json.loads((out / "scores.json").read_text())
    assert scores["n"] == 16 and (scores["split"], scores["limit"]) == ("test", 2)

    assert dicobench(base + ["--limit", "2", "--mode", "describe"]) == 2  # other settings: refused
    assert "other settings (mode)" in capsys.readouterr().err
    assert dicobench(base + ["--limit", "1"]) == 2  # a smaller selection cannot be scored from this file
    assert "outside this selection" in capsys.readouterr().err
    assert dicobench(["eval", "--dataset", str(small_build), "--model", "gguf:x", "--out", str(tmp_path / "x")]) == 2


def test_resume_keeps_answered_rows_only(tmp_path):
    path = tmp_path / PREDICTIONS
    good = json.dumps({"id": "a", "response": "B", "error": None})
    path.write_text(good + "\n" + json.dumps({"id": "b", "response": None, "error": "RateLimitError"}) + "\n"
                    + '{"id": "c", "resp')  # the run was killed mid-line
    assert keep_answered(path, {"a", "b", "c"}) == {"a"}
    assert path.read_text() == good + "\n"


def test_describe_mode_and_crop_view_prompts(small_build):
    row = datasets.load_dataset(str(small_build), "all", split="test[:1]")[0]
    parts = make_prompt("describe", "crop")(row)
    assert parts[0] == "Image 1:" and parts[2] == "Image 2:"
    text = parts[4]
    assert text.startswith(row["question"]) and text.endswith(DESCRIBE_INSTRUCTION)
    assert "directly" not in text and all(option in text for option in row["options"])
    box = crop_box(row["image_a"].size, row["cues"])
    assert parts[1].size == parts[3].size == (box[2] - box[0], box[3] - box[1])
    reply = "Image 2 shows the burger in two tones where image 1 has one colour.\nAnswer: C"
    assert extract_choice(reply, row["options"]) == "C"


def png(colour) -> dict:
    buf = io.BytesIO()
    Image.new("RGB", (1000, 1000), colour).save(buf, format="PNG")
    return {"bytes": buf.getvalue(), "path": None}


def write_multipanel(root):
    """A three-question MultipanelVQA dataset in `root`; question -> a reply right by the rules."""
    positions = ["top left", "top right", "bottom left", "bottom right"]
    q3 = 'Which subfigure has "red" as the answer to the question "What colour?"?\n' + "\n".join(
        f"{letter}. {p}" for letter, p in zip("abcd", positions)) + "\nPlease select one."
    questions = [("q1", "Is there a cat in all subfigures?", "no", []),
                 ("q2", "What colour is the cup in the top left subfigure?", "red", []),
                 ("q3", q3, "c", positions)]
    rows = [{"id": f"img0-{qt}", "image": png((200, 20, 20)), "question_type": qt, "question": q, "answer": a,
             "choices": choices, "subset": "synthetic", "source": "procedural_scene", "augmentation": "original",
             "layout_id": 0, "layout_style": "grid_same", "num_subfigures": 4,
             "subfigures": [{"bbox": [0, 0, 500, 500], "position": p, "source_id": "s"} for p in positions],
             "target_index": 0, "seed": 0} for qt, q, a, choices in questions]
    write_layout(root, {"original": rows}, multipanel_features())
    return {q: reply for (_, q, _, _), reply in zip(questions, ("No.", "Red.", "The answer is (c)."))}


def test_multipanelvqa_eval_against_a_stub_endpoint(tmp_path):
    root = tmp_path / "mpv"
    replies = write_multipanel(root)
    out = tmp_path / "run"
    with StubServer(lambda body: replies[body["messages"][0]["content"][-1]["text"].rsplit("\n", 1)[0]]) as stub:
        code = run("multipanelvqa", "test", [register_multipanel],
                   ["eval", "--dataset", str(root), "--model", "openai:stub", "--base-url", stub.base_url,
                    "--out", str(out), "--quiet"])
    assert code == 0 and len(stub.requests) == 3
    for request in stub.requests:
        content = request["body"]["messages"][0]["content"]
        assert [p["type"] for p in content] == ["image_url", "text"]  # one composite, no "Image 1:" label
        assert content[1]["text"].rsplit("\n", 1)[0] in replies  # the question, then multipanelvqa's instruction
    records = {r["id"]: r for r in read(out / PREDICTIONS)}
    assert records["img0-q3"]["parsed"] == "c" and records["img0-q1"]["parsed"] is None
    assert records["img0-q2"]["task"] == "q2" and records["img0-q2"]["answer"] == "red"
    scores = json.loads((out / "scores.json").read_text())
    assert scores["benchmark"] == "multipanelvqa" and scores["n"] == 3 and scores["accuracy"] == 1.0


def test_multipanelvqa_eval_takes_the_judge_as_dicobench_eval_does(tmp_path, monkeypatch):
    """`multipanelvqa eval --judge`: the answers the rules cannot settle go to the judge, whose verdicts make
    the headline accuracy, with the judge's flags as `score` and `dicobench eval` have them."""
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    root = tmp_path / "mpv"
    write_multipanel(root)

    def reply(body):
        content = body["messages"][0]["content"]
        if isinstance(content, str):  # the judge's prompt: the paper's, for a free-form answer or a choice
            assert content.startswith("For question:")
            return "Yes"
        return "Hard to say, something reddish maybe."  # the model: no rule can settle it

    out = tmp_path / "run"
    with StubServer(reply) as stub:
        code = run("multipanelvqa", "test", [register_multipanel],
                   ["eval", "--dataset", str(root), "--model", "openai:stub", "--base-url", stub.base_url,
                    "--out", str(out), "--quiet", "--judge", "openai:judge", "--judge-base-url", stub.base_url,
                    "--judge-cache", str(tmp_path / "cache"), "--judge-retries", "0"])
    assert code == 0
    scores = json.loads((out / "scores.json").read_text())
    assert scores["judge"] == "openai:judge" and scores["rule_undecided"] == scores["judged"] == 3
    assert scores["accuracy"] == 1.0 and scores["provenance"]["judge"] == "openai:judge"  # without it: 0.0
    assert sum(isinstance(r["body"]["messages"][0]["content"], str) for r in stub.requests) == 3


def test_an_eval_that_fails_before_any_answer_leaves_no_out_folder(small_build, tmp_path, capsys, monkeypatch):
    """A model that cannot load: one line, and the new out folder goes with it (an existing one,
    and one holding answers, stay)."""
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    out = tmp_path / "run"
    argv = ["eval", "--dataset", str(small_build), "--model", f"hf:{tmp_path / 'no-such-model'}", "--out", str(out),
            "--limit", "1", "--quiet"]
    assert dicobench(argv) == 2 and capsys.readouterr().err.count("\n") == 1
    assert not out.exists()
    out.mkdir()
    (out / "notes.txt").write_text("mine\n")
    assert dicobench(argv) == 2 and (out / "notes.txt").read_text() == "mine\n"


def test_the_engine_scores_through_the_library_not_a_command_line():
    import dataclasses
    import subprocess
    import sys

    import dicobench.evaluation
    import multipanelvqa.evaluation
    from dicobench.kit.eval import evaluation

    fields = {f.name for f in dataclasses.fields(evaluation.EvalSpec)}
    assert "score" in fields and not fields & {"score_register", "score_args"}
    assert dicobench.evaluation.benchmark().score.func is dicobench.score_predictions
    assert multipanelvqa.evaluation.benchmark("single").score.keywords == {"view": "single", "judge": None}
    code = ("import sys, dicobench.kit.eval.evaluation, dicobench.evaluation, multipanelvqa.evaluation; "
            "print(sorted(m for m in sys.modules if m.endswith(('.cli.score', '.cli.eval', '.cli.main'))))")
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert loaded.strip() == "[]", loaded
