"""The review log, the row store and the review server's access rules (no browser)."""

from __future__ import annotations

import http.client
import json
import multiprocessing
import os
import shutil
import subprocess
import sys
import threading
import urllib.error
import urllib.request
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from dicobench.benchmark import BENCHMARK
from dicobench.kit.io.rowstore import RowStore
from dicobench.kit.people.decisions import DecisionLog, decisions_path, make_decision, read_log, rejected_rows

SPEC = BENCHMARK.people

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")

CRITERIA = SPEC.criteria_keys


def test_log_appends_reads_and_reports_malformed_lines(tmp_path):
    log = DecisionLog(tmp_path / ".review" / "decisions.jsonl")
    log.check_writable()
    log.append(make_decision("r1", "ann", "reject", ["scale"], "too big", 7, CRITERIA))
    with open(log.path, "a") as f:
        f.write('{"id": "r2", "reviewer": "ann"')  # a line cut short by a crash
    log.append(make_decision("r1", "ann", "accept", [], "", 7, CRITERIA))
    log.append(make_decision("r1", "bob", "reject", ["fidelity"], "", 7, CRITERIA))
    log.append(make_decision("r3", "bob", "reject", [], "", 9, CRITERIA))
    lines = log.path.read_text().splitlines()
    assert len(lines) == 5 and json.loads(lines[0]) == {
        "id": "r1", "reviewer": "ann", "verdict": "reject", "criteria": ["scale"], "note": "too big",
        "time": json.loads(lines[0])["time"], "seed": 7}
    contents = read_log(log.path)
    assert contents.malformed == [(2, "not valid JSON (Expecting ',' delimiter)")]
    latest = contents.latest()
    assert latest[("r1", 7, "ann")].verdict == "accept"  # the later line wins
    assert rejected_rows(tmp_path) == {("r1", 7), ("r3", 9)}  # any reviewer's rejection counts
    with pytest.raises(ValueError, match="unknown criteria"):
        make_decision("r1", "ann", "reject", ["beauty"], "", 7, CRITERIA)
    with pytest.raises(ValueError, match="verdict"):
        make_decision("r1", "ann", "maybe", [], "", 7, CRITERIA)


def _append_many(path: str, who: str, n: int) -> None:
    log = DecisionLog(path)
    for i in range(n):
        log.append(make_decision(f"row{i}", who, "accept", [], "x" * 2000, i, CRITERIA))


def test_concurrent_writers_never_interleave_lines(tmp_path):
    path = tmp_path / "decisions.jsonl"
    procs = [multiprocessing.get_context("spawn").Process(target=_append_many, args=(str(path), f"p{k}", 40))
             for k in range(2)]
    threads = [threading.Thread(target=_append_many, args=(str(path), f"t{k}", 40)) for k in range(2)]
    for w in procs + threads:
        w.start()
    for w in procs + threads:
        w.join()
    contents = read_log(path)
    assert contents.malformed == []
    assert len(contents.decisions) == 160 and len(contents.latest()) == 160


def test_row_store_serves_stored_bytes(small_build):
    store = RowStore(small_build, ["attribute", "category"], SPEC.image_columns)
    assert len(store.rows) == 4
    row_id = store.ids()[0]
    table = pq.read_table(next((small_build / "attribute").glob("test-*.parquet")))
    first = table.to_pylist()[0]
    assert store.image(row_id, "image_b") == first["image_b"]["bytes"]
    assert store.rows[row_id]["task"] == "attribute" and store.rows[row_id]["answer"] in "ABCDE"


def _get(url: str, headers=None, data=None):
    req = urllib.request.Request(url, headers=headers or {}, data=data, method="POST" if data is not None else "GET")
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.status, r.read(), dict(r.headers)
    except urllib.error.HTTPError as e:
        return e.code, e.read(), dict(e.headers)


@pytest.fixture
def served(build_copy):
    from dicobench.kit.people.webapp.launch import review

    servers = []

    def start(**kwargs):
        s = review(SPEC, build_copy, port=0, reviewer="ann", background=True, **kwargs)
        servers.append(s)
        return s

    yield start
    for s in servers:
        s.stop()


def test_token_required_off_loopback(served):
    s = served(host="0.0.0.0")
    assert "?token=" in s.url
    token = s.url.split("token=")[1]
    base = s.url.split("?")[0].replace("0.0.0.0", "127.0.0.1")
    row_id = "attribute-test-s0-00000"
    version = json.loads(_get(base + f"api/row/{row_id}?token={token}")[1])["version"]
    for path in ("", "api/rows", f"api/row/{row_id}", f"image/{row_id}/0?v={version}", "static/review.js"):
        glue = "&" if "?" in path else "?"
        assert _get(base + path)[0] == 403
        assert _get(base + path + f"{glue}token=wrong")[0] == 403
        assert _get(base + path + f"{glue}token=%C3%A9%00")[0] == 403
        assert _get(base + path + f"{glue}token={token}")[0] == 200
    status, _, headers = _get(base + f"?token={token}")
    cookie = headers["set-cookie"].split(";")[0]
    prefix = "/" + base.split("/", 3)[3]  # the server's own path: its cookie goes nowhere else
    assert prefix != "/" and headers["set-cookie"].endswith(f"; Path={prefix}; HttpOnly; SameSite=Strict")
    assert cookie.startswith("dicobench_token_" + prefix.strip("/") + "=")
    assert _get(base + f"image/{row_id}/1?v={version}", {"Cookie": cookie})[0] == 200  # images ride on the cookie
    assert _get(base + f"image/{row_id}/1", {"Cookie": cookie})[0] == 404  # only at the current version's URL
    body = json.dumps({"id": row_id, "verdict": "accept"}).encode()
    assert _get(base + "api/decision", {"Cookie": cookie, "Content-Type": "application/json"}, body)[0] == 403
    status, reply, _ = _get(base + "api/decision", {"X-Token": token, "Content-Type": "application/json"}, body)
    assert status == 200 and json.loads(reply)["saved"] is True
    assert _get(base + f"api/decision?token={token}")[0] in (403, 405)  # GET never changes state


