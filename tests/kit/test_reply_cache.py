"""The reply cache keeps prompts and replies, and only a hash of each inline image."""

import base64
import hashlib
import io
import json
import sqlite3

import numpy as np
from openai_stub import StubServer
from PIL import Image

from dicobench.kit.eval.chat import ChatClient
from dicobench.kit.eval.reply_cache import request_key, without_images


def image_message(seed: int) -> list[dict]:
    buf = io.BytesIO()
    Image.fromarray(np.random.default_rng(seed).integers(0, 255, (64, 64, 3), dtype=np.uint8)).save(buf, format="PNG")
    url = "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode()
    return [{"role": "user", "content": [{"type": "text", "text": "Does the edit match?"},
                                         {"type": "image_url", "image_url": {"url": url}}]}]


def test_cached_requests_hold_image_hashes_not_images(tmp_path):
    messages = [image_message(0), image_message(1)]
    payloads = [m[0]["content"][1]["image_url"]["url"].split(",", 1)[1] for m in messages]
    with StubServer(reply=lambda body: "yes") as stub:
        first = ChatClient("vlm", base_url=stub.base_url, api_key="sk-x", cache_dir=tmp_path, backoff=0.01)
        assert [c.text for c in first.complete_many(messages)] == ["yes", "yes"]
        again = ChatClient("vlm", base_url=stub.base_url, api_key="sk-x", cache_dir=tmp_path, backoff=0.01)
        assert all(c.cached for c in again.complete_many(messages)) and len(stub.requests) == 2
    (db,) = tmp_path.glob("*.sqlite")
    stored = sqlite3.connect(db).execute("SELECT key, request FROM completions ORDER BY key").fetchall()
    assert len(stored) == 2
    blob = b"".join(p.read_bytes() for p in tmp_path.iterdir())
    for payload in payloads:
        assert payload[:200].encode() not in blob
    texts = {json.loads(request)["messages"][0]["content"][1]["image_url"]["url"] for _, request in stored}
    assert texts == {f"data:image/png;sha256={hashlib.sha256(p.encode()).hexdigest()}" for p in payloads}
    # the key is still the hash of the whole request (with its endpoint), images included: other images, other entries
    assert {key for key, _ in stored} == {request_key(first._keyed(first._request(m))) for m in messages}


def test_without_images_leaves_text_alone():
    request = {"model": "m", "messages": [{"role": "user", "content": "data: not an image"}]}
    assert without_images(request) == request
