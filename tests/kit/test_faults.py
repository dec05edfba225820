"""Numbers that survive faults (issue 35): no answer lost, no run mixed with another dataset,
tampering caught, and one line instead of a traceback for each hostile case."""

import json

import datasets
import pytest

from dicobench.cli.main import main as dicobench
from dicobench.schema import LETTERS, prompt_text
from openai_stub import StubServer

SEPARATORS = "\u2028\u2029\u0085"


def records(path):
    return [json.loads(line) for line in path.read_text(encoding="utf-8").split("\n") if line]


def eval_argv(dataset, out, stub, *extra):
    return ["eval", "--dataset", str(dataset), "--model", "openai:stub", "--out", str(out), "--base-url",
            stub.base_url, "--api-key", "k", "--concurrency", "1", "--quiet", "--limit", "1", *extra]


def test_replies_with_unicode_line_separators_survive_resume_score_and_import(small_build, tmp_path):
    out = tmp_path / "run"
    with StubServer(lambda body: f"A{SEPARATORS}B") as stub:
        assert dicobench(eval_argv(small_build, out, stub)) == 0
        asked = len(stub.requests)
        assert dicobench(eval_argv(small_build, out, stub)) == 0
        assert len(stub.requests) == asked  # the resume kept every answer: nothing asked twice
    assert all(r["response"] == f"A{SEPARATORS}B" for r in records(out / "predictions.jsonl"))
    assert dicobench(["score", str(out / "predictions.jsonl"), "--dataset", str(small_build), "--out",
                      str(tmp_path / "s")]) == 0
    samples = tmp_path / "2024_samples_dicobench_entity.jsonl"
    samples.write_text("".join(json.dumps({"doc_id": i, "filtered_resps": [f"B{SEPARATORS}"]}, ensure_ascii=False)
                               + "\n" for i in range(2)), encoding="utf-8")
    assert dicobench(["import", "lmms-eval", str(samples), "--dataset", str(small_build), "--out",
                      str(tmp_path / "p.jsonl")]) == 0
    assert [r["response"] for r in records(tmp_path / "p.jsonl")] == [f"B{SEPARATORS}"] * 2
