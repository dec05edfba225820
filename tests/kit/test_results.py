"""Scored runs read back row by row: the per-row outcomes reproduce `score`, the one-file HTML
report (`report`, `score --html`) and the results explorer (`review --predictions`) in Chromium,
from two runs of a stub model on the tiny build (one scored with a stub judge)."""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from browser import chromium, save_screenshot, wait_for
from openai_stub import StubServer

import dicobench
from dicobench.benchmark import BENCHMARK
from dicobench.cli.main import main as dicobench_cli
from dicobench.kit.eval.judge import Judge
from dicobench.kit.eval.runs import read_run
from dicobench.outcomes import row_outcomes

XSS = '<script>window.__xss=1</script><img src=x onerror="window.__xss=2"> I cannot tell.'
ROOT = Path(__file__).resolve().parents[2]


def stub_model(salt: str):
    """A deterministic model: a letter from a hash of the prompt, or (one time in five) a reply with
    markup and no letter, which reads as nothing (unparsed, wrong)."""

    def model(images, prompt):
        pick = hashlib.sha256((salt + prompt).encode()).digest()[0]
        return XSS if pick % 5 == 0 else f"The images differ in one place. The answer is ({'ABCDE'[pick % 5]})."

    return model


def judge_reply(body):
    prompt = body["messages"][0]["content"]
    return ("missed_cue", "wrong option", "Oui")[hashlib.sha256(prompt.encode()).digest()[0] % 3]


@pytest.fixture(scope="module")
def runs(small_build, tmp_path_factory):
    """Run A (scored with a stub judge of the error types) and run B, as `eval --out` writes them."""
    root = tmp_path_factory.mktemp("runs")
    with StubServer(judge_reply) as stub:
        judge = Judge.from_spec("openai:judge", base_url=stub.base_url, api_key="sk-test", cache=root / "cache")
        dicobench.evaluate(small_build, stub_model("a"), out=root / "a", name="stub-a", judge=judge)
    dicobench.evaluate(small_build, stub_model("b"), out=root / "b", name="stub-b")
    return root / "a", root / "b"


def test_the_rows_reproduce_the_scores_and_the_judges_verdicts(runs, small_build):
    run = read_run(runs[0], "dicobench")
    rows = row_outcomes(run, str(small_build))
    scores = run.scores
    assert len(rows) == scores["n"] == 16
    assert sum(r.outcome == "right" for r in rows) == round(scores["accuracy"] * 16)
    for kind in ("missed_cue", "ex_nihilo", "wrong_option", "unparsed"):
        assert sum(r.error_type == kind for r in rows) == scores["error_types"]["overall"][kind]
    assert sum(r.unparsed for r in rows) == scores["error_types"]["overall"]["unparsed"] > 0
    assert all(r.response == XSS for r in rows if r.unparsed)
    judged = scores["judge_error_types"]
    assert set(judged["rows"]) == {r.id for r in rows if r.outcome == "wrong"}  # every wrong row, by id
    verdicts = [r.judge for r in rows if r.judge]
    assert verdicts.count("unjudged") == judged["overall"]["unjudged"] > 0
    assert verdicts.count("missed_cue") == judged["overall"]["missed_cue"] > 0


def test_a_changed_predictions_file_or_another_benchmark_is_refused(runs, small_build, tmp_path, capsys):
    copy = tmp_path / "a"
    shutil.copytree(runs[0], copy)
    lines = (copy / "predictions.jsonl").read_text().splitlines()
    flipped = [json.dumps({**json.loads(line), "response": "(A)" if "(A)" not in line else "(B)"}) for line in lines]
    (copy / "predictions.jsonl").write_text("\n".join(flipped) + "\n")
    assert dicobench_cli(["report", str(copy), "--out", str(tmp_path / "r.html")]) == 2
    assert "the predictions or the dataset changed since it was scored" in capsys.readouterr().err
    assert dicobench_cli(["report", str(tmp_path), "--out", str(tmp_path / "r.html")]) == 2
    assert "holds no scores.json" in capsys.readouterr().err
    scores = json.loads((runs[1] / "scores.json").read_text())
    (copy / "scores.json").write_text(json.dumps({**scores, "benchmark": "multipanelvqa"}))
    assert dicobench_cli(["report", str(copy), "--out", str(tmp_path / "r.html")]) == 2
    err = capsys.readouterr().err
    assert "holds scores of 'multipanelvqa', not dicobench" in err and len(err.splitlines()) == 1
    assert not (tmp_path / "r.html").exists()