def test_loopback_posts_need_the_token_and_host_is_checked(served, build_copy):
    s = served()
    assert "token" not in s.url and s.url.startswith("http://127.0.0.1:")  # loopback unless told otherwise
    body = json.dumps({"id": "attribute-test-s0-00000", "verdict": "reject", "criteria": ["scale"]}).encode()
    assert _get(s.url + "api/decision", {"Content-Type": "application/json"}, body)[0] == 403
    page = _get(s.url)[1].decode()
    token = json.loads(page.split("window.SETTINGS = ")[1].split(";</script>")[0])["token"]
    assert _get(s.url + "api/decision", {"X-Token": "nope", "Content-Type": "application/json"}, body)[0] == 403
    assert _get(s.url + "api/decision", {"X-Token": token, "Content-Type": "application/json"}, body)[0] == 200
    assert _get(s.url, {"Host": "attacker.example:8765"})[0] == 403  # DNS rebinding
    bad = json.dumps({"id": "attribute-test-s0-00000", "verdict": "reject", "criteria": ["pretty"]}).encode()
    assert _get(s.url + "api/decision", {"X-Token": token, "Content-Type": "application/json"}, bad)[0] == 400
    lines = decisions_path(build_copy).read_text().splitlines()
    assert len(lines) == 1 and json.loads(lines[0])["criteria"] == ["scale"]


def test_no_request_reads_outside_the_build(served, build_copy, tmp_path):
    secret = tmp_path / "secret.parquet"
    victim = next((build_copy / "entity").glob("test-*.parquet"))
    shutil.copy(victim, secret)  # rows of a shard outside the build, reachable only through a symlink
    victim.unlink()
    (build_copy / "entity" / victim.name).symlink_to(secret)
    s = served()
    host, port = s.url.split("//")[1].split("/")[0].split(":")
    readme = (build_copy / "README.md").read_bytes()[:40]
    for path in ("/static/../README.md", "/static/..%2F..%2FREADME.md", "/static/%2Fetc%2Fpasswd",
                 "/static//etc/passwd", "/image/..%2FREADME.md/0", "/image/%2Fetc%2Fpasswd/0",
                 "/api/row/..%2F..%2Fetc%2Fpasswd", "/../../etc/passwd",
                 "/image/attribute-test-s0-00000/../../README.md",
                 "/image/attribute-test-s0-00000/2", "/image/attribute-test-s0-00000/-1",
                 "/image/entity-test-s0-00000/0", "/api/row/entity-test-s0-00000", "/static/review.html"):
        conn = http.client.HTTPConnection(host, int(port), timeout=10)
        conn.request("GET", path)  # sent as written, not normalised by a client
        reply = conn.getresponse()
        body = reply.read()
        assert reply.status in (403, 404), path
        assert b"root:" not in body and readme not in body
    rows = json.loads(_get(s.url + "api/rows")[1])["rows"]
    assert not any(r["group"] == "entity" for r in rows)


def _cli(*args, **kwargs):
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    return subprocess.run([sys.executable, "-m", "dicobench.cli.main", *args], capture_output=True, text=True, env=env,
                          timeout=60, **kwargs)


def test_bad_input_is_one_line_and_status_2(build_copy, tmp_path):
    import socket

    (tmp_path / "empty").mkdir()
    busy = socket.socket()
    busy.bind(("127.0.0.1", 0))
    busy.listen(1)
    port = str(busy.getsockname()[1])
    (build_copy / ".review").write_text("")  # a file where the review folder goes: unwritable log
    cases = {
        ("review", str(tmp_path / "empty")): "not a dicobench build",
        ("review", str(tmp_path / "missing")): "is not a folder",
        ("review", str(build_copy), "--config", "colour"): "unknown config 'colour'",
        ("review", str(build_copy), "--port", "0"): "cannot write the review log",
    }
    try:
        for args, message in cases.items():
            r = _cli(*args)
            assert r.returncode == 2, (args, r.stderr)
            assert r.stderr.count("\n") == 1 and message in r.stderr and r.stderr.startswith("dicobench: error:")
        (build_copy / ".review").unlink()
        r = _cli("review", str(build_copy), "--port", port)
        assert r.returncode == 2 and f"port {port} on 127.0.0.1 is in use" in r.stderr and r.stderr.count("\n") == 1
    finally:
        busy.close()
