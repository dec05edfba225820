"""Bad paths and bodies get a 4xx, never a 500, from both benchmarks' review and study servers;
bodies and notes have a size limit (413); nothing a refused request carries reaches the logs."""

from __future__ import annotations

import http.client
import json
import shutil

import pytest

from dicobench.benchmark import BENCHMARK as DICOBENCH_BENCHMARK
from dicobench.kit.people.decisions import decisions_path
from dicobench.kit.people.webapp.server import MAX_BODY
from multipanelvqa.benchmark import BENCHMARK as MULTIPANELVQA_BENCHMARK
from multipanelvqa.build import build as build_multipanelvqa

DICOBENCH = DICOBENCH_BENCHMARK.people
MULTIPANELVQA = MULTIPANELVQA_BENCHMARK.people

pytest.importorskip("starlette")

NOT_JSON_OBJECTS = [b"[1]", b"5", b'"text"', b"null", b"true", b"{", b"\xff\xfe", b"NaN", b'{"k": NaN}',
                    b'{"k": Infinity}', b'{"k": 1e400}', b'{"k": -1e400}', b'{"id": 1e400}']


@pytest.fixture(scope="module")
def builds(small_build, tmp_path_factory):
    root = tmp_path_factory.mktemp("inputs")
    mpv = build_multipanelvqa(root / "mpv", layouts=[0], configs=["original"], num_proc=1, progress=False)
    return {"dicobench": small_build, "multipanelvqa": mpv}


@pytest.fixture(params=["dicobench", "multipanelvqa"])
def bench(request, builds, tmp_path):
    out = tmp_path / "bench"
    shutil.copytree(builds[request.param], out)
    return {"dicobench": DICOBENCH, "multipanelvqa": MULTIPANELVQA}[request.param], out


class Client:
    """Raw requests (paths sent as written) to a server, with its token header."""

    def __init__(self, url: str):
        rest = url.split("//", 1)[1]
        self.host, _, tail = rest.partition("/")
        self.prefix = "/" + tail.split("?")[0]
        page = self.request("GET", "")[1].decode()
        self.token = json.loads(page.split("window.SETTINGS = ")[1].split(";</script>")[0])["token"]

    def request(self, method: str, path: str, body: bytes | None = None, headers=None, chunked=False):
        host, port = self.host.rsplit(":", 1)
        conn = http.client.HTTPConnection(host, int(port), timeout=30)
        sent = {"Content-Type": "application/json", **({"X-Token": self.token} if hasattr(self, "token") else {}),
                **(headers or {})}
        if chunked:
            conn.putrequest(method, self.prefix + path)
            for k, v in {**sent, "Transfer-Encoding": "chunked"}.items():
                conn.putheader(k, v)
            conn.endheaders()
            for start in range(0, len(body), 65536):
                piece = body[start:start + 65536]
                conn.send(f"{len(piece):x}\r\n".encode() + piece + b"\r\n")
            conn.send(b"0\r\n\r\n")
        else:
            conn.request(method, self.prefix + path, body=body, headers=sent)
        reply = conn.getresponse()
        return reply.status, reply.read()


@pytest.fixture
def serving(bench):
    """start(kind) -> a Client of a review or study server on the copy (stopped afterwards)."""
    from dicobench.kit.people.webapp.launch import review, study

    spec, build = bench
    servers = []

    def start(kind: str) -> Client:
        if kind == "review":
            server = review(spec, build, port=0, reviewer="ann", background=True, announce=lambda line: None)
        else:
            server = study(spec, build, time_limit=None, participant="ann", n=2, port=0, background=True,
                           announce=lambda line: None)
        servers.append(server)
        return Client(server.url)

    yield start
    for server in servers:
        server.stop()


def test_review_answers_bad_paths_and_bodies_with_4xx(bench, serving):
    build = bench[1]
    client = serving("review")
    row = json.loads(client.request("GET", "api/rows")[1])["rows"][0]["id"]
    for path in (f"image/{row}/%C2%B2", f"image/{row}/%D9%A1", f"image/{row}/1%00",
                 f"image/{row}/99999999999999999999",
                 f"image/{row}/-0", "api/row/%00", "api/row/%C2%B2"):
        status, _ = client.request("GET", path)
        assert 400 <= status < 500, (path, status)
    for body in NOT_JSON_OBJECTS + [json.dumps({"id": row, "verdict": "accept", "note": 5}).encode(),
                                    json.dumps({"id": row, "verdict": ["accept"]}).encode(),
                                    json.dumps({"id": [row], "verdict": "accept"}).encode(),
                                    json.dumps({"id": row, "verdict": "accept", "criteria": "scale"}).encode()]:
        status, reply = client.request("POST", "api/decision", body)
        assert 400 <= status < 500, (body, status, reply)
    assert not decisions_path(build).exists() or decisions_path(build).read_text() == ""


def test_review_limits_bodies_and_notes(bench, serving):
    build = bench[1]
    client = serving("review")
    row = json.loads(client.request("GET", "api/rows")[1])["rows"][0]["id"]
    huge = json.dumps({"id": row, "verdict": "accept", "note": "x" * (50 << 20)}).encode()  # 50 MB
    assert client.request("POST", "api/decision", huge)[0] == 413
    assert client.request("POST", "api/decision", huge, chunked=True)[0] == 413  # no Content-Length to trust
    long_note = json.dumps({"id": row, "verdict": "accept", "note": "é" * 5000}).encode()
    assert len(long_note) < MAX_BODY and client.request("POST", "api/decision", long_note)[0] == 413
    fine = json.dumps({"id": row, "verdict": "accept", "note": "é" * 2000}).encode()
    assert client.request("POST", "api/decision", fine)[0] == 200
    lines = decisions_path(build).read_text().splitlines()
    assert len(lines) == 1 and json.loads(lines[0])["note"] == "é" * 2000
    listing = client.request("GET", "api/rows")[1]
    assert len(listing) < MAX_BODY  # what every page load fetches stays small


def test_study_answers_bad_paths_and_bodies_with_4xx(bench, serving):
    build = bench[1]
    client = serving("study")
    item = json.loads(client.request("POST", "api/next", b"{}")[1])
    k = item["k"]
    for path in ("image/%C2%B2/0", f"image/{k}/%C2%B2", f"image/{k}/%D9%A1", f"image/{k}/99999999999999999999",
                 "image/99999999999999999999/0"):
        status, _ = client.request("GET", path)
        assert 400 <= status < 500, (path, status)
    for body in NOT_JSON_OBJECTS + [json.dumps({"k": True, "response": "A"}).encode(),
                                    json.dumps({"k": str(k), "response": "A"}).encode(),
                                    json.dumps({"k": k + 0.5, "response": "A"}).encode(),
                                    json.dumps({"k": k, "response": 5}).encode(),
                                    json.dumps({"k": 10 ** 30, "response": "A"}).encode()]:
        status, reply = client.request("POST", "api/answer", body)
        assert 400 <= status < 500, (body, status, reply)
    huge = b'{"k": 0, "response": "' + b"x" * (MAX_BODY + 1) + b'"}'
    for path in ("api/answer", "api/next"):
        assert client.request("POST", path, huge)[0] == 413
        assert client.request("POST", path, huge, chunked=True)[0] == 413
    assert client.request("POST", "api/answer", json.dumps({"k": k, "response": "A"}).encode())[0] == 200
    lines = (build / ".study" / "ann-none.jsonl").read_text().splitlines()
    assert len(lines) == 1 and json.loads(lines[0])["response"] == "A"
