"""The judge's error analysis of DiCoBench answers (describe mode) against a 127.0.0.1 judge:
only wrong answers are sent, with the row's cues; replies are cached; failures stay unjudged."""

import json

import pytest
from openai_stub import StubServer

from dicobench.cli.eval import register as register_eval
from dicobench.cli.score import register
from dicobench.error_judge import judge_prompt, judge_type
from dicobench.kit.cli.commands import run
from tests.dicobench.test_score_cli import dicobench_dir, write_jsonl  # noqa: F401 (fixture)


@pytest.mark.parametrize("reply,expected", [("missed_cue", "missed_cue"), ("Missed cue.", "missed_cue"),
                                            ("ex-nihilo", "ex_nihilo"), ("wrong_option", "wrong_option"),
                                            ("Miscellaneous", "miscellaneous"), ("missed_cue or wrong_option", None),
                                            ("I don't know", None), (None, None)])
def test_judge_type(reply, expected):
    assert judge_type(reply) == expected


def test_prompt_carries_question_options_cues_and_reply():
    text = judge_prompt("What differs?", ["a", "b", "c", "d", "none"], "B", "E", "Both are the same. Answer: E",
                        ["the mug on the left turned blue"])
    assert "Correct answer: B. Where the visual cue is: the mug on the left turned blue" in text
    assert "E. none" in text and "then its answer E" in text and "Both are the same. Answer: E" in text


def reply(body):
    prompt = body["messages"][0]["content"]
    return "missed_cue" if "Correct answer: A" in prompt else "wrong_option"


def test_score_with_judge_classifies_wrong_answers_only(dicobench_dir, tmp_path, capsys, monkeypatch):  # noqa: F811
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    # the fixture's answers are A, B, C, D per task; wrong here: attribute-0 (E), attribute-1 (C), instance-0 (D)
    answers = {"attribute": ["I see no change. Answer: E", "Answer: C", "Answer: C", "Answer: D"],
               "spatial_relation": ["Answer: A", "Answer: B", "Answer: C", "Answer: D"],
               "instance": ["The lamp. Answer: D", "Answer: B", "Answer: C", "Answer: D"]}
    preds = write_jsonl(tmp_path / "p.jsonl", [{"id": f"{t}-{i}", "response": r} for t, rs in answers.items()
                                               for i, r in enumerate(rs)])
    argv = ["score", str(preds), "--dataset", str(dicobench_dir), "--out", str(tmp_path / "o"), "--n-boot", "20",
            "--judge", "openai:j", "--judge-cache", str(tmp_path / "cache")]
    with StubServer(reply=reply) as stub:
        stub.script.extend([("429", 0)] * 18)  # all three requests fail through every retry
        assert run("dicobench", "t", [register], argv + ["--judge-base-url", stub.base_url]) == 0
        first = json.loads((tmp_path / "o" / "scores.json").read_text())["judge_error_types"]
        assert first["overall"]["errors"] == 3 and first["overall"]["unjudged"] == 3
        assert first["rows"] == {"attribute-0": None, "attribute-1": None, "instance-0": None}  # each, by id
        assert first["judge_errors"] and "RateLimitError" in first["judge_errors"][0]
        assert len(stub.requests) == 18
        assert run("dicobench", "t", [register], argv + ["--judge-base-url", stub.base_url]) == 0
        assert len(stub.requests) == 21  # the judge recovered: each error asked once more
        assert run("dicobench", "t", [register], argv + ["--judge-base-url", stub.base_url]) == 0
        assert len(stub.requests) == 21  # now all from the cache
        prompts = [r["body"]["messages"][0]["content"] for r in stub.requests]
    assert all("Options:\nA. red cup" in p for p in prompts)
    report = json.loads((tmp_path / "o" / "scores.json").read_text())
    judged = report["judge_error_types"]
    # attribute-0 (answer A) -> missed_cue; attribute-1 (B) and instance-0 (A) -> by the stub's rule
    assert judged["overall"] == {"missed_cue": 2, "ex_nihilo": 0, "wrong_option": 1, "miscellaneous": 0,
                                 "errors": 3, "unjudged": 0}
    assert judged["per_task"]["attribute"]["missed_cue"] == 1 and judged["per_task"]["instance"]["missed_cue"] == 1
    assert judged["rows"] == {"attribute-0": "missed_cue", "attribute-1": "wrong_option", "instance-0": "missed_cue"}
    assert report["error_types"]["overall"]["missed_cue"] == 1  # the rule-based types beside them
    assert report["provenance"]["judge"] == "openai:j"
    assert (tmp_path / "o" / "judge_error_types.png").exists()
    assert "judge openai:j: missed cue 2" in capsys.readouterr().out


def test_eval_passes_the_judge_on(tmp_path):
    import argparse

    parser = argparse.ArgumentParser()
    register_eval(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["eval", "--dataset", "d", "--model", "openai:m", "--out", str(tmp_path), "--mode",
                              "describe", "--judge", "openai:j", "--judge-base-url", "http://127.0.0.1:1/v1"])
    from dicobench.kit.cli.scoring import judge_from_args

    judge = judge_from_args(args)
    assert ((judge.spec, judge.base_url, judge.api_key, judge.cache)
            == ("openai:j", "http://127.0.0.1:1/v1", None, None))
