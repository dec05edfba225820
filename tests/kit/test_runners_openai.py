"""The OpenAI-compatible runner against a stub server on 127.0.0.1: full-resolution lossless
images, interleaving, temperature 0, failures recorded then retried, the key kept out of files."""

import base64
import io
import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import datasets
import numpy as np
from openai_stub import StubServer
from PIL import Image

from dicobench.cli.main import main as dicobench
from dicobench.kit.eval.runners import load_runner
from dicobench.kit.io.lazy_images import open_image
from dicobench.kit.io.predictions import first_per_config
from dicobench.schema import LETTERS, prompt_text

KEY = "sk-test-secret-123"


def image_of(part: dict) -> Image.Image:
    url = part["image_url"]["url"]
    assert url.startswith("data:image/png;base64,")
    return Image.open(io.BytesIO(base64.b64decode(url.split(",", 1)[1])))


def test_dicobench_requests_carry_two_full_images_and_failures_are_retried(small_build, tmp_path):
    rows = datasets.load_dataset(str(small_build), "all", split="test")
    by_prompt = {prompt_text(r["question"], r["options"]): r for r in rows}

    def reply(body):  # answer correctly, so the scores prove the whole chain
        return f"The answer is ({LETTERS[by_prompt[body['messages'][0]['content'][-1]['text']]['answer']]})."

    out = tmp_path / "run"
    argv = ["eval", "--dataset", str(small_build), "--limit", "1", "--model", "openai:stub-vlm", "--out", str(out),
            "--concurrency", "1", "--api-key", KEY, "--quiet"]
    with StubServer(reply) as stub:
        argv += ["--base-url", stub.base_url]
        stub.script.extend([("429", 0)] * 6)  # the first row exhausts its retries
        assert dicobench(argv) == 1
        # an API failure is not scored as a wrong answer: the scores are incomplete, bounded by it
        partial = json.loads((out / "scores.json").read_text())
        assert partial["complete"] is False and partial["unscored"] == 1 and "accuracy" not in partial
        assert (partial["accuracy_lower"], partial["accuracy_upper"]) == (0.875, 1.0)  # 7 of 8 rows right
        records = [json.loads(line) for line in (out / "predictions.jsonl").read_text().splitlines()]
        failed = [r for r in records if r["error"]]
        assert len(records) == 8 and len(failed) == 1 and failed[0]["response"] is None
        assert "RateLimitError" in failed[0]["error"]
        sent = len(stub.requests)
        assert dicobench(argv) == 0  # the rerun asks the failed row only
        assert len(stub.requests) == sent + 1
        assert dicobench(argv) == 0 and len(stub.requests) == sent + 1  # nothing left to ask

    for request in stub.requests:
        body = request["body"]
        assert body["temperature"] == 0 and "max_tokens" not in body
        assert request["headers"]["authorization"] == f"Bearer {KEY}"
        content = body["messages"][0]["content"]
        assert [p["type"] for p in content] == ["text", "image_url", "text", "image_url", "text"]
        assert [content[0]["text"], content[2]["text"]] == ["Image 1:", "Image 2:"]
        assert all(content[i]["image_url"]["detail"] == "high" for i in (1, 3))
        row = by_prompt[content[4]["text"]]
        for part, original in ((content[1], row["image_a"]), (content[3], row["image_b"])):
            sent_image = image_of(part)
            assert sent_image.size == original.size and max(original.size) > 1000
            assert np.array_equal(np.asarray(sent_image.convert("RGB")), np.asarray(original.convert("RGB")))

    records = [json.loads(line) for line in (out / "predictions.jsonl").read_text().splitlines()]
    assert sorted(r["id"] for r in records) == sorted(rows[i]["id"] for i in first_per_config(rows["task"], 1))
    assert all(r["error"] is None and r["parsed"] == r["answer"] and r["latency"] >= 0 for r in records)
    scores = json.loads((out / "scores.json").read_text())
    assert scores["n"] == 8 and scores["accuracy"] == 1.0 and (scores["split"], scores["limit"]) == ("test", 1)
    for path in out.iterdir():
        assert KEY not in path.read_bytes().decode("latin-1")


