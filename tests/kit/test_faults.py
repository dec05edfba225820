"""Numbers that survive faults (issue 35): no answer lost, no run mixed with another dataset,
tampering caught, and one line instead of a traceback for each hostile case."""

import json
import os

import datasets
import pytest
from openai_stub import StubServer

from dicobench.cli.main import main as dicobench

SEPARATORS = "\u2028\u2029\u0085"


def records(path):
    return [json.loads(line) for line in path.read_text(encoding="utf-8").split("\n") if line]


def eval_argv(dataset, out, stub, *extra):
    return ["eval", "--dataset", str(dataset), "--model", "openai:stub", "--out", str(out), "--base-url",
            stub.base_url, "--api-key", "k", "--concurrency", "1", "--quiet", "--limit", "1", *extra]


def test_replies_with_unicode_line_separators_survive_resume_score_and_import(small_build, tmp_path):
    out = tmp_path / "run"
    with StubServer(lambda body: f"A{SEPARATORS}B") as stub:
        assert dicobench(eval_argv(small_build, out, stub)) == 0
        asked = len(stub.requests)
        assert dicobench(eval_argv(small_build, out, stub)) == 0
        assert len(stub.requests) == asked  # the resume kept every answer: nothing asked twice
    assert all(r["response"] == f"A{SEPARATORS}B" for r in records(out / "predictions.jsonl"))
    assert dicobench(["score", str(out / "predictions.jsonl"), "--dataset", str(small_build), "--out",
                      str(tmp_path / "s")]) == 0
    samples = tmp_path / "2024_samples_dicobench_entity.jsonl"
    samples.write_text("".join(json.dumps({"doc_id": i, "filtered_resps": [f"B{SEPARATORS}"]}, ensure_ascii=False)
                               + "\n" for i in range(2)), encoding="utf-8")
    assert dicobench(["import", "lmms-eval", str(samples), "--dataset", str(small_build), "--out",
                      str(tmp_path / "p.jsonl")]) == 0
    assert [r["response"] for r in records(tmp_path / "p.jsonl")] == [f"B{SEPARATORS}"] * 2


# ---- a build's shards are what it wrote: digests at build time, checked by info --verify and by a rerun ----

def _tamper(shard, column, change):
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pq.read_table(shard)
    values = table.column(column).to_pylist()
    values[0] = change(values[0])
    field = table.schema.field(column)
    pq.write_table(table.set_column(table.schema.get_field_index(column), field, pa.array(values, field.type)), shard)
    later = shard.stat().st_mtime + 10  # as a rebuild later on: `datasets` keys its cache on mtimes to the second
    os.utime(shard, (later, later))


def _seed_one_shard(tmp_path):
    from dicobench.build import build

    return build(tmp_path / "other", per_task=2, seed=1, tasks=["entity"], num_proc=1, progress=False)


@pytest.mark.parametrize("damage", ["answer", "image", "swap", "seed"])
def test_verify_names_a_changed_shard_and_a_rerun_of_build_repairs_it(build_copy, tmp_path, capsys, damage):
    from dicobench.build import build

    entity = build_copy / "entity" / "test-00000-of-00001.parquet"
    attribute = build_copy / "attribute" / "test-00000-of-00001.parquet"
    before = entity.read_bytes(), attribute.read_bytes()
    if damage == "answer":
        _tamper(entity, "answer", lambda a: (a + 1) % 5)
    elif damage == "image":
        _tamper(entity, "image_a", lambda image: {**image, "bytes": image["bytes"][:-1] + b"\0"})
    elif damage == "swap":
        entity.write_bytes(before[1]), attribute.write_bytes(before[0])
    else:
        entity.write_bytes((_seed_one_shard(tmp_path) / "entity" / "test-00000-of-00001.parquet").read_bytes())
    capsys.readouterr()
    assert dicobench(["info", str(build_copy), "--verify"]) == 2
    err = capsys.readouterr().err
    named = "attribute" if damage == "swap" else "entity"  # the first of the two swapped is named
    assert f"{named}/test-00000-of-00001.parquet: its bytes are not those the build wrote" in err
    assert len(err.strip().splitlines()) == 1
    build(build_copy, per_task=2, seed=0, num_proc=1, progress=False)  # the same options: a resume
    assert (entity.read_bytes(), attribute.read_bytes()) == before
    assert dicobench(["info", str(build_copy), "--verify"]) == 0


