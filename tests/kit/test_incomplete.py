"""Scores that cannot inflate: unscored rows (judge or model call failed) make a result incomplete.

Checked on the Python API, the `evaluate` modules, both `score` commands and `eval`, against a
127.0.0.1 judge that fails (rate limited through every retry), times out, and then recovers.
"""

import io
import json
from pathlib import Path

import evaluate
import pytest
from openai_stub import StubServer
from PIL import Image

import dicobench.scoring
import multipanelvqa.scoring
from dicobench.cli.score import register as register_dicobench
from dicobench.kit.cli.commands import run
from dicobench.kit.eval.completeness import as_metric
from multipanelvqa.cli.eval import register as register_multipanel_eval
from multipanelvqa.cli.score import register as register_multipanel
from multipanelvqa.schema import features as multipanel_features
from tests.dicobench.test_score_cli import dicobench_dir, mpvqa_dir, write_jsonl, write_layout  # noqa: F401 (fixtures)

METRICS = Path(__file__).resolve().parents[2] / "metrics"
FAIL = [("429", 0)] * 6  # the first try and all five retries rate limited: the request fails


def multipanel(argv):
    return run("multipanelvqa", "test", [register_multipanel], argv)


# Rules: original-0, original-2 right; chessboard-0, chessboard-2 wrong; the two q2 rows need the judge.
ANSWERS = {"original-0": "Yes.", "original-1": "A red umbrella.", "original-2": "b",
           "chessboard-0": "No.", "chessboard-1": "An umbrella, I think.", "chessboard-2": "(c)"}


def test_api_bounds_without_inflating():
    r = dicobench.scoring.score(["A", None, "C", "D"], ["A", "B", "C", "E"], failed=[False, True, False, False],
                                n_boot=50)
    assert r["complete"] is False and r["unscored"] == 1 and "accuracy" not in r
    assert r["accuracy_lower"] == 0.5 and r["accuracy_upper"] == 0.75
    assert r["strict_accuracy_lower"] == 0.5 and r["strict_accuracy_upper"] == 0.75
    assert r["accuracy_ci"][0] <= 0.5 and r["accuracy_ci"][1] >= 0.75
    complete = dicobench.scoring.score(["A", "B"], ["A", "C"], n_boot=50)
    assert complete["complete"] is True and complete["unscored"] == 0 and complete["accuracy"] == 0.5
    assert "accuracy_lower" not in complete


def test_api_per_task_groups_are_bounded_too():
    r = dicobench.scoring.score(["A", "B", None, "A"], ["A", "B", "C", "D"],
                                tasks=["attribute", "attribute", "instance", "instance"],
                                failed=[False, False, True, False], n_boot=20)
    assert r["per_task"]["attribute"] == {**r["per_task"]["attribute"], "accuracy": 1.0, "unscored": 0}
    inst = r["per_task"]["instance"]
    assert "accuracy" not in inst and (inst["accuracy_lower"], inst["accuracy_upper"]) == (0.0, 0.5)
    assert (r["task_mean_accuracy_lower"], r["task_mean_accuracy_upper"]) == (0.5, 0.75)
    assert r["per_track"]["commonality"]["unscored"] == 1


def test_multipanel_failed_model_calls_are_unscored():
    r = multipanelvqa.scoring.score(["yes", None, "no"], ["yes", "no", "no"], ["q"] * 3, ["q1"] * 3,
                                    failed=[False, True, False], n_boot=20)
    assert r["failed"] == 1 and r["unscored"] == 1 and r["rule_wrong"] == 0
    assert (r["accuracy_lower"], r["accuracy_upper"]) == (pytest.approx(2 / 3), 1.0)


def test_metric_modules_carry_the_rule(tmp_path):
    dico = evaluate.load(str(METRICS / "dicobench_accuracy"))
    got = dico.compute(predictions=["A", None], references=["A", "B"], failed=[False, True], n_boot=20)
    assert got == as_metric(dicobench.scoring.score(["A", None], ["A", "B"], failed=[False, True], n_boot=20))
    assert got["complete"] is False and (got["accuracy_lower"], got["accuracy_upper"]) == (0.5, 1.0)
    mpv = evaluate.load(str(METRICS / "multipanelvqa_accuracy"))
    with StubServer() as stub:
        stub.script.extend(FAIL)
        got = mpv.compute(predictions=["It is a red umbrella", "yes"], references=["umbrella", "yes"],
                          questions=["q", "q"], question_types=["q2", "q1"], judge="openai:j",
                          judge_base_url=stub.base_url, judge_api_key="sk-x", cache_dir=str(tmp_path))
    assert got["complete"] is False and got["unjudged"] == 1
    assert (got["accuracy_lower"], got["accuracy_upper"]) == (0.5, 1.0)


