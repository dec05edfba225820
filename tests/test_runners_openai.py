"""The OpenAI-compatible runner against a stub server on 127.0.0.1: full-resolution lossless
images, interleaving, temperature 0, failures recorded then retried, the key kept out of files."""

import base64
import io
import json

import datasets
import numpy as np
from PIL import Image

from benchkit.runners import load_runner
from dicobench.cli import main as dicobench
from dicobench.schema import LETTERS, prompt_text
from openai_stub import StubServer

KEY = "sk-test-secret-123"


def image_of(part: dict) -> Image.Image:
    url = part["image_url"]["url"]
    assert url.startswith("data:image/png;base64,")
    return Image.open(io.BytesIO(base64.b64decode(url.split(",", 1)[1])))


def test_dicobench_requests_carry_two_full_images_and_failures_are_retried(small_build, tmp_path):
    rows = datasets.load_dataset(str(small_build), "all", split="test[:4]")
    by_prompt = {prompt_text(r["question"], r["options"]): r for r in rows}

    def reply(body):  # answer correctly, so the scores prove the whole chain
        return f"The answer is ({LETTERS[by_prompt[body['messages'][0]['content'][-1]['text']]['answer']]})."

    out = tmp_path / "run"
    argv = ["eval", "--dataset", str(small_build), "--limit", "4", "--model", "openai:stub-vlm", "--out", str(out),
            "--concurrency", "1", "--api-key", KEY, "--quiet"]
    with StubServer(reply) as stub:
        argv += ["--base-url", stub.base_url]
        stub.script.extend([("429", 0)] * 6)  # the first row exhausts its retries
        assert dicobench(argv) == 1
        # an API failure is not scored as a wrong answer: the scores are incomplete, bounded by it
        partial = json.loads((out / "scores.json").read_text())
        assert partial["complete"] is False and partial["unscored"] == 1 and "accuracy" not in partial
        assert (partial["accuracy_lower"], partial["accuracy_upper"]) == (0.75, 1.0)
        records = [json.loads(line) for line in (out / "predictions.jsonl").read_text().splitlines()]
        failed = [r for r in records if r["error"]]
        assert len(records) == 4 and len(failed) == 1 and failed[0]["response"] is None
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
    assert sorted(r["id"] for r in records) == sorted(rows["id"])
    assert all(r["error"] is None and r["parsed"] == r["answer"] and r["latency"] >= 0 for r in records)
    scores = json.loads((out / "scores.json").read_text())
    assert scores["n"] == 4 and scores["accuracy"] == 1.0 and scores["split"] == "test[:4]"
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
