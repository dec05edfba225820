"""MultipanelVQA's review and study pages (API level; the page code is the one the DiCoBench
browser tests drive)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

from dicobench.kit.people.decisions import decisions_path, read_log
from multipanelvqa.benchmark import BENCHMARK
from multipanelvqa.build import build

SPEC = BENCHMARK.people

pytest.importorskip("starlette")


@pytest.fixture(scope="module")
def mpv_build(tmp_path_factory):
    out = tmp_path_factory.mktemp("mpv") / "bench"
    build(out, layouts="6,7,8", sources="procedural_edit", configs="original,captions", images_per_shard=2,
          num_proc=1, progress=False)
    return out


def _call(url: str, token: str, body=None):
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, headers={"X-Token": token, "Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=10) as r:
        return r.read()


def _token(url: str) -> str:
    page = urllib.request.urlopen(url, timeout=10).read().decode()
    return json.loads(page.split("window.SETTINGS = ")[1].split(";</script>")[0])["token"]


def test_review_shows_subfigures_and_logs_mpv_criteria(mpv_build):
    from dicobench.kit.people.webapp.launch import review

    server = review(SPEC, mpv_build, port=0, reviewer="ann", background=True, announce=lambda line: None)
    try:
        token = _token(server.url)
        rows = json.loads(_call(server.url + "api/rows", token))["rows"]
        assert {r["group"] for r in rows} == {"original", "captions"} and len(rows) == 18
        q3 = next(r["id"] for r in rows if r["id"].endswith("q3"))
        view = json.loads(_call(server.url + f"api/row/{q3}", token))
        assert view["answer"] in "abcd" and [o["letter"] for o in view["options"]] == list("abcd")
        assert view["boxes"][0]["label"].endswith("(target)") and all(b["image"] == 0 for b in view["boxes"])
        assert len(urllib.request.urlopen(server.url + f"image/{q3}/0?v={view['version']}", timeout=10).read()) > 1000
        saved = json.loads(_call(server.url + "api/decision", token,
                                 {"id": q3, "verdict": "reject", "criteria": ["position", "quality"]}))
        assert saved["saved"]
        with pytest.raises(urllib.error.HTTPError):  # DiCoBench's criteria are not MultipanelVQA's
            _call(server.url + "api/decision", token, {"id": q3, "verdict": "reject", "criteria": ["scale"]})
    finally:
        server.stop()
    (d,) = read_log(decisions_path(mpv_build)).decisions
    assert (d.id, d.criteria) == (q3, ("position", "quality"))
    from multipanelvqa.card import write_card

    write_card(mpv_build)
    section = (mpv_build / "README.md").read_text().split("## Human review")[1]
    assert "1 of 18 rows as they are now were reviewed by 1 reviewer(s) (ann)" in section
    assert "1 rejected row(s) await the next rebuild" in section and "position 1, quality 1" in section


def test_study_sends_no_answer_subfigures_or_sources(mpv_build):
    from dicobench.kit.people.webapp.launch import study

    server = study(SPEC, mpv_build, time_limit=None, participant="ann", n=6, port=0, background=True,
                   announce=lambda line: None)
    bodies = []
    try:
        token = _token(server.url)
        bodies.append(urllib.request.urlopen(server.url, timeout=10).read())
        kinds = []
        while not (item := json.loads(raw := _call(server.url + "api/next", token, {}))).get("done"):
            bodies.append(raw)
            kinds.append("q3" if item["options"] else "free")
            _call(server.url + "api/answer", token, {"k": item["k"], "response": "a" if item["options"] else "red"})
    finally:
        server.stop()
    assert sorted(kinds) == ["free"] * 4 + ["q3"] * 2  # balanced over q1, q2, q3
    lines = [json.loads(l) for l in (mpv_build / ".study" / "ann-none.jsonl").read_text().splitlines()]
    assert len(lines) == 6 and all(l["time_limit"] is None and not l["timed_out"] for l in lines)
    # pooled like DiCoBench's figure, per question type (Table 2's human row), by the same rules as models
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    out = subprocess.run([sys.executable, "-m", "multipanelvqa.cli.main", "human", str(mpv_build), "--n-boot", "100"],
                         capture_output=True, text=True, env=env, timeout=120)
    assert out.returncode == 0, out.stderr
    report = json.loads((mpv_build / ".study" / "report" / "human.json").read_text())["time_limits"]["none"]
    assert [report[q]["n"] for q in ("q1", "q2", "q3")] == [2, 2, 2] and report["overall"]["n"] == 6
    assert (mpv_build / ".study" / "report" / "human_accuracy.png").stat().st_size > 1000
    raw = b"\n".join(bodies).decode().replace(token, "")  # the random session token may spell anything
    for word in ('"answer"', '"subfigures"', '"bbox"', "source_id", "procedural_edit", "target", '"id"', "-q1", "-q3"):
        assert word not in raw, word
