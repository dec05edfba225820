"""A scored MultipanelVQA run read back row by row: rules, then the judge's recorded verdicts,
in the HTML report and the results explorer (API level; the page code is the one the DiCoBench
browser tests drive)."""

from __future__ import annotations

import itertools
import json
import urllib.request

import pytest
from openai_stub import StubServer

import multipanelvqa
from dicobench.kit.eval.judge import Judge
from dicobench.kit.eval.report import write_report
from dicobench.kit.eval.runs import check_reproduces, read_run
from multipanelvqa.benchmark import BENCHMARK
from multipanelvqa.build import build
from multipanelvqa.cli.main import main as multipanelvqa_cli
from multipanelvqa.outcomes import row_outcomes

MARKUP = "It is the <b>red</b> heap, I think"  # no rule settles it (no colour, count or yes/no alone): the judge does
HEDGES = ("surely", "probably", "perhaps", "surely")  # the judge's yes, no, neither (unjudged), yes


def model(images, prompt, asked=itertools.count()):
    """Q1 (yes/no) "Yes.", Q3 (a letter) "(b)", Q2 a free answer only a judge can settle, hedged in turn."""
    if "yes/no" in prompt:
        return "Yes."
    return "(b)" if "select one" in prompt.lower() else f"{MARKUP}, {HEDGES[next(asked) % len(HEDGES)]}"


def judge(body):
    prompt = body["messages"][0]["content"]
    return "yes" if "surely" in prompt else "no" if "probably" in prompt else "hmm"


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    root = tmp_path_factory.mktemp("mpv")
    bench = root / "bench"
    build(bench, layouts="6,7", sources="procedural_edit", configs="original,chessboard", images_per_shard=2,
          num_proc=1, progress=False)
    multipanelvqa.evaluate(bench, model, config="all", out=root / "rules", name="rules")
    with StubServer(judge) as stub:
        report = multipanelvqa.score_predictions(
            root / "rules" / "predictions.jsonl", bench, name="judged", n_boot=200,
            judge=Judge.from_spec("openai:j", base_url=stub.base_url, api_key="sk-test", cache=root / "cache"))
    write_report(report, root / "judged")
    return bench, root / "rules", root / "judged"


def test_each_row_as_the_rules_and_the_judge_decided_it(runs):
    bench, rules, judged = runs
    plain = row_outcomes(read_run(rules, "multipanelvqa"), str(bench))
    rows = row_outcomes(run := read_run(judged, "multipanelvqa"), str(bench))
    check_reproduces(run, rows)  # the same right answers as scores.json records
    assert [r.id for r in rows] == [r.id for r in plain] and len(rows) == run.scores["n"]
    settled = [r for r in rows if not r.unparsed]
    assert settled and all(r.read in ("yes", "b") and r.judge is None for r in settled)
    asked = [r for r in rows if r.unparsed]
    assert {r.response for r in asked} == {f"{MARKUP}, {h}" for h in HEDGES} and all(r.read is None for r in asked)
    verdicts = run.scores["judge_rows"]
    assert set(verdicts) == {r.id for r in asked}
    for r in asked:
        expected = {True: ("right", "right"), False: ("wrong", "wrong"),
                    None: ("unscored", "unjudged")}[verdicts[r.id]]
        assert (r.outcome, r.judge) == expected
        assert r.error_type == ("wrong_by_judge" if r.outcome == "wrong" else None)
        assert r.unscored == ("unjudged" if r.outcome == "unscored" else None)
    assert {r.outcome for r in asked} == {"right", "wrong", "unscored"}  # the stub gave each verdict
    # without a judge the same rows are wrong, unsettled
    assert all((p.outcome, p.error_type) == ("wrong", "unsettled") for p in plain if p.unparsed)
    assert {r.group for r in rows} == {"original", "chessboard"}


def test_the_report_and_the_explorer_show_the_judged_rows(runs, tmp_path):
    from dicobench.kit.people.webapp.launch import results

    bench, rules, judged = runs
    page = tmp_path / "r.html"
    assert multipanelvqa_cli(["report", str(judged), "--out", str(page), "--sample", "50"]) == 0
    text = page.read_text()
    assert multipanelvqa_cli(["report", str(judged), "--out", str(tmp_path / "again.html"), "--sample", "50"]) == 0
    assert (tmp_path / "again.html").read_text() == text  # the same run, the same bytes
    wrong = [r for r in row_outcomes(read_run(judged, "multipanelvqa"), str(bench)) if r.outcome == "wrong"]
    assert text.count('<div class="card">') == len(wrong)
    assert text.count('alt="Multipanel image"') == len(wrong)  # the composite, a thumbnail per card
    assert "wrong by judge" in text and "judge: wrong" in text and "judge's verdict" in text
    assert MARKUP not in text and "It is the &lt;b&gt;red&lt;/b&gt; heap" in text  # replies escaped
    assert "<script" not in text.lower()
    served = results(BENCHMARK.people, BENCHMARK.results, bench, [judged, rules], port=0, background=True,
                     announce=lambda line: None)
    try:
        page = urllib.request.urlopen(served.url, timeout=10).read().decode()
        settings = json.loads(page.split("window.SETTINGS = ")[1].split(";</script>")[0])
        assert settings["error_types"] == ["no_answer", "wrong_by_rules", "wrong_by_judge", "unsettled"]
        assert [r["name"] for r in settings["runs"]] == ["judged", "rules"]
        listing = json.loads(urllib.request.urlopen(served.url + "api/rows", timeout=10).read())["rows"]
        one = next(r for r in listing if r["runs"][0]["judge"] == "wrong")
        assert one["runs"][1]["outcome"] == "wrong" and one["runs"][1]["error_type"] == "unsettled"
        row = json.loads(urllib.request.urlopen(served.url + f"api/row/{one['id']}", timeout=10).read())
        assert row["runs"][0]["response"] == f"{MARKUP}, probably" and row["runs"][0]["error_type"] == "wrong_by_judge"
        assert len(urllib.request.urlopen(served.url + f"image/{one['id']}/0?v={row['version']}",
                                          timeout=10).read()) > 1000
    finally:
        served.stop()