def judge_cmd(preds, dataset, out, stub, cache, *extra):
    return ["score", str(preds), "--dataset", str(dataset), "--out", str(out), "--judge", "openai:judge-x",
            "--judge-base-url", stub.base_url, "--judge-cache", str(cache), "--judge-concurrency", "1",
            "--n-boot", "50", *extra]


def test_failing_judge_then_recovery(mpvqa_dir, tmp_path, capsys, monkeypatch):  # noqa: F811
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    preds = write_jsonl(tmp_path / "m.jsonl", [{"id": k, "response": v} for k, v in ANSWERS.items()])
    out, cache = tmp_path / "out", tmp_path / "cache"
    with StubServer(reply=lambda body: "yes") as stub:
        stub.script.extend([("ok", "yes")] + FAIL)  # original-1 judged, chessboard-1 fails
        assert multipanel(judge_cmd(preds, mpvqa_dir, out, stub, cache)) == 1
        captured = capsys.readouterr()
        err = captured.err.strip().splitlines()
        assert len(err) == 1 and "1 rows unscored" in err[0] and "cache" in err[0] and "rerun" in err[0]
        assert captured.out.startswith("INCOMPLETE: 1 of 6 rows could not be scored")
        report = json.loads((out / "scores.json").read_text())
        # 3 right (original: two by rule, one by judge), 2 wrong by rule, 1 unjudged: 3/6 to 4/6, never 3/5
        assert report["complete"] is False and report["unscored"] == 1 and "accuracy" not in report
        assert report["accuracy_lower"] == 0.5 and report["accuracy_upper"] == pytest.approx(4 / 6)
        assert report["per_augmentation"]["original"]["accuracy"] == 1.0
        assert "accuracy" not in report["per_augmentation"]["chessboard"]

        sent = len(stub.requests)
        assert multipanel(judge_cmd(preds, mpvqa_dir, out, stub, cache)) == 0  # the judge recovered
        assert len(stub.requests) == sent + 1  # only the unjudged row was asked again
    report = json.loads((out / "scores.json").read_text())
    assert report["complete"] is True and report["accuracy"] == pytest.approx(4 / 6)
    assert report["judge_usage"]["cache_hits"] == 1 and "accuracy_lower" not in report


def test_judge_that_times_out(mpvqa_dir, tmp_path, capsys, monkeypatch):  # noqa: F811
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    preds = write_jsonl(tmp_path / "m.jsonl", [{"id": k, "response": v} for k, v in ANSWERS.items()])
    out, cache = tmp_path / "out", tmp_path / "cache"
    with StubServer(reply=lambda body: "yes") as stub:
        # both requests: five rate limits, then a reply that never comes within the timeout
        stub.script.extend(([("429", 0)] * 5 + [("hang", 5)]) * 2)
        assert multipanel(judge_cmd(preds, mpvqa_dir, out, stub, cache, "--judge-timeout", "0.5")) == 1
        report = json.loads((out / "scores.json").read_text())
        assert report["unjudged"] == 2 and report["complete"] is False
        assert any("Timeout" in e for e in report["judge_errors"])
        assert (report["accuracy_lower"], report["accuracy_upper"]) == (pytest.approx(2 / 6), pytest.approx(4 / 6))
        capsys.readouterr()
        assert multipanel(judge_cmd(preds, mpvqa_dir, out, stub, cache)) == 0
    assert json.loads((out / "scores.json").read_text())["accuracy"] == pytest.approx(4 / 6)


