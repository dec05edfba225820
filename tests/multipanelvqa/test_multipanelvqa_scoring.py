"""MultipanelVQA scoring: rules, the paper's judge prompts against a local stub, unjudged rows."""

import pytest
from openai_stub import StubServer

from dicobench.kit.eval.judge import Judge
from multipanelvqa.scoring import PROMPT_ANSWER, judge_prompt, judge_verdict, normalise, rule_verdict, score

POS = ["top left", "top right", "bottom left", "bottom right"]


@pytest.mark.parametrize(
    "pred,ref,qtype,expected",
    [
        ("Yes, every subfigure has a dog.", "yes", "q1", True),
        ("No.", "yes", "q1", False),
        ("All of them show a dog", "yes", "q1", None),
        ("Two", "2", "q2", True),
        ("There are three cats.", "2", "q2", False),
        ("The umbrella.", "umbrella", "q2", True),
        ("It is a red umbrella", "umbrella", "q2", None),
        ("b) top right", "b", "q3", True),
        ("(a)", "a", "q3", True),
        ("The subfigure at the bottom right", "d", "q3", True),
        ("c", "a", "q3", False),
        ("a or b", "a", "q3", None),
        ("", "yes", "q1", False),
        (None, "b", "q3", False),
        ("the", "a", "q3", None),
    ],
)
def test_rules(pred, ref, qtype, expected):
    assert rule_verdict(pred, ref, qtype, POS) is expected


def test_normalise():
    assert normalise("The Two  red cars!") == "2 red cars"
    assert normalise("3.5 m.") == "3.5 m"


def test_judge_prompts_are_the_papers():
    q12 = judge_prompt("What is in the top subfigure?", "a cat", "cat", "q2")
    assert q12 == PROMPT_ANSWER.format(question="What is in the top subfigure?", output="a cat", gt="cat")
    assert "Does the first one contain all key information in the second one? (yes/no)" in q12
    q3 = judge_prompt("Which subfigure shows a cat?", "the right one", "b", "q3", POS)
    assert "Model predicted answer: the right one" in q3 and "Ground truth: b" in q3
    assert "b. top right" in q3 and "(please answer yes/no)" in q3


@pytest.mark.parametrize("reply,expected", [("Yes", True), ("no.", False), ("Yes, it is.", True), ("maybe", None),
                                            (None, None), ("", None)])
def test_judge_verdict(reply, expected):
    assert judge_verdict(reply) is expected


def test_rules_only_counts_undecided_as_wrong():
    r = score(["Yes", "It is a red umbrella"], ["yes", "umbrella"], ["q?", "q?"], ["q1", "q2"])
    assert r["accuracy"] == 0.5 and r["rule_undecided"] == 1 and r["judge"] is None and r["unjudged"] == 0
    assert r["per_question_type"]["q2"]["accuracy"] == 0.0


def judge_reply(body):
    prompt = body["messages"][0]["content"]
    return "Yes." if "umbrella" in prompt else "No"


def test_judge_only_for_mismatches_with_the_paper_prompts_and_cache(tmp_path):
    preds = ["Yes", "It is a red umbrella", "the left one", "It is a bicycle"]
    refs = ["yes", "umbrella", "a", "car"]
    questions = ["Do all subfigures have a dog?", "What is in the top subfigure?", "Which subfigure?", "What?"]
    kw = dict(choices=[[], [], POS, []], augmentations=["original", "original", "chessboard", "chessboard"],
              subsets=[0, 0, 0, 1])
    with StubServer(reply=judge_reply) as stub:
        judge = Judge.from_spec("openai:judge-1", base_url=stub.base_url, api_key="sk-x", cache=tmp_path)
        r = score(preds, refs, questions, ["q1", "q2", "q3", "q2"], judge, **kw)
        assert len(stub.requests) == 3  # the rule-correct "Yes" was not sent
        sent = [req["body"]["messages"][0]["content"] for req in stub.requests]
        assert any(s.startswith("For question: What is in the top subfigure?\nCompare the following answers:")
                   for s in sent)
        assert any("Model predicted answer: the left one" in s for s in sent)
        assert r["judge"] == "openai:judge-1" and r["judged"] == 3 and r["unjudged"] == 0
        assert r["judge_rows"] == {1: True, 2: False, 3: False}  # each row asked, by position
        assert r["accuracy"] == 0.5  # yes (rule) + umbrella (judge); the left one, bicycle: judged wrong
        assert r["per_augmentation"]["original"]["accuracy"] == 1.0
        assert r["per_subset"]["real_world"]["accuracy"] == 0.0
        assert r["judge_usage"]["requests"] == 3
        again = score(preds, refs, questions, ["q1", "q2", "q3", "q2"], judge, **kw)
        assert len(stub.requests) == 3 and again["judge_usage"]["cache_hits"] == 3
        assert again["accuracy"] == r["accuracy"]


