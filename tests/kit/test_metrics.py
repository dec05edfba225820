"""The `evaluate` modules load offline from the repo and give exactly the packages' results."""

from pathlib import Path

import evaluate
import numpy as np
import pytest
from openai_stub import StubServer

import dicobench.scoring
import multipanelvqa.scoring
from dicobench.kit.eval.completeness import as_metric
from dicobench.kit.eval.judge import Judge

METRICS = Path(__file__).resolve().parents[2] / "metrics"


@pytest.fixture(scope="module")
def dicobench_metric():
    return evaluate.load(str(METRICS / "dicobench_accuracy"))


@pytest.fixture(scope="module")
def multipanel_metric():
    return evaluate.load(str(METRICS / "multipanelvqa_accuracy"))


def test_dicobench_module_matches_score(dicobench_metric):
    preds = ["The answer is (B).", "e", "I can't tell", "<answer>C</answer>", "A dog", "D"]
    refs = ["B", "E", "A", "C", "D", "E"]
    kw = dict(tasks=["attribute", "instance", "entity", "category", "attribute", "instance"],
              options=[["red cup", "blue lamp", "green clock", "A dog", "none"]] * 6,
              clusters=["s1", "s1", "s2", "s2", "s3", "s3"])
    got = dicobench_metric.compute(predictions=preds, references=refs, **kw)
    assert got == as_metric(dicobench.scoring.score(preds, refs, **kw))
    assert got["accuracy"] == pytest.approx(4 / 6) and set(got["per_track"]) == {"difference", "commonality"}


def test_dicobench_module_accepts_classlabel_indices(dicobench_metric):
    assert dicobench_metric.compute(predictions=["B", "E"], references=[1, 0])["accuracy"] == 0.5


def test_dicobench_module_rejects_mismatched_optional_inputs(dicobench_metric):
    with pytest.raises(ValueError, match="tasks has 1 entries for 2 predictions"):
        dicobench_metric.compute(predictions=["B", "C"], references=["B", "C"], tasks=["attribute"])


def test_multipanelvqa_module_matches_score_with_judge(multipanel_metric, tmp_path):
    preds = ["Yes", "A red umbrella", "(b)", "no idea"]
    refs = ["yes", "umbrella", "b", "car"]
    questions = ["Do all have a dog?", "What is top left?", "Which shows a cat?", "What is bottom?"]
    with StubServer(reply=lambda body: "yes" if "umbrella" in body["messages"][0]["content"] else "no") as stub:
        kw = dict(judge="openai:j", judge_base_url=stub.base_url, judge_api_key="sk-k", cache_dir=tmp_path,
                  augmentations=["original"] * 4)
        got = multipanel_metric.compute(predictions=preds, references=refs, questions=questions,
                                        question_types=[0, 1, 2, 1], **kw)
        judge = Judge.from_spec("openai:j", base_url=stub.base_url, api_key="sk-k", cache=tmp_path)
        want = multipanelvqa.scoring.score(preds, refs, questions, ["q1", "q2", "q3", "q2"], judge,
                                           augmentations=kw["augmentations"])
    assert want["judge_usage"]["cache_hits"] == 2  # the second run was answered from the cache
    got.pop("judge_usage"), want.pop("judge_usage")  # request counts differ: the first run filled the cache
    assert got == as_metric(want)
    assert got["accuracy"] == 0.75 and got["judged"] == 2


def plain(value, path="result"):
    """Every value of a metric result in Python's own types, as `evaluate` users expect; the paths that are not."""
    if isinstance(value, dict):
        return [p for k, v in value.items() for p in plain(v, f"{path}.{k}")]
    if isinstance(value, list):
        return [p for i, v in enumerate(value) for p in plain(v, f"{path}[{i}]")]
    return [] if value is None or type(value) in (bool, int, float, str) else [f"{path}: {type(value).__name__}"]


def test_metric_results_always_carry_accuracy_as_plain_floats(dicobench_metric, multipanel_metric):
    got = dicobench_metric.compute(predictions=["B", "E", None], references=["B", "A", "C"],
                                   tasks=["attribute", "entity", "entity"], failed=[False, False, True], n_boot=20)
    assert got["complete"] is False and got["accuracy"] is None  # present, not missing, beside its bounds
    assert (got["accuracy_lower"], got["accuracy_upper"]) == (pytest.approx(1 / 3), pytest.approx(2 / 3))
    assert got["strict_accuracy"] is None and got["task_mean_accuracy"] is None
    assert got["per_task"]["entity"]["accuracy"] is None and got["per_task"]["attribute"]["accuracy"] == 1.0
    assert plain(got) == []  # unparsed_rate was a numpy float
    complete = dicobench_metric.compute(predictions=["B", "E"], references=["B", "A"], n_boot=20)
    assert complete["accuracy"] == 0.5 and "accuracy_lower" not in complete and plain(complete) == []
    mpv = multipanel_metric.compute(predictions=["yes", None], references=["yes", "no"], questions=["q", "q"],
                                    question_types=["q1", "q1"], failed=[False, True], n_boot=20)
    assert mpv["accuracy"] is None and mpv["accuracy_lower"] == 0.5 and plain(mpv) == []


def test_metric_results_are_plain_even_when_scoring_gives_numpy():
    assert as_metric({"a_lower": np.float64(0.5), "a_upper": 1.0, "n": np.int64(3), "ci": (np.float32(0.25), 1.0),
                      "groups": [{"ok": np.bool_(True)}]}) == \
        {"a": None, "a_lower": 0.5, "a_upper": 1.0, "n": 3, "ci": [0.25, 1.0], "groups": [{"ok": True}]}


@pytest.mark.parametrize("references", [["B", "Z"], [1, "Z"], ["Z", 1]])
def test_a_bad_reference_is_named(dicobench_metric, references):
    with pytest.raises(ValueError, match="reference 'Z' is not one of A, B, C, D, E"):
        dicobench_metric.compute(predictions=["B", "B"], references=references)


def test_letters_and_indices_mix_in_references(dicobench_metric):
    assert dicobench_metric.compute(predictions=["B", "E"], references=[1, "E"], n_boot=20)["accuracy"] == 1.0
    dicobench_metric.add(prediction="C", reference=2)
    dicobench_metric.add(prediction="A", reference="b")
    assert dicobench_metric.compute(n_boot=20)["accuracy"] == 0.5


@pytest.mark.parametrize("name", ["dicobench_metric", "multipanel_metric"])
def test_the_modules_examples_run_as_doctests(name, request):
    """As `evaluate`'s own tests run each metric's examples: the module's doctests, as loaded."""
    import doctest
    import sys

    module = sys.modules[type(request.getfixturevalue(name)).__module__]
    result = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted >= 3 and result.failed == 0