def test_dicobench_score_of_failed_model_calls(dicobench_dir, tmp_path, capsys):  # noqa: F811
    rows = [{"id": f"{t}-{i}", "response": "ABCDE"[i], "error": None}
            for t in ("attribute", "spatial_relation", "instance") for i in range(4)]
    rows[0] = {"id": "attribute-0", "response": None, "error": "RateLimitError: rate limited"}
    preds = write_jsonl(tmp_path / "p.jsonl", rows)
    code = run("dicobench", "test", [register_dicobench], ["score", str(preds), "--dataset", str(dicobench_dir),
                                                          "--out", str(tmp_path / "o"), "--n-boot", "20"])
    assert code == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "rerun eval with the same --out" in err[0]
    report = json.loads((tmp_path / "o" / "scores.json").read_text())
    assert report["complete"] is False and report["unscored"] == 1
    assert (report["accuracy_lower"], report["accuracy_upper"]) == (pytest.approx(11 / 12), 1.0)
    assert report["unparsed_rate"] == 0.0  # a failed call is not an unreadable answer


def png(size=64) -> dict:
    buf = io.BytesIO()
    Image.new("RGB", (size, size), (20, 120, 200)).save(buf, format="PNG")
    return {"bytes": buf.getvalue(), "path": None}


def test_eval_with_failing_model_writes_incomplete_scores_then_completes(tmp_path, capsys):
    rows = [{"id": f"img0-q1-{k}", "image": png(), "question_type": "q1", "question": f"Is there a cat? ({k})",
             "answer": "no", "choices": [], "subset": "synthetic", "source": "procedural_scene",
             "augmentation": "original", "layout_id": 0, "layout_style": "grid_same", "num_subfigures": 2,
             "subfigures": [{"bbox": [0, 0, 32, 32], "position": "left", "source_id": "s"}] * 2,
             "target_index": 0, "seed": 0} for k in range(3)]
    root = tmp_path / "mpv"
    write_layout(root, {"original": rows}, multipanel_features())
    out = tmp_path / "run"
    argv = ["eval", "--dataset", str(root), "--model", "openai:stub", "--out", str(out), "--concurrency", "1",
            "--quiet"]
    with StubServer(reply=lambda body: "No.") as stub:
        stub.script.extend([("ok", "No.")] + FAIL)
        assert run("multipanelvqa", "t", [register_multipanel_eval], argv + ["--base-url", stub.base_url]) == 1
        report = json.loads((out / "scores.json").read_text())
        assert report["complete"] is False and report["failed"] == 1
        assert (report["accuracy_lower"], report["accuracy_upper"]) == (pytest.approx(2 / 3), 1.0)
        run_json = json.loads((out / "run.json").read_text())
        assert run_json["provenance"]["model"] == "openai:stub" and run_json["provenance"]["prompt_hash"]
        assert run("multipanelvqa", "t", [register_multipanel_eval], argv + ["--base-url", stub.base_url]) == 0
    report = json.loads((out / "scores.json").read_text())
    assert report["complete"] is True and report["accuracy"] == 1.0
    assert report["provenance"]["model"] == "openai:stub" and report["provenance"]["name"] == "openai:stub"
    assert report["provenance"]["prompt_hash"] == run_json["provenance"]["prompt_hash"]


def test_unreachable_judge_never_inflates(mpvqa_dir, tmp_path, capsys, monkeypatch):  # noqa: F811
    import socket

    import dicobench.kit.eval.chat

    monkeypatch.setattr(dicobench.kit.eval.chat.time, "sleep", lambda seconds: None)  # no backoff waits in this test
    with socket.socket() as s:  # a port nobody listens on: every request is refused
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    preds = write_jsonl(tmp_path / "m.jsonl", [{"id": k, "response": v} for k, v in ANSWERS.items()])
    code = multipanel(["score", str(preds), "--dataset", str(mpvqa_dir), "--out", str(tmp_path / "o"), "--judge",
                       "openai:j", "--judge-base-url", f"http://127.0.0.1:{port}/v1", "--judge-cache",
                       str(tmp_path / "c"), "--n-boot", "20"])
    assert code == 1
    report = json.loads((tmp_path / "o" / "scores.json").read_text())
    # rules settle 4 rows (2 right); leaving the 2 unjudged out would report 2/4 = 50%
    assert report["unjudged"] == 2 and "APIConnectionError" in report["judge_errors"][0]
    assert (report["accuracy_lower"], report["accuracy_upper"]) == (pytest.approx(2 / 6), pytest.approx(4 / 6))