def test_max_side_shrinks_images_only_when_asked():
    big = Image.new("RGB", (1800, 1200), (10, 120, 200))
    with StubServer(lambda body: "A") as stub:
        for max_side, expected in ((None, (1800, 1200)), (600, (600, 400))):
            with load_runner("openai:m", base_url=stub.base_url, max_side=max_side) as runner:
                reply = runner.generate([[big, "Which?"]])[0]
            assert reply.text == "A" and reply.error is None
            content = stub.requests[-1]["body"]["messages"][0]["content"]
            assert [p["type"] for p in content] == ["image_url", "text"]
            assert image_of(content[0]).size == expected


def test_requests_stay_in_flight_without_waiting_for_the_slowest():
    """One slow request does not hold back the others: the slots it does not use keep working."""
    image = Image.new("RGB", (64, 64), (1, 2, 3))
    prompts = [[image, "slow"]] + [[image, f"fast {i}"] for i in range(30)]

    def latency(body):
        return 1.0 if body["messages"][0]["content"][-1]["text"] == "slow" else 0.03

    with StubServer(lambda body: "A", delay=latency) as stub:
        with load_runner("openai:m", base_url=stub.base_url, concurrency=4) as runner:
            start = time.perf_counter()
            order = [index for index, reply in runner.stream(prompts)]
            wall = time.perf_counter() - start
    assert sorted(order) == list(range(31)) and stub.max_in_flight == 4
    assert order.index(0) > 20  # the fast ones went on while the slow one was out (a batch would wait)
    assert wall < 1.0 + 30 * 0.03 / 3 + 0.5


def test_stored_png_bytes_are_sent_as_they_are():
    buf = io.BytesIO()
    Image.effect_noise((300, 200), 40).convert("RGB").save(buf, format="PNG", compress_level=9)
    stored = buf.getvalue()
    lazy = open_image({"bytes": stored, "path": None})
    with StubServer(lambda body: "A") as stub:
        with load_runner("openai:m", base_url=stub.base_url) as runner:
            runner.generate([[lazy, lazy.crop((0, 0, 100, 100)), "Which?"]])
    content = stub.requests[-1]["body"]["messages"][0]["content"]
    sent = [base64.b64decode(p["image_url"]["url"].split(",", 1)[1]) for p in content[:2]]
    assert sent[0] == stored  # no decode, no re-encode
    crop = Image.open(io.BytesIO(sent[1]))  # a derived image is encoded, losslessly
    assert crop.format == "PNG" and np.array_equal(np.asarray(crop), np.asarray(lazy.crop((0, 0, 100, 100))))


def test_an_interrupted_eval_resumes_exactly(small_build, tmp_path):
    """Killed at random points, each rerun asks exactly the rows missing from the file, and the
    file never holds a duplicate or a cut-off line."""
    rows = datasets.load_dataset(str(small_build), "all", split="test")
    id_of = {prompt_text(r["question"], r["options"]): r["id"] for r in rows}
    out = tmp_path / "run"
    path = out / "predictions.jsonl"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(Path(__file__).parents[2]),
                                                                     os.environ.get("PYTHONPATH")]))}
    rng = random.Random(7)

    def lines():
        return path.read_text().splitlines() if path.exists() else []

    with StubServer(lambda body: "A", delay=lambda body: rng.uniform(0.02, 0.15)) as stub:
        argv = [sys.executable, "-m", "dicobench.cli.main", "eval", "--dataset", str(small_build), "--model",
                "openai:m", "--base-url", stub.base_url, "--api-key", KEY, "--out", str(out), "--concurrency", "3",
                "--quiet"]
        for kill_after in (2, 7, 11):
            before = {json.loads(line)["id"] for line in lines()}
            sent = len(stub.requests)
            proc = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            while len(lines()) < kill_after and proc.poll() is None:
                time.sleep(0.005)
            time.sleep(rng.uniform(0, 0.05))
            proc.send_signal(signal.SIGKILL)
            proc.wait()
            asked = [id_of[r["body"]["messages"][0]["content"][-1]["text"]] for r in stub.requests[sent:]]
            assert len(asked) == len(set(asked)) and not set(asked) & before  # only rows not answered yet
            records = [json.loads(line) for line in lines()]  # every line is whole JSON
            assert len({r["id"] for r in records}) == len(records)  # no duplicate
        before = {json.loads(line)["id"] for line in lines()}
        sent = len(stub.requests)
        assert subprocess.run(argv, env=env, capture_output=True).returncode == 0
        asked = [id_of[r["body"]["messages"][0]["content"][-1]["text"]] for r in stub.requests[sent:]]
    assert sorted(asked) == sorted(set(rows["id"]) - before)
    final = [json.loads(line) for line in lines()]
    assert sorted(r["id"] for r in final) == sorted(rows["id"]) and (out / "scores.json").exists()


