"""The `evaluate` modules load offline from the repo and give exactly the packages' results."""

from pathlib import Path

import evaluate
import pytest

import dicobench.scoring
import multipanelvqa.scoring
from dicobench.kit.eval.judge import Judge
from openai_stub import StubServer

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
    assert got == dicobench.scoring.score(preds, refs, **kw)
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
    assert got == want
    assert got["accuracy"] == 0.75 and got["judged"] == 2
