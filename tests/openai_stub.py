"""A scriptable OpenAI-compatible chat server on 127.0.0.1 for tests (no network beyond it).

Each request to /v1/chat/completions takes the next scripted action, or the default one:
    ("ok", text)            a normal chat completion with `text`
    ("429", retry_after)    rate limited, with a Retry-After header in seconds
    ("500",)                a server error
    ("401",)                an authentication error
    ("hang", seconds)       no reply for `seconds` (longer than the client's timeout)
    ("drop",)               the connection closed without a reply (as a server that went away)
    ("status", code, headers)  an error reply with any status code and headers
    ("raw", body, content_type)  a 200 reply with exactly `body` (bytes), malformed or not
The default action is `("ok", reply(body))`, with `reply` given by the test. Every request
(path, lower-cased headers, JSON body) is recorded in `requests` (unless `record=False`). `delay` is seconds before
each reply, or a function of the request body giving them (e.g. seeded random latency).

Requests to /v1/embeddings are always answered, one vector per input text from `embedding`
(by default a deterministic vector derived from the text), and take no scripted action.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections import deque
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Callable


def hashed_replies(answers: dict[str, str]) -> Callable[[dict], str]:
    """A stub model right on some prompts and wrong or unreadable on others, whatever they hold: by a
    hash of the request's last text it answers its right letter (`answers[text]`), the next letter,
    or nothing readable; the same reply for the same prompt."""

    def reply(body: dict) -> str:
        text = body["messages"][0]["content"][-1]["text"]
        pick = hashlib.sha256(text.encode()).digest()[0]
        if pick % 7 == 0:
            return "No idea."
        right = answers[text]
        return f"The answer is ({right if pick % 2 else 'ABCDE'[('ABCDE'.index(right) + 1) % 5]})."

    return reply


def text_vector(text: str, dim: int = 8) -> list[float]:
    """A stand-in embedding: the same text always gives the same vector."""
    return [b / 255.0 - 0.5 for b in hashlib.sha256(text.encode()).digest()[:dim]]


class StubServer:
    def __init__(self, reply: Callable[[dict], str] = lambda body: "yes", delay: float | Callable[[dict], float] = 0.0,
                 embedding: Callable[[str], list[float]] = text_vector, record: bool = True):
        self.reply = reply
        self.embedding = embedding
        self.delay = delay
        self.record = record
        self.served = 0
        self.script: deque = deque()
        self.requests: list[dict] = []
        self.in_flight = 0
        self.max_in_flight = 0
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, args=(0.02,), daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def __enter__(self) -> "StubServer":
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._server.shutdown()
        self._server.server_close()

    def _next_action(self, body: dict) -> tuple:
        with self._lock:
            if self.script:
                return self.script.popleft()
        return ("ok", self.reply(body))

    def _handler(self):
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # keep test output quiet
                pass

            def do_POST(self):
                length = int(self.headers.get("Content-Length", 0))
                raw = self.rfile.read(length)
                if len(raw) < length:  # the client went away mid-request (killed): nothing was asked
                    return
                body = json.loads(raw or b"{}")
                with stub._lock:
                    stub.served += 1
                    if stub.record:
                        stub.requests.append({"path": self.path,
                                              "headers": {k.lower(): v for k, v in self.headers.items()},
                                              "body": body})
                    stub.in_flight += 1
                    stub.max_in_flight = max(stub.max_in_flight, stub.in_flight)
                self._open = True
                try:
                    if self.path.rstrip("/").endswith("/embeddings"):
                        self._embeddings(body)
                    else:
                        self._answer(stub._next_action(body), body)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (its timeout), as a hanging test intends
                finally:
                    self._done()

            def _done(self):
                """The request stops counting as in flight once its reply starts going out: the
                client may send its next request before this thread has finished writing."""
                if getattr(self, "_open", False):
                    self._open = False
                    with stub._lock:
                        stub.in_flight -= 1

            def _answer(self, action, body):
                kind = action[0]
                if kind == "hang":
                    stub._stop.wait(action[1])
                    return
                if kind == "drop":
                    self.close_connection = True
                    return
                stub._stop.wait(stub.delay(body) if callable(stub.delay) else stub.delay)
                if kind == "ok":
                    text = action[1]
                    payload = {
                        "id": f"chatcmpl-{len(stub.requests)}",
                        "object": "chat.completion",
                        "created": 0,
                        "model": body.get("model", ""),
                        "choices": [
                            {"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}
                        ],
                        "usage": {"prompt_tokens": 10, "completion_tokens": 1, "total_tokens": 11},
                    }
                    self._send(200, payload)
                elif kind == "429":
                    self._send(429, {"error": {"message": "rate limited", "type": "rate_limit"}},
                               {"Retry-After": str(action[1])})
                elif kind == "500":
                    self._send(500, {"error": {"message": "internal error", "type": "server_error"}})
                elif kind == "status":
                    self._send(action[1], {"error": {"message": f"status {action[1]}", "type": "error"}}, action[2])
                elif kind == "raw":
                    self._done()
                    self.send_response(200)
                    self.send_header("Content-Type", action[2])
                    self.send_header("Content-Length", str(len(action[1])))
                    self.end_headers()
                    self.wfile.write(action[1])
                elif kind == "401":
                    self._send(401, {"error": {"message": "invalid key", "type": "invalid_request_error"}})
                else:
                    raise ValueError(f"unknown stub action {action!r}")

            def _embeddings(self, body):
                texts = body["input"] if isinstance(body["input"], list) else [body["input"]]
                data = [{"object": "embedding", "index": i, "embedding": stub.embedding(t)}
                        for i, t in enumerate(texts)]
                self._send(200, {"object": "list", "data": data, "model": body.get("model", ""),
                                 "usage": {"prompt_tokens": len(texts), "total_tokens": len(texts)}})

            def _send(self, status, payload, headers=None):
                data = json.dumps(payload).encode()
                self._done()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for name, value in (headers or {}).items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(data)

        return Handler
