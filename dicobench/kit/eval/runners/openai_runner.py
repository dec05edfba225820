"""Any OpenAI-compatible chat endpoint (OpenAI, vLLM, SGLang, Ollama, llama.cpp server).

Images go as lossless PNG data URLs at full resolution with `detail: high`: DiCoBench's cues
cover under 5% of a ~2K image, so a silent downscale or JPEG would change the benchmark. A
dataset image opened by `dicobench.kit.io.lazy_images` is sent as its stored PNG file, never decoded
or re-encoded; `max_side` shrinks images only when the user asks. `stream` keeps
`concurrency` requests in flight at all times while worker threads prepare the next payloads,
so no request waits for the slowest of a batch. The transport is the judge's `ChatClient`
(temperature 0, `retries` by `dicobench.kit.eval.retry`); a request that still fails comes back as an error
Reply, which the evaluation retries on the next run instead of scoring it.

An endpoint that is not there fails fast: until a request has reached it, a connection failure is
not retried and stops the run at once, with one line (a dead or mistyped base URL), and a run
whose requests stop reaching the endpoint (`STOP_AFTER` connection failures in a row, each after
its retries) stops instead of failing every row left.
"""

from __future__ import annotations

import base64
import io
import os
from collections import deque
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from typing import Iterable, Iterator, Sequence

from PIL import Image

from dicobench.kit.errors import UserError
from dicobench.kit.eval.runners.base import Part, Prompt, Reply, Runner
from dicobench.kit.io.lazy_images import source_bytes

#: connection failures in a row (each after its retries) that stop a run: at least this many, or `concurrency`
STOP_AFTER = 8


def png_bytes(image: Image.Image, max_side: int | None = None) -> bytes:
    """The image as a PNG file: its stored bytes when it came from one unchanged, else encoded."""
    if max_side is not None and max(image.size) > max_side:
        image = image.copy()
        image.thumbnail((max_side, max_side), Image.Resampling.LANCZOS)
    stored = source_bytes(image, "PNG")
    if stored is not None:
        return stored
    if image.mode not in ("RGB", "RGBA", "L", "LA"):
        image = image.convert("RGB")
    buf = io.BytesIO()
    image.save(buf, format="PNG", compress_level=1)  # lossless either way; level 1 is the fastest
    return buf.getvalue()


def png_data_url(image: Image.Image, max_side: int | None = None) -> str:
    """`data:image/png;base64,...` of the image, shrunk to `max_side` only when given."""
    return "data:image/png;base64," + base64.b64encode(png_bytes(image, max_side)).decode("ascii")


class OpenAIRunner(Runner):
    """One model name on one endpoint; `concurrency` requests in flight at a time."""

    options = ("base_url", "api_key", "concurrency", "max_new_tokens", "max_side", "retries")

    def __init__(self, model: str, *, base_url: str | None = None, api_key: str | None = None,
                 concurrency: int = 8, max_new_tokens: int | None = None, max_side: int | None = None,
                 timeout: float = 300.0, retries: int = 5, prepare_workers: int | None = None):
        from dicobench.kit.eval.chat import ChatClient  # deferred: the eval flags read this class's options

        if not isinstance(retries, int) or isinstance(retries, bool) or retries < 0:
            raise UserError(f"retries must be an integer of at least 0, got {retries!r}")
        self.client = ChatClient(model, base_url=base_url, api_key=api_key, max_tokens=max_new_tokens,
                                 concurrency=concurrency, timeout=timeout, max_retries=retries)
        self.concurrency = self.batch_size = self.client.concurrency
        self.max_side = max_side
        self.prepare_workers = prepare_workers or min(4, os.cpu_count() or 1)
        self.checked = False  # True once a request has reached the endpoint

    def _content(self, part: Part) -> dict:
        if isinstance(part, str):
            return {"type": "text", "text": part}
        return {"type": "image_url", "image_url": {"url": png_data_url(part, self.max_side), "detail": "high"}}

    def messages(self, prompt: Prompt) -> list[dict]:
        """The chat messages for one prompt (images read and base64-encoded here)."""
        return [{"role": "user", "content": [self._content(p) for p in prompt]}]

    def _ask(self, messages: Future, first: bool = False) -> tuple[Reply, bool]:
        """The reply, and whether the endpoint could not be reached at all."""
        completion = self.client.complete(messages.result(), first=first)
        return Reply(completion.text, completion.error, completion.latency), completion.unreachable

    def generate(self, prompts: Sequence[Prompt]) -> list[Reply]:
        replies: list[Reply | None] = [None] * len(prompts)
        for index, reply in self.stream(prompts):
            replies[index] = reply
        return replies  # type: ignore[return-value]

    def stream(self, prompts: Iterable[Prompt]) -> Iterator[tuple[int, Reply]]:
        """Replies in the order they arrive. Payloads are prepared up to `concurrency` ahead of
        the requests in flight, and a finished request is replaced at once. Until a request has
        reached the endpoint a connection failure is not retried, and one raises UserError; so do
        `STOP_AFTER` (or `concurrency`) connection failures in a row later."""
        items = enumerate(prompts)
        prepare = ThreadPoolExecutor(self.prepare_workers, thread_name_prefix="payload")
        send = ThreadPoolExecutor(self.concurrency, thread_name_prefix="request")
        prepared: deque[tuple[int, Future]] = deque()
        in_flight: dict[Future, int] = {}
        exhausted = False
        unreachable = 0  # connection failures in a row
        try:
            while True:
                while not exhausted and len(prepared) < self.concurrency:
                    item = next(items, None)
                    if item is None:
                        exhausted = True
                    else:
                        prepared.append((item[0], prepare.submit(self.messages, item[1])))
                while prepared and len(in_flight) < self.concurrency:
                    index, messages = prepared.popleft()
                    in_flight[send.submit(self._ask, messages, not self.checked)] = index
                if not in_flight:
                    return
                finished, _ = wait(in_flight, return_when=FIRST_COMPLETED)
                for future in finished:
                    reply, failed = future.result()
                    if failed and not self.checked:
                        raise UserError(f"cannot reach {self.client.model} at {self.client.endpoint} "
                                        f"({reply.error}): check the base URL and that the server is up; "
                                        "no row was answered")
                    self.checked = True
                    unreachable = unreachable + 1 if failed else 0
                    yield in_flight.pop(future), reply
                    if unreachable >= max(STOP_AFTER, self.concurrency):
                        raise UserError(f"stopped: {unreachable} requests in a row could not reach "
                                        f"{self.client.endpoint} (the last: {reply.error}); the answers so far "
                                        "are kept: rerun the same command to ask the rest")
        finally:  # stopped early (interrupt, fatal error): drop what was not sent, do not wait for replies
            prepare.shutdown(wait=False, cancel_futures=True)
            send.shutdown(wait=False, cancel_futures=True)

    def close(self) -> None:
        self.client.close()