def test_the_report_opens_offline_in_chromium(runs, tmp_path):
    page = tmp_path / "report.html"
    assert dicobench_cli(["report", str(runs[0]), str(runs[1]), "--out", str(page), "--sample", "40"]) == 0
    text = page.read_text()
    assert not re.search(r"""(src|href)=["'](?!data:|#)""", text)  # every image inlined, no link out
    scores = [json.loads((run / "scores.json").read_text()) for run in runs]
    wrong = [s["error_types"]["overall"]["errors"] for s in scores]
    driver = chromium(1600, 1000)
    try:
        driver.get(page.as_uri())
        wait_for(driver, "document.readyState == 'complete'")
        fetched = driver.execute_script("return performance.getEntriesByType('resource').map(e => e.name)")
        assert all(name.startswith("data:") for name in fetched), fetched
        images = driver.execute_script("return [...document.images].map(i => [i.complete, i.naturalWidth, i.alt])")
        assert images and all(done and width > 0 for done, width, _ in images)
        charts = driver.execute_script("return [...document.querySelectorAll('.charts figcaption')]"
                                       ".map(f => f.textContent)")
        assert charts == ["per_task.png", "radar.png", "error_types.png", "judge_error_types.png",
                          "per_task.png", "radar.png", "error_types.png"]
        cards = driver.execute_script("return [...document.querySelectorAll('section.run')].slice(1)"
                                      ".map(s => s.querySelectorAll('.card').length)")
        assert cards == wrong  # --sample 40: every wrong row of each run
        assert driver.execute_script("return document.querySelectorAll('script').length") == 0
        assert driver.execute_script("return window.__xss") is None
        replies = driver.execute_script("return [...document.querySelectorAll('.card pre')].map(p => p.textContent)")
        assert XSS in replies  # shown as the text it is
        table = driver.execute_script("return document.querySelector('#run-0 table').innerText")
        assert "overall\t16\t" in table and "difference track" in table
        assert "judge's verdict" in driver.execute_script("return document.querySelector('#run-0').innerText")
        driver.execute_script("document.querySelector('#run-0 .cards').scrollIntoView()")
        save_screenshot(driver, tmp_path, "report.png")
    finally:
        driver.quit()


def test_score_html_writes_the_report_beside_the_scores(runs, small_build, tmp_path, capsys):
    page = tmp_path / "out" / "b.html"
    assert dicobench_cli(["score", str(runs[1] / "predictions.jsonl"), "--dataset", str(small_build),
                          "--out", str(tmp_path / "scored"), "--html", str(page), "--n-boot", "200"]) == 0
    assert f"wrote {page}" in capsys.readouterr().out
    assert "<h2>stub-b</h2>" in page.read_text() or "<h2>predictions</h2>" in page.read_text()
    assert dicobench_cli(["score", str(runs[1] / "predictions.jsonl"), "--dataset", str(small_build),
                          "--html", str(tmp_path)]) == 2
    assert "--html" in capsys.readouterr().err and not (runs[1] / "predictions.scores").exists()