def test_judge_failures_are_unjudged_not_wrong(tmp_path):
    preds = ["It is a red umbrella", "A bicycle, probably", "Yes"]
    refs = ["umbrella", "car", "yes"]
    with StubServer(reply=judge_reply) as stub:
        stub.script.extend([("429", 0)] * 20)  # every judge request is rate limited, through all retries
        r = score(preds, refs, ["q"] * 3, ["q2", "q2", "q1"],
                  judge=Judge.from_spec("openai:j", base_url=stub.base_url, api_key="sk-x", cache=tmp_path, timeout=5))
    assert r["unjudged"] == 2 and r["judged"] == 0 and r["scored"] == 1
    assert r["judge_rows"] == {0: None, 1: None}
    # incomplete: no single accuracy; the unjudged rows bound it (counted wrong, then right)
    assert r["complete"] is False and r["unscored"] == 2 and "accuracy" not in r
    assert r["accuracy_lower"] == pytest.approx(1 / 3) and r["accuracy_upper"] == 1.0
    assert r["judge_errors"] and "RateLimitError" in r["judge_errors"][0]


def test_bad_question_type():
    with pytest.raises(ValueError, match="unknown question type 'q9'"):
        score(["yes"], ["yes"], ["q"], ["q9"])


def test_columns_are_checked_once_into_one_table():
    from multipanelvqa.scoring import Answers, decide

    rows = Answers.checked(["yes", None], ["yes", "no"], ["q", "q"], [0, "q3"], subsets=[1, "synthetic"],
                           layout_styles=["splash", 2], num_subfigures=[3.0, 8], failed=[False, True],
                           choices=[["a", "b"], ["c"]])
    assert len(rows) == 2 and rows.question_types == ("q1", "q3") and rows.subsets == ("real_world", "synthetic")
    assert rows.layout_styles == ("splash", "grid_mixed") and rows.num_subfigures == ("3", "8")
    assert rows.answered == (True, False) and rows.choices == (("a", "b"), ("c",)) and rows.augmentations is None
    assert Answers.checked(["x"], ["y"], ["q"], ["q2"]).choices == ((),)
    with pytest.raises(ValueError, match="ids has 1 entries for 2 predictions"):
        Answers.checked(["a", "b"], ["a", "b"], ["q", "q"], ["q1", "q1"], ids=["x"])
    with pytest.raises(ValueError, match="unknown layout style 'spiral'"):
        score(["yes"], ["yes"], ["q"], ["q1"], layout_styles=["spiral"])
    # decide reads the same table: a column of another length is refused, not cut short by zip
    with pytest.raises(ValueError, match="references has 1 entries for 2 predictions"):
        decide(["yes", "no"], ["yes"], ["q", "q"], ["q1", "q1"])
    assert decide(["yes", "no", None], ["yes", "yes", "no"], ["q"] * 3, ["q1"] * 3, failed=[False, False, True]) \
        == [True, False, None]


def test_a_bad_panel_count_is_refused_before_the_judge_is_asked(tmp_path):
    with StubServer() as stub:
        judge = Judge.from_spec("openai:j", base_url=stub.base_url, api_key="sk-x", cache=tmp_path, timeout=5)
        with pytest.raises(ValueError, match="invalid literal for int"):
            score(["All of them show a dog"], ["yes"], ["q"], ["q1"], judge, num_subfigures=["many"])
    assert stub.served == 0
