"""The timed study: sampling, the server's clock, nothing leaked to the page, pooling (Figure 5)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import urllib.request
from collections import Counter
from pathlib import Path

import pytest
from browser import chromium, keep_image, save_screenshot, wait_for

from dicobench.benchmark import BENCHMARK
from dicobench.kit.io.rowstore import RowStore
from dicobench.kit.people.webapp.study import participant_order, sample
from dicobench.schema import TASKS

SPEC = BENCHMARK.people

pytest.importorskip("starlette")


def test_sample_is_balanced_seeded_and_ordered_per_participant(small_build):
    store = RowStore(small_build, list(TASKS), SPEC.image_columns)
    ids = sample(store, SPEC, 8, seed=0)
    assert Counter(store.rows[i]["task"] for i in ids) == Counter(TASKS)  # one per task
    assert sample(store, SPEC, 8, seed=0) == ids and sample(store, SPEC, 8, seed=1) != ids
    assert len(sample(store, SPEC, 100, seed=0)) == 16  # at most every row
    a, b = participant_order(ids, 0, "ann"), participant_order(ids, 0, "bob")
    assert sorted(a) == sorted(ids) and a != b and participant_order(ids, 0, "ann") == a


class Recorder:
    """Fetches study URLs and keeps every raw response body."""

    def __init__(self, url: str, token: str):
        self.url, self.token, self.bodies = url, token, []

    def call(self, path: str, body=None) -> bytes:
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.url + path, data=data,
                                     headers={"X-Token": self.token, "Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=10) as r:
            raw = r.read()
        self.bodies.append(raw)
        return raw


def test_study_responses_leak_no_answer_and_time_runs_out(build_copy):
    from dicobench.kit.people.webapp.launch import study

    server = study(SPEC, build_copy, time_limit=0.5, participant="ann", n=4, port=0, background=True,
                   announce=lambda line: None)
    try:
        page = urllib.request.urlopen(server.url, timeout=10).read()
        token = json.loads(page.decode().split("window.SETTINGS = ")[1].split(";</script>")[0])["token"]
        rec = Recorder(server.url, token)
        rec.bodies.append(page)
        assets = [rec.call(f"static/{asset}") for asset in ("study.js", "viewer.js", "style.css")]
        rec.call("api/state")
        item = json.loads(rec.call("api/next", {}))
        assert set(item) == {"k", "key", "position", "n", "seconds_left", "question", "options"}
        assert [o["letter"] for o in item["options"]] == list("ABCDE")
        with urllib.request.urlopen(server.url + f"image/{item['k']}/1?key={item['key']}", timeout=10) as reply:
            assert reply.status == 200 and reply.headers["Cache-Control"] == "no-store"
        with pytest.raises(urllib.error.HTTPError):  # only under this showing's key
            urllib.request.urlopen(server.url + f"image/{item['k']}/1", timeout=10)
        rec.call("api/answer", {"k": item["k"], "response": "C"})
        item = json.loads(rec.call("api/next", {}))
        time.sleep(0.6)  # the limit passes with no answer: the server records a timeout itself
        late = json.loads(rec.call("api/next", {}))
        assert late["k"] != item["k"]
        try:
            rec.call(f"image/{item['k']}/0?key={item['key']}")  # a closed item's images are gone
            raise AssertionError("closed item's image served")
        except urllib.error.HTTPError as e:
            assert e.code == 404
        rec.call("api/answer", {"k": late["k"], "response": "A"})
        while not json.loads(raw := rec.call("api/next", {})).get("done"):
            rec.call("api/answer", {"k": json.loads(raw)["k"], "response": "E"})
    finally:
        server.stop()
    lines = [json.loads(l) for l in (build_copy / ".study" / "ann-0.5.jsonl").read_text().splitlines()]
    assert [l["timed_out"] for l in lines] == [False, True, False, False]
    assert lines[0]["response"] == "C" and lines[1]["response"] is None and lines[1]["latency"] >= 0.5
    assert all(set(l) == {"id", "response", "latency", "time_limit", "participant", "timed_out"} for l in lines)
    store = RowStore(build_copy, list(TASKS), SPEC.image_columns)
    raw = b"\n".join(rec.bodies).decode("utf-8", "replace").replace(token, "")  # a random token may spell anything
    for row in store.rows.values():  # nothing names a row, its task, seed, source, cues or answer
        for secret in (row["id"], row["source"], str(row["seed"]), row["generator"],
                       *(json.dumps(c["bbox"]) for c in row["cues"]), *(c["label"] + '"' for c in row["cues"])):
            assert secret not in raw, secret
    dynamic = b"\n".join(b for b in rec.bodies if b not in assets).decode().replace(token, "")  # page and replies
    for word in (*[t for t in TASKS if "_" in t], '"answer"', '"cues"', '"task"', '"track"', "correct"):
        assert word not in dynamic, word


def test_study_in_the_browser_times_out_and_pools_into_figure_5(build_copy, tmp_path):
    from dicobench.kit.people.webapp.launch import study

    server = study(SPEC, build_copy, time_limit=5, participant="bob", n=3, port=0, background=True,
                   announce=lambda line: None)
    driver = chromium()
    try:
        driver.get(server.url)
        wait_for(driver, "document.body.dataset.ready")
        save_screenshot(driver, tmp_path, "study-start.png")
        driver.find_element("id", "begin").click()
        wait_for(driver, "document.body.dataset.position == '1'")
        driver.find_elements("css selector", "#options li")[1].click()  # B by click
        wait_for(driver, "document.body.dataset.position == '2'")
        wait_for(driver, "document.querySelector('.pane img.base').complete")
        save_screenshot(driver, tmp_path, "study.png")
        wait_for(driver, "document.body.dataset.position == '3'", timeout=20)  # nobody answered: timeout
        driver.find_element("tag name", "body").send_keys("d")  # D by key
        wait_for(driver, "document.body.dataset.done")
        assert "All 3 items answered" in driver.find_element("id", "done-text").text
    finally:
        driver.quit()
        server.stop()
    lines = [json.loads(l) for l in (build_copy / ".study" / "bob-5.jsonl").read_text().splitlines()]
    assert [(l["response"], l["timed_out"]) for l in lines] == [("B", False), (None, True), ("D", False)]
    assert 5 <= lines[1]["latency"] < 8

    # a second, unlimited session and a model line: the pooled figure and table
    unlimited = build_copy / ".study" / "cy-none.jsonl"
    store = RowStore(build_copy, list(TASKS), SPEC.image_columns)
    unlimited.write_text("".join(json.dumps({"id": i, "response": r["answer"], "latency": 9.0, "time_limit": None,
                                             "participant": "cy", "timed_out": False}) + "\n"
                                 for i, r in list(store.rows.items())[:6]))
    scores = tmp_path / "model" / "scores.json"
    scores.parent.mkdir()
    scores.write_text(json.dumps({"accuracy": 0.42}))
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    out = subprocess.run([sys.executable, "-m", "dicobench.cli.main", "human", str(build_copy), "--scores",
                          f"tiny-vlm={scores}", "--n-boot", "200"], capture_output=True, text=True, env=env,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    report = json.loads((build_copy / ".study" / "report" / "human.json").read_text())
    assert list(report["time_limits"]) == ["5", "none"] and report["models"] == {"tiny-vlm": 0.42}
    assert report["time_limits"]["none"]["overall"]["accuracy"] == 1.0
    assert report["time_limits"]["5"]["timed_out"] == 1 and report["time_limits"]["5"]["overall"]["n"] == 3
    assert "| none | cy | 0 | 100.0" in out.stdout
    from PIL import Image

    assert Image.open(build_copy / ".study" / "report" / "human_accuracy.png").size[0] > 500
    keep_image(build_copy / ".study" / "report" / "human_accuracy.png")

    # `dicobench score` scores a session that covers the build like a model's predictions
    full = build_copy / ".study" / "dee-none.jsonl"
    full.write_text("".join(json.dumps({"id": i, "response": "A", "latency": 3.0, "time_limit": None,
                                        "participant": "dee", "timed_out": False}) + "\n" for i in store.rows))
    scored = subprocess.run([sys.executable, "-m", "dicobench.cli.main", "score", str(full), "--dataset",
                             str(build_copy), "--n-boot", "100"], capture_output=True, text=True, env=env,
                            timeout=300)
    assert scored.returncode == 0, scored.stderr
    result = json.loads((build_copy / ".study" / "dee-none.scores" / "scores.json").read_text())
    assert result["n"] == 16 and result["accuracy"] == sum(r["answer"] == "A" for r in store.rows.values()) / 16


def _study_server(build, *args):
    """`dicobench study BUILD ARGS --port 0` in its own process: (process, URL, token)."""
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    proc = subprocess.Popen([sys.executable, "-m", "dicobench.cli.main", "study", str(build), *args, "--port", "0"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    line = proc.stdout.readline()
    if "serving on " not in line:
        proc.wait(30)
        return proc, None, proc.stderr.read()
    url = line.split("serving on ")[1].strip()
    page = urllib.request.urlopen(url, timeout=10).read().decode()
    return proc, url, json.loads(page.split("window.SETTINGS = ")[1].split(";</script>")[0])["token"]


def _post(url, token, path, body):
    req = urllib.request.Request(url + path, data=json.dumps(body).encode(),
                                 headers={"X-Token": token, "Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=10) as r:
        return json.loads(r.read())


def test_the_item_clock_survives_a_killed_server(build_copy):
    args = ("--time-limit", "30", "--participant", "ann", "--n", "3")
    proc, url, token = _study_server(build_copy, *args)
    try:
        first = _post(url, token, "api/next", {})
        assert 29 < first["seconds_left"] <= 30
        time.sleep(2.5)
        proc.kill()  # kill -9: nothing is flushed on the way out
        proc.wait(10)
        proc, url, token = _study_server(build_copy, *args)
        again = _post(url, token, "api/next", {})
        assert again["k"] == first["k"] and again["question"] == first["question"]  # the same item, still open
        assert again["seconds_left"] < 28  # its clock went on while the server was down
        _post(url, token, "api/answer", {"k": again["k"], "response": "B"})
    finally:
        proc.kill()
        proc.wait(10)
    line = json.loads((build_copy / ".study" / "ann-30.jsonl").read_text().splitlines()[0])
    assert line["response"] == "B" and line["latency"] >= 2.5 and not line["timed_out"]


def test_one_server_at_a_time_holds_a_participants_session(build_copy):
    args = ("--time-limit", "60", "--participant", "ann", "--n", "3")
    proc, url, token = _study_server(build_copy, *args)
    try:
        second, none, err = _study_server(build_copy, *args)
        assert none is None and second.returncode == 2 and err.count("\n") == 1, err
        assert err.startswith("dicobench: error: ") and "ann" in err and f"pid {proc.pid}" in err
        other, url_b, _ = _study_server(build_copy, "--time-limit", "30", "--participant", "ann", "--n", "3")
        assert url_b is not None  # another time limit is another session
        other.kill()
        other.wait(10)
        proc.kill()  # its lock is left behind by a dead process: the next server takes it over
        proc.wait(10)
        proc, url, token = _study_server(build_copy, *args)
        assert url is not None, token
        assert _post(url, token, "api/next", {})["position"] == 1
    finally:
        proc.kill()
        proc.wait(10)