def start_server(*args: str) -> tuple[subprocess.Popen, str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen([sys.executable, "-m", "dicobench.cli.main", *args, "--port", "0"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env)
    line = proc.stdout.readline()
    assert "serving on " in line, (line, proc.stderr.read() if proc.poll() is not None else "")
    return proc, line.split("serving on ")[1].strip()


def test_the_explorer_shows_each_row_of_two_runs_in_chromium(runs, small_build, tmp_path):
    a, b = (row_outcomes(read_run(run, "dicobench"), str(small_build)) for run in runs)
    disagree = [x.id for x, y in zip(a, b) if "unscored" not in (x.outcome, y.outcome)
                and (x.outcome != y.outcome or x.read != y.read)]
    proc, url = start_server("review", "--dataset", str(small_build), "--predictions", str(runs[0]),
                             "--predictions", str(runs[1]))
    driver = chromium(1600, 1000)
    try:
        driver.get(url)
        wait_for(driver, "document.body.dataset.ready")
        shown = "[...document.querySelectorAll('#list .item')].map(e => e.dataset.id)"
        assert len(driver.execute_script(f"return {shown}")) == 16
        select = lambda id, value: driver.execute_script(
            f"const s = document.getElementById('{id}'); s.value = '{value}'; s.dispatchEvent(new Event('change'))")
        select("f-outcome", "disagree")
        assert driver.execute_script(f"return {shown}") == disagree
        select("f-outcome", "wrong")
        select("f-in", "0")
        assert driver.execute_script(f"return {shown}") == [x.id for x in a if x.outcome == "wrong"]
        select("f-error", "unparsed")
        unparsed = [x.id for x in a if x.error_type == "unparsed"]
        assert driver.execute_script(f"return {shown}") == unparsed
        wait_for(driver, f"document.body.dataset.row == {json.dumps(unparsed[0])}")
        assert "in=0" in driver.current_url and "error=unparsed" in driver.current_url  # the view is kept in the URL
        answers = driver.execute_script("return document.getElementById('answers').innerText")
        assert XSS in answers and "unparsed" in answers and "judge: " in answers
        assert driver.execute_script("return document.querySelector('#answers .run0 dd').textContent") == "nothing"
        assert driver.execute_script("return window.__xss") is None
        assert driver.execute_script("return document.querySelectorAll('#answers script, #answers img').length") == 0
        images = driver.execute_script("return [...document.querySelectorAll('#viewer img.base')]"
                                       ".map(i => i.naturalWidth)")
        assert len(images) == 2 and all(w > 1000 for w in images)  # the stored 2K images
        row = next(x for x in a if x.id == unparsed[0])
        if row.answer != "E":  # a row with a cue: its boxes are drawn from the start
            assert driver.execute_script("return document.querySelectorAll('.box').length") > 0
        select("f-error", "")
        select("f-in", "")
        select("f-outcome", "disagree")
        driver.find_element("tag name", "body").send_keys("j")
        # the row shown stays where the new filter keeps it, else the first row it shows is; j steps on
        at = disagree.index(unparsed[0]) if unparsed[0] in disagree else 0
        wait_for(driver, f"document.body.dataset.row == {json.dumps(disagree[min(at + 1, len(disagree) - 1)])}")
        save_screenshot(driver, tmp_path, "explorer.png")
        driver.get(url.split("?")[0] + "?outcome=wrong&in=1")  # a shared view opens as it was
        wait_for(driver, "document.body.dataset.ready")
        assert driver.execute_script(f"return {shown}") == [x.id for x in b if x.outcome == "wrong"]
    finally:
        driver.quit()
        proc.kill()
        proc.wait(10)


def test_the_explorer_keeps_the_server_rules(runs, small_build):
    from dicobench.kit.people.webapp.launch import results

    served = results(BENCHMARK.people, BENCHMARK.results, small_build, [runs[1]], port=0, token="s3cret",
                     background=True, announce=lambda line: None)
    try:
        base = served.url.split("?")[0]
        for path in ("", "api/rows", "static/results.js"):
            with pytest.raises(urllib.error.HTTPError) as refused:
                urllib.request.urlopen(base + path, timeout=10)
            assert refused.value.code == 403
        request = urllib.request.Request(base + "api/rows", headers={"X-Token": "s3cret"})
        rows = json.loads(urllib.request.urlopen(request, timeout=10).read())["rows"]
        assert len(rows) == 16 and all(len(r["runs"]) == 1 for r in rows)
        post = urllib.request.Request(base + "api/rows", data=b"{}", headers={"X-Token": "s3cret"})
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(post, timeout=10)
        assert refused.value.code == 405  # read only
    finally:
        served.stop()


def test_review_predictions_refuses_what_it_cannot_show(runs, small_build, tmp_path, capsys):
    for argv, message in (
        (["--predictions", str(runs[0])] * 3, "one run folder, or two"),
        (["--predictions", str(runs[0]), "--reviewer", "ann"], "--reviewer apply to reviewing a build"),
        (["--predictions", str(tmp_path)], "holds no scores.json"),
    ):
        assert dicobench_cli(["review", "--dataset", str(small_build), *argv, "--port", "0"]) == 2
        err = capsys.readouterr().err
        assert message in err and len(err.splitlines()) == 1