def free_port() -> int:
    """A loopback port nothing listens on (bound, then released)."""
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_a_dead_base_url_stops_at_once_with_one_line(small_build, tmp_path, capsys):
    out = tmp_path / "run"
    argv = ["eval", "--dataset", str(small_build), "--model", "openai:m", "--out", str(out), "--quiet",
            "--base-url", f"http://127.0.0.1:{free_port()}/v1", "--api-key", KEY]
    start = time.perf_counter()
    assert dicobench(argv) == 2  # not 16 rows failing after their retries, then "incomplete"
    assert time.perf_counter() - start < 15  # the first request is not retried (all 16 rows took 56 s before)
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("dicobench: error: cannot reach m at http://127.0.0.1:")
    assert "no row was answered" in err[0] and KEY not in err[0]
    assert not out.exists()  # nothing answered: nothing left behind


def test_a_first_request_that_times_out_is_not_retried():
    from dicobench.kit.eval.chat import ChatClient

    with StubServer() as stub:
        stub.script.extend([("hang", 5)] * 3)
        client = ChatClient("m", base_url=stub.base_url, api_key=KEY, timeout=0.3, max_retries=5, backoff=0.01)
        done = client.complete([{"role": "user", "content": "q"}], first=True)
        assert done.text is None and done.unreachable and stub.served == 1
        later = client.complete([{"role": "user", "content": "q"}])  # later requests are retried as before
        assert later.text == "yes" and stub.served == 4
        client.close()


def test_an_endpoint_that_goes_away_stops_the_run_and_a_rerun_resumes(small_build, tmp_path, capsys):
    out = tmp_path / "run"
    argv = ["eval", "--dataset", str(small_build), "--model", "openai:m", "--out", str(out), "--quiet",
            "--api-key", KEY, "--concurrency", "1", "--retries", "0"]  # one at a time: replies come in order
    with StubServer(lambda body: "A") as stub:
        stub.script.extend([("ok", "A")] * 3 + [("drop",)] * 40)  # answers 3 rows, then closes every connection
        assert dicobench(argv + ["--base-url", stub.base_url]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and "stopped: 8 requests in a row could not reach" in err[0]
        assert len(stub.requests) < 16  # the run stopped: the other rows were never sent
        records = [json.loads(line) for line in (out / "predictions.jsonl").read_text().split("\n") if line]
        assert sum(r["error"] is None for r in records) == 3 and sum(r["error"] is not None for r in records) == 8
        stub.script.clear()
        assert dicobench(argv + ["--base-url", stub.base_url]) == 0  # the endpoint is back: the rest is asked
    assert json.loads((out / "scores.json").read_text())["complete"] is True


def test_retries_is_a_runner_option_as_for_the_judge(small_build, tmp_path):
    with StubServer(lambda body: "A") as stub:
        stub.script.extend([("ok", "A"), ("500",), ("500",)])  # the second row fails twice
        argv = ["eval", "--dataset", str(small_build), "--config", "attribute", "--model", "openai:m", "--out",
                str(tmp_path / "run"), "--base-url", stub.base_url, "--api-key", KEY, "--concurrency", "1", "--quiet"]
        assert dicobench(argv + ["--retries", "1"]) == 1  # one retry: it still fails, and is unscored
        assert len(stub.requests) == 3
        assert dicobench(argv + ["--retries", "1"]) == 0 and len(stub.requests) == 4
    runner = load_runner("openai:m", base_url="http://127.0.0.1:1/v1", retries=0)
    assert runner.client.max_retries == 0
    runner.close()


def test_closing_a_client_ends_the_backoff_of_its_requests():
    import threading

    from dicobench.kit.eval.chat import ChatClient

    with StubServer() as stub:
        stub.script.extend([("500",)] * 10)
        client = ChatClient("m", base_url=stub.base_url, api_key=KEY, max_retries=5, backoff=30.0, max_backoff=30.0)
        done = []
        worker = threading.Thread(target=lambda: done.append(client.complete([{"role": "user", "content": "q"}])))
        worker.start()
        while stub.served == 0:
            time.sleep(0.01)
        time.sleep(0.1)  # the request failed and waits up to 30 s before its retry
        start = time.perf_counter()
        client.close()
        worker.join(10)
        assert not worker.is_alive() and time.perf_counter() - start < 2
        assert done[0].text is None and "InternalServerError" in done[0].error