# ---- a run is bound to the rows it asked: no resume, no score across a rebuilt dataset ----

def test_eval_resume_and_score_refuse_a_dataset_whose_rows_changed(build_copy, tmp_path, capsys):
    """The dataset rebuilt with other options: the same ids, other options and images."""
    from dicobench.build import build

    out = tmp_path / "run"
    with StubServer(lambda body: "A") as stub:
        assert dicobench(eval_argv(build_copy, out, stub)) == 0
        asked = len(stub.requests)
        build(build_copy, per_task=2, seed=0, num_proc=1, progress=False, difficulty="easy", overwrite=True)
        capsys.readouterr()
        assert dicobench(eval_argv(build_copy, out, stub)) == 2
        assert len(stub.requests) == asked
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "options" in err and "another --out" in err
    assert dicobench(["score", str(out / "predictions.jsonl"), "--dataset", str(build_copy), "--out",
                      str(tmp_path / "s")]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "options" in err and not (tmp_path / "s").exists()


def test_a_second_eval_into_the_same_out_is_refused_while_the_first_runs(small_build, tmp_path, capsys):
    """Two runs into one folder: the second one's resume would replace the file the first appends to."""
    import subprocess
    import sys
    import time

    out = tmp_path / "run"
    with StubServer(lambda body: "A", delay=0.3) as stub:
        first = subprocess.Popen([sys.executable, "-m", "dicobench.cli.main", *eval_argv(small_build, out, stub)],
                                 stderr=subprocess.PIPE, text=True)
        try:
            deadline = time.time() + 120
            while not stub.requests and time.time() < deadline:  # the first run is asking
                time.sleep(0.1)
            assert dicobench(eval_argv(small_build, out, stub)) == 2
            err = capsys.readouterr().err.strip()
            assert len(err.splitlines()) == 1 and f"pid {first.pid}" in err
        finally:
            assert first.wait(timeout=300) == 0
        assert len(stub.requests) == 8  # each row asked once
    assert len(records(out / "predictions.jsonl")) == 8


# ---- endpoints that misbehave: a malformed 200 is an error row, never a traceback ----

def _completion(**changes):
    body = {"id": "x", "object": "chat.completion", "created": 0, "model": "m",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": "A"}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}}
    for key, value in changes.items():
        if key in ("content", "message"):
            choice = body["choices"][0]
            if key == "message":
                choice["message"] = value
            else:
                choice["message"]["content"] = value
        else:
            body[key] = value
    return json.dumps(body).encode()


MALFORMED = {
    "not JSON": (b"{not json", "application/json"),
    "html": (b"<html><body>Bad gateway</body></html>", "text/html"),
    "content a number": (_completion(content=42), "application/json"),
    "content a list": (_completion(content=["A"]), "application/json"),
    "no message": (_completion(message=None), "application/json"),
    "null usage fields": (_completion(usage={"prompt_tokens": None, "completion_tokens": None}), "application/json"),
    "choices null": (_completion(choices=None), "application/json"),
    "a JSON list": (b"[1, 2]", "application/json"),
}


@pytest.mark.parametrize("case", MALFORMED)
def test_a_malformed_200_reply_is_an_error_completion(case, tmp_path):
    from dicobench.kit.eval.chat import ChatClient

    with StubServer() as stub:
        stub.script.append(("raw", *MALFORMED[case]))
        client = ChatClient("m", base_url=stub.base_url, api_key="k", max_retries=0, cache_dir=tmp_path)
        try:
            done = client.complete([{"role": "user", "content": "q"}])
        finally:
            client.close()
    if case == "null usage fields":  # the text is there: an answer, its tokens uncounted
        assert done.text == "A" and done.error is None and done.prompt_tokens == 0
    else:
        assert done.text is None and done.error


def test_a_malformed_reply_in_eval_is_an_error_row(small_build, tmp_path):
    out = tmp_path / "run"
    with StubServer(lambda body: "A") as stub:
        stub.script.extend([("ok", "A"), ("raw", *MALFORMED["content a list"])])
        assert dicobench(eval_argv(small_build, out, stub, "--retries", "0")) == 1
    assert sum(r["error"] is not None for r in records(out / "predictions.jsonl")) == 1


# ---- the judge caches only what it could read, per endpoint; Ctrl-C stops at once and keeps what came ----

def _client(stub, cache, **kw):
    from dicobench.kit.eval.chat import ChatClient

    return ChatClient("judge", base_url=stub.base_url, api_key="k", cache_dir=cache, max_retries=0, **kw)


def test_the_judge_caches_only_replies_it_could_read_and_keys_them_by_endpoint(tmp_path):
    asks = [[{"role": "user", "content": f"q{i}"}] for i in range(3)]
    readable = {"yes", "no"}.__contains__
    replies = iter(["Oui", "42", "yes"] + ["yes"] * 10)
    with StubServer(lambda body: next(replies)) as stub:
        client = _client(stub, tmp_path, concurrency=1)
        try:
            assert [c.text for c in client.complete_many(asks, readable=readable)] == ["Oui", "42", "yes"]
            assert [c.cached for c in client.complete_many(asks, readable=readable)] == [False, False, True]
        finally:
            client.close()
        assert len(stub.requests) == 5
        with StubServer(lambda body: "no") as other:  # another endpoint, the same model name and cache
            client = _client(other, tmp_path)
            try:
                assert [c.text for c in client.complete_many(asks, readable=readable)] == ["no"] * 3
            finally:
                client.close()


def test_ctrl_c_during_judging_cancels_what_was_not_sent_and_keeps_what_came(tmp_path):
    import signal
    import subprocess
    import sys
    import time

    def delay(body: dict) -> float:  # the third request hangs: an interrupt must not wait for it
        return 30.0 if "q2" in json.dumps(body) else 0.2

    with StubServer(lambda body: "yes", delay=delay) as stub:
        # a command started from a shell takes Ctrl-C; a child inherits the signals its parent blocks or
        # ignores, and code run before this test in pytest's process may leave SIGINT so
        script = ("import signal, sys; signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGINT]); "
                  "signal.signal(signal.SIGINT, signal.default_int_handler)\n"
                  "sys.path.insert(0, 'tests')\n"
                  "from dicobench.kit.eval.chat import ChatClient\n"
                  f"c = ChatClient('judge', base_url={stub.base_url!r}, api_key='k', cache_dir={str(tmp_path)!r}, "
                  "concurrency=1)\n"
                  "try:\n    c.complete_many([[{'role': 'user', 'content': f'q{i}'}] for i in range(12)])\n"
                  "finally:\n    c.close()\n")
        proc = subprocess.Popen([sys.executable, "-c", script], stderr=subprocess.PIPE, text=True)
        deadline = time.time() + 60
        while len(stub.requests) < 3 and time.time() < deadline:
            time.sleep(0.05)
        at_interrupt = len(stub.requests)
        proc.send_signal(signal.SIGINT)
        stopped = time.time()
        proc.wait(timeout=60)
        waited = time.time() - stopped
        time.sleep(1)
        sent = len(stub.requests)
    assert waited < 20  # the hung request in flight (30 s) is not waited for (a loaded machine took 4 s to exit)
    # at once, not after the queue: at most the request in flight follows the interrupt (counted, not
    # timed, so a loaded machine cannot fail it)
    assert 3 <= at_interrupt and sent <= at_interrupt + 1 < 12
    assert proc.returncode != 0
    import sqlite3

    kept = sqlite3.connect(tmp_path / "completions.sqlite").execute("SELECT count(*) FROM completions").fetchone()[0]
    assert kept >= 2  # the replies that arrived before the interrupt


# ---- one line, status 2, for values no one means ----

@pytest.fixture
def answers(small_build, tmp_path):
    rows = datasets.load_dataset(str(small_build), "all", split="test")
    path = tmp_path / "p.jsonl"
    path.write_text("".join(json.dumps({"id": i, "response": "A"}) + "\n" for i in rows["id"]))
    return path


def _one_line(capsys, *words):
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and err.startswith("dicobench: error:") and "Traceback" not in err, err
    for word in words:
        assert word in err, err


def test_absurd_scoring_values_and_a_corrupt_cache_are_one_line(small_build, answers, tmp_path, capsys):
    score = ["score", str(answers), "--dataset", str(small_build), "--out", str(tmp_path / "s")]
    assert dicobench([*score, "--n-boot", "100000000000"]) == 2
    _one_line(capsys, "n_boot")
    judge = [*score, "--judge", "openai:j", "--judge-base-url", "http://127.0.0.1:9/v1", "--judge-cache",
             str(tmp_path / "cache")]
    assert dicobench([*judge, "--judge-timeout", "inf"]) == 2
    _one_line(capsys, "timeout")
    (tmp_path / "cache").mkdir()
    (tmp_path / "cache" / "completions.sqlite").write_bytes(b"not a database" * 100)
    assert dicobench(judge) == 2
    _one_line(capsys, "completions.sqlite", "remove it")
    deep = tmp_path / "deep.jsonl"
    deep.write_text('{"id": "x", "response": ' + "[" * 100_000 + "]" * 100_000 + "}\n")
    assert dicobench(["score", str(deep), "--dataset", str(small_build), "--out", str(tmp_path / "d")]) == 2
    _one_line(capsys, "deep.jsonl:1")


def test_a_failed_push_leaves_the_card_and_the_folder_as_they_were(build_copy, capsys, monkeypatch):
    import dicobench.kit.cli.push as push
    from dicobench.kit.errors import UserError

    def unreachable(*args, **kwargs):
        raise UserError("cannot reach the Hub")

    monkeypatch.setattr(push, "push_folder", unreachable)
    before = {p: p.read_bytes() for p in build_copy.rglob("*") if p.is_file()}
    assert dicobench(["push", str(build_copy), "--repo-id", "org/bench"]) == 2
    assert {p: p.read_bytes() for p in build_copy.rglob("*") if p.is_file()} == before


def test_values_no_one_means_are_refused(small_build, tmp_path, capsys):
    for argv, flag in ((["export", "lmms-eval", "--dataset", str(small_build), "--out", str(tmp_path / "t"),
                         "--max-new-tokens", "0"], "--max-new-tokens"),
                       (["review", str(small_build), "--port", "70000"], "--port")):
        with pytest.raises(SystemExit) as stopped:  # argparse's usage line and status 2
            dicobench(argv)
        assert stopped.value.code == 2 and flag in capsys.readouterr().err
    assert not (tmp_path / "t").exists()
    samples = tmp_path / "2024_samples_dicobench_entity.jsonl"
    samples.write_text("".join(json.dumps({"doc_id": i, "filtered_resps": [[{"text": "A"}]]}) + "\n"
                               for i in range(2)))
    assert dicobench(["import", "lmms-eval", str(samples), "--dataset", str(small_build), "--out",
                      str(tmp_path / "p.jsonl")]) == 2
    _one_line(capsys, "filtered_resps")
    assert not (tmp_path / "p.jsonl").exists()


@pytest.mark.parametrize("escape", ["../../secret.png", "ABSOLUTE"])
def test_a_coco_file_name_outside_its_photo_folder_is_never_read(tmp_path, escape):
    import shutil
    import sys

    sys.path.insert(0, str(__import__("pathlib").Path(__file__).parents[1]))
    from coco_fixtures import make_coco

    from dicobench.kit.errors import UserError
    from dicobench.kit.photos.coco import CocoSource
    from dicobench.kit.photos.model import PhotoSkipped

    path = make_coco(tmp_path / "coco")
    data = json.loads(path.read_text())
    first = tmp_path / "coco" / "images" / data["images"][0]["file_name"]
    secret = tmp_path / "secret.png"
    shutil.copy(first, secret)  # a readable photo, so only the confinement can refuse it
    data["images"][0]["file_name"] = str(secret) if escape == "ABSOLUTE" else escape
    path.write_text(json.dumps(data))
    with pytest.raises((UserError, PhotoSkipped), match="outside the photo folder"):  # the build skips it too
        CocoSource(path).load(0)


# ---- review decisions bind to the row content they judged ----

def _review_one(out, verdict="reject"):
    """Reject the first attribute row as the review page does: bound to its stored content."""
    from dicobench.benchmark import BENCHMARK
    from dicobench.kit.io.rowstore import RowStore
    from dicobench.kit.people.decisions import DecisionLog, decisions_path, make_decision

    spec = BENCHMARK.people
    store = RowStore(out, ["attribute"], spec.image_columns)
    row_id = sorted(store.rows)[0]
    log = DecisionLog(decisions_path(out))
    log.check_writable()
    log.append(make_decision(row_id, "ann", verdict, ["naturalness"], "", store.rows[row_id]["seed"],
                             spec.criteria_keys, digest=store.digest(row_id)))
    return row_id, store.rows[row_id]["seed"]


def _seeds(out):
    import pyarrow.parquet as pq

    return {r["id"]: r["seed"] for f in sorted(out.glob("*/test-*.parquet"))
            for r in pq.read_table(f, columns=["id", "seed"]).to_pylist()}


def test_overwrite_with_other_options_applies_no_old_rejection(tmp_path, caplog):
    from dicobench.build import build

    out = tmp_path / "bench"
    build(out, per_task=2, seed=3, tasks="attribute", camera="none", num_proc=1, progress=False)
    row_id, seed = _review_one(out)
    caplog.clear()
    with caplog.at_level("WARNING", logger="dicobench"):  # the library warns; a command shows it on stderr
        build(out, per_task=2, seed=3, tasks="attribute", camera="on", overwrite=True, num_proc=1, progress=False)
    assert _seeds(out)[row_id] == seed  # same id and seed, other content: the old rejection does not apply
    said = caplog.text
    assert "review log" in said and "set aside" in said and str(tmp_path) not in said.replace(str(out), "OUT")
    assert not (out / ".review" / "decisions.jsonl").exists()
    assert list((out / ".review").glob("decisions-before-overwrite-*.jsonl"))


def test_a_decision_applies_only_to_the_content_it_judged(tmp_path):
    from dicobench.build import build
    from dicobench.kit.people.decisions import decisions_path

    out = tmp_path / "bench"
    options = dict(per_task=2, seed=3, tasks="attribute", num_proc=1, progress=False)
    build(out, **options)
    row_id, seed = _review_one(out)
    log = decisions_path(out)
    line = json.loads(log.read_text())
    log.write_text(json.dumps({**line, "digest": "0" * 32}) + "\n")  # judged another version of this id and seed
    build(out, **options)
    assert _seeds(out)[row_id] == seed
    log.write_text(json.dumps(line) + "\n")  # the version on disk: rejected, regenerated
    build(out, **options)
    assert _seeds(out)[row_id] != seed


# ---- what a build folder someone hands you carries never runs or reaches the card ----

HOSTILE_CRITERION = '<img src=x onerror="document.title=1">'
BAD_NAMES = ["ann\nbob", "ann\u200b", "\u202eann", "ann\x07", "a\u2028b", " ann "]


def test_criteria_and_names_read_back_from_the_log_are_validated(build_copy):
    from dicobench.card import write_card
    from dicobench.kit.people.decisions import decisions_path, read_log

    row = _seeds(build_copy)
    row_id = sorted(row)[0]
    line = {"id": row_id, "reviewer": "ann", "verdict": "reject", "criteria": [HOSTILE_CRITERION], "note": "",
            "time": "2026-12-01T00:00:00+00:00", "seed": row[row_id]}
    log = decisions_path(build_copy)
    log.parent.mkdir()
    log.write_text("".join(json.dumps(x) + "\n" for x in [line, *({**line, "criteria": [], "reviewer": name}
                                                                   for name in BAD_NAMES)]))
    from dicobench.benchmark import BENCHMARK

    contents = read_log(log, BENCHMARK.people.criteria_keys)
    assert not contents.decisions and [n for n, _ in contents.malformed] == list(range(1, 2 + len(BAD_NAMES)))
    write_card(build_copy)
    card = (build_copy / "README.md").read_text()
    assert "onerror" not in card and not any(name in card for name in BAD_NAMES[:-1])


def test_the_review_page_inserts_decisions_as_text_and_refuses_bad_names(build_copy):
    from pathlib import Path

    from test_server_inputs import Client

    import dicobench.kit.people.webapp as webapp
    from dicobench.benchmark import BENCHMARK
    from dicobench.kit.people.decisions import decisions_path
    from dicobench.kit.people.webapp.launch import review

    js = (Path(webapp.__file__).parent / "static" / "review.js").read_text()
    others = js.split("function renderOthers")[1].split("\nfunction ")[0]
    assert "innerHTML" not in others and "textContent" in others  # criteria, names and notes go in as text
    server = review(BENCHMARK.people, build_copy, port=0, reviewer="ann", background=True, announce=lambda line: None)
    try:
        client = Client(server.url)
        row = json.loads(client.request("GET", "api/rows")[1])["rows"][0]["id"]
        for name in BAD_NAMES:
            status, reply = client.request("POST", "api/decision", json.dumps(
                {"id": row, "reviewer": name, "verdict": "accept"}).encode())
            assert status == 400 and b"reviewer" in reply, (name, status, reply)
        assert not decisions_path(build_copy).exists() or decisions_path(build_copy).read_text() == ""
    finally:
        server.stop()
    assert dicobench(["review", str(build_copy), "--reviewer", "ann\u200b", "--port", "0"]) == 2


def test_study_image_bytes_say_nothing_about_the_answer(tmp_path):
    """An easy (camera-less) build's E pairs are byte-identical on disk; as served to a participant,
    no pair's two images are equal, nor their lengths a tell, while the pixels are the stored ones."""
    import io
    import urllib.request

    import numpy as np
    from PIL import Image

    from dicobench.benchmark import BENCHMARK
    from dicobench.build import build
    from dicobench.kit.io.rowstore import RowStore
    from dicobench.kit.people.webapp.study import served_png

    spec = BENCHMARK.people
    build_copy = build(tmp_path / "easy", per_task=5, seed=0, tasks="entity", difficulty="easy", num_proc=1,
                       progress=False)
    store = RowStore(build_copy, ["entity"], spec.image_columns)
    e_rows = [i for i, r in store.rows.items() if r["answer"] == "E"]
    assert e_rows
    for row_id in e_rows:
        a, b = (store.image(row_id, c) for c in spec.image_columns)
        assert a == b  # what the bytes on disk give away
        served = [served_png(a), served_png(b), served_png(a)]
        assert len({*served}) == 3 and len({len(s) for s in served}) > 1  # every serving differs, lengths too
        pixels = [np.asarray(Image.open(io.BytesIO(s))) for s in (a, *served)]
        assert all(np.array_equal(pixels[0], p) for p in pixels[1:])  # not one pixel changed

    from test_server_inputs import Client

    from dicobench.kit.people.webapp.launch import study

    server = study(spec, build_copy, time_limit=None, participant="faults", n=5, port=0, background=True,
                   announce=lambda line: None)
    try:
        client = Client(server.url)
        for _ in range(5):  # every item, the E rows among them
            item = json.loads(client.request("POST", "api/next", b"{}")[1])
            got = [urllib.request.urlopen(server.url + f"image/{item['k']}/{w}?key={item['key']}", timeout=10).read()
                   for w in (0, 1)]
            assert got[0] != got[1] and all(g.startswith(b"\x89PNG") for g in got)
            client.request("POST", "api/answer", json.dumps({"k": item["k"], "response": "A"}).encode())
    finally:
        server.stop()


# ---- a build of one benchmark handed to the other's command ----

@pytest.fixture(scope="module")
def mpv_build(tmp_path_factory):
    from multipanelvqa.build import build

    return build(tmp_path_factory.mktemp("mpv") / "b", layouts=[0], configs=["original"], num_proc=1, progress=False)


@pytest.mark.parametrize("which", ["dicobench", "multipanelvqa"])
@pytest.mark.parametrize("command", ["export lmms-eval", "export vlmevalkit", "info --verify", "eval"])
def test_a_build_of_the_other_benchmark_is_refused(small_build, mpv_build, tmp_path, capsys, which, command):
    from multipanelvqa.cli.main import main as multipanelvqa

    run, folder, other = ((dicobench, mpv_build, "multipanelvqa") if which == "dicobench"
                          else (multipanelvqa, small_build, "dicobench"))
    argv = {"export lmms-eval": ["export", "lmms-eval", "--dataset", str(folder), "--out", str(tmp_path / "t")],
            "export vlmevalkit": ["export", "vlmevalkit", "--dataset", str(folder), "--out", str(tmp_path / "X.tsv")],
            "info --verify": ["info", str(folder), "--verify"],
            "eval": ["eval", "--dataset", str(folder), "--model", "openai:m", "--base-url", "http://127.0.0.1:9",
                     "--api-key", "k", "--out", str(tmp_path / "run")]}[command]
    capsys.readouterr()
    assert run(argv) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and f"{other} build" in err and "Traceback" not in err, err
    assert not [p for p in tmp_path.rglob("*") if p.is_file()]  # nothing written, no *.tsv.tmp


def test_leaderboard_refuses_one_run_given_twice(tmp_path):
    import shutil

    from dicobench.kit.errors import UserError
    from dicobench.kit.report.leaderboard import load_scores

    run = tmp_path / "run"
    run.mkdir()
    (run / "scores.json").write_text(json.dumps({"benchmark": "dicobench", "provenance": {"fingerprint": "f"}}))
    shutil.copytree(run, tmp_path / "copy")
    for twice in ([run, run], [run, tmp_path / "copy"], [run, run / "scores.json"]):
        with pytest.raises(UserError, match="same run"):
            load_scores(twice, "dicobench")


# ---- a shard edited in place: every reader gets its current rows, never the `datasets` cache of the old ones ----

def _edit_in_place(shard, column, change):
    """Rewrite one value of a shard as an edit in place (the card unchanged), the file's times kept:
    `datasets` keys its cache of a local folder on the card and the paths, never on the bytes."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    stat = shard.stat()
    table = pq.read_table(shard)
    values = table.column(column).to_pylist()
    values[0] = change(values[0])
    field = table.schema.field(column)
    pq.write_table(table.set_column(table.schema.get_field_index(column), field, pa.array(values, field.type)), shard)
    os.utime(shard, ns=(stat.st_atime_ns, stat.st_mtime_ns))


@pytest.mark.parametrize("columns", [None, ["id", "answer"]])
def test_load_split_reads_a_shard_edited_in_place(build_copy, columns):
    import subprocess
    import sys

    import pyarrow.parquet as pq

    from dicobench.kit.io.predictions import load_split

    shard = build_copy / "entity" / "test-00000-of-00001.parquet"
    first = load_split(str(build_copy), "all", "test", columns)
    row = first["id"].index(pq.read_table(shard, columns=["id"])["id"][0].as_py())
    _edit_in_place(shard, "answer", lambda a: (a + 1) % 5)
    assert load_split(str(build_copy), "all", "test", columns)["answer"][row] == (first["answer"][row] + 1) % 5
    # and in a new process, over the same `datasets` cache
    script = ("from dicobench.kit.io.predictions import load_split\n"
              f"print(load_split({str(build_copy)!r}, 'all', 'test', {columns!r})['answer'][{row}])")
    import datasets

    env = {**os.environ, "HF_DATASETS_CACHE": str(datasets.config.HF_DATASETS_CACHE), "PYTHONPATH": os.getcwd()}
    _edit_in_place(shard, "answer", lambda a: (a + 1) % 5)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr
    assert int(done.stdout.strip()) == (first["answer"][row] + 2) % 5



# ---- a write error mid-build (a full disk, a file size limit) is one line, and the rerun finishes the build ----

def test_a_write_error_mid_build_is_one_line_and_the_rerun_finishes(tmp_path):
    """`ulimit -f` as a full disk: Arrow aborted the process (SIGABRT) on the failed write."""
    import resource
    import subprocess
    import sys

    out = tmp_path / "bench"
    argv = [sys.executable, "-m", "dicobench.cli.main", "build", "--out", str(out), "--per-task", "2",
            "--tasks", "entity,attribute", "--num-proc", "1", "--quiet"]
    env = {**os.environ, "PYTHONPATH": os.getcwd()}

    def small_files():
        resource.setrlimit(resource.RLIMIT_FSIZE, (200_000, 200_000))

    full = subprocess.run(argv, capture_output=True, text=True, env=env, preexec_fn=small_files, timeout=300)
    err = full.stderr.strip()
    assert full.returncode == 2 and len(err.splitlines()) == 1 and "Traceback" not in err, (full.returncode, err)
    assert err.startswith("dicobench: error:") and "File too large" in err and "rerun" in err
    assert not list(out.rglob("*.partial"))
    done = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr
    assert dicobench(["info", str(out), "--verify"]) == 0


# ---- preview sizes no one means are refused before anything is drawn ----

@pytest.mark.parametrize("size", [["--thumb", "60000"], ["-n", "100000000"], ["-n", "65"]])
def test_preview_refuses_sizes_that_would_exhaust_memory(small_build, tmp_path, size):
    """In a child whose address space is capped, as a machine's memory is: it was killed, or a MemoryError."""
    import resource
    import subprocess
    import sys

    def capped():
        resource.setrlimit(resource.RLIMIT_AS, (6 << 30, 6 << 30))

    out = tmp_path / "sheet.png"
    done = subprocess.run([sys.executable, "-m", "dicobench.cli.main", "preview", str(small_build), "--out", str(out),
                           *size], capture_output=True, text=True, env={**os.environ, "PYTHONPATH": os.getcwd()},
                          preexec_fn=capped, timeout=300)
    err = done.stderr.strip()
    assert done.returncode == 2 and len(err.splitlines()) == 1 and "Traceback" not in err, (done.returncode, err)
    assert err.startswith("dicobench: error:") and size[-2] in err and not out.exists()


# ---- a shard removed or replaced while the review or study page serves it: one clear JSON error, never a 500 ----

@pytest.mark.parametrize("damage", ["removed", "replaced"])
@pytest.mark.parametrize("page", ["review", "study"])
def test_a_shard_removed_or_replaced_while_serving_is_a_clear_error(build_copy, page, damage):
    import shutil

    from test_server_inputs import Client

    from dicobench.benchmark import BENCHMARK
    from dicobench.kit.people.webapp.launch import review, study

    spec = BENCHMARK.people
    if page == "review":
        server = review(spec, build_copy, port=0, reviewer="ann", background=True, announce=lambda line: None)
    else:
        server = study(spec, build_copy, time_limit=None, participant="faults", n=16, port=0, background=True,
                       announce=lambda line: None)
    try:
        client = Client(server.url)
        if page == "review":
            rows = json.loads(client.request("GET", "api/rows")[1])["rows"]
            row = json.loads(client.request("GET", f"api/row/{rows[0]['id']}")[1])
            asks = [("GET", f"image/{rows[0]['id']}/0?v={row['version']}", None),
                    ("POST", "api/decision", json.dumps({"id": rows[0]["id"], "verdict": "accept"}).encode())]
        else:
            item = json.loads(client.request("POST", "api/next", b"{}")[1])
            asks = [("GET", f"image/{item['k']}/0?key={item['key']}", None)]
        for config in ("entity", "attribute", "instance", "category", "spatial_relation", "spatial_grounding",
                       "difference_reasoning", "commonality_reasoning"):
            shard = build_copy / config / "test-00000-of-00001.parquet"
            if damage == "removed":
                shard.unlink()
            else:
                shutil.copy(shard, shard.with_suffix(".tmp"))
                os.replace(shard.with_suffix(".tmp"), shard)
        for method, path, body in asks:
            status, reply = client.request(method, path, body)
            assert status == (410 if damage == "removed" else 409), (path, status, reply)
            error = json.loads(reply)["error"]
            assert len(error.splitlines()) == 1 and "test-00000-of-00001.parquet" in error
            assert str(build_copy) not in error and "/test-00000" in error  # relative to the build folder
            assert ("removed" if damage == "removed" else "rewritten") in error
    finally:
        server.stop()
