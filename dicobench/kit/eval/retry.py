"""When to retry a request to an OpenAI-compatible endpoint, and how long to wait first.

One policy for every client of the project (model runners, the judge, the LLM writers of
instructions and questions): retry timeouts, lost connections, 408, 409, 429 and 5xx; wait
what the server asks in `Retry-After`/`retry-after-ms` when it says, otherwise an exponential
backoff with full jitter, so that many workers rate-limited together do not come back together.
"""

from __future__ import annotations

import random
import threading
import time
from typing import Callable, TypeVar

import openai

T = TypeVar("T")

RETRIED_STATUS = frozenset({408, 409, 429})  # and every 5xx


def is_retryable(exc: BaseException) -> bool:
    """True for failures a later attempt may not meet (the request itself was fine)."""
    if isinstance(exc, openai.APIConnectionError):  # includes APITimeoutError
        return True
    status = getattr(exc, "status_code", None)
    return isinstance(exc, openai.APIStatusError) and (status in RETRIED_STATUS or status >= 500)


def retry_after(exc: BaseException) -> float | None:
    """Seconds the server asked to wait (`retry-after-ms` or `retry-after` in seconds), if any."""
    response = getattr(exc, "response", None)
    headers = getattr(response, "headers", None) or {}
    for header, scale in (("retry-after-ms", 0.001), ("retry-after", 1.0)):
        try:
            seconds = float(headers[header]) * scale
        except (KeyError, TypeError, ValueError):
            continue
        if seconds >= 0:
            return seconds
    return None


def backoff_delay(attempt: int, exc: BaseException | None = None, *, base: float = 1.0, cap: float = 60.0,
                  rng: random.Random | None = None) -> float:
    """Seconds to wait before retry number `attempt` (0 for the first): the server's Retry-After
    when given, else a uniform draw in [0, base * 2**attempt] ("full jitter"); never above `cap`."""
    asked = retry_after(exc) if exc is not None else None
    if asked is not None:
        return min(cap, asked)
    return min(cap, (rng or random).uniform(0.0, base * 2**attempt))


def answered(exc: BaseException) -> bool:
    """True for a retryable failure the server answered (a status): a first request's policy,
    where a connection that fails or times out says the endpoint is not there."""
    return is_retryable(exc) and not isinstance(exc, openai.APIConnectionError)


def call_with_retries(call: Callable[[], T], *, max_retries: int = 5, base: float = 1.0, cap: float = 60.0,
                      on_retry: Callable[[BaseException], None] | None = None,
                      retryable: Callable[[BaseException], bool] = is_retryable,
                      stop: threading.Event | None = None) -> T:
    """`call()`, retried while `retryable` says so (this module's policy by default), at most
    `max_retries` times; the last error, or one no retry can fix, is raised. Once `stop` is set
    (the client closed) a wait for the next attempt ends and its error is raised, so no thread
    outlives its client by a backoff."""
    attempt = 0
    while True:
        try:
            return call()
        except openai.OpenAIError as exc:
            if not retryable(exc) or attempt >= max_retries or (stop is not None and stop.is_set()):
                raise
            if on_retry is not None:
                on_retry(exc)
            delay = backoff_delay(attempt, exc, base=base, cap=cap)
            if stop is None:
                time.sleep(delay)
            elif stop.wait(delay):
                raise
            attempt += 1
