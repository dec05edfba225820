"""The one retry policy of every OpenAI client: which statuses are retried, Retry-After honoured,
jittered exponential backoff otherwise; checked on the real `openai` errors from a stub server."""

import random
import time

import httpx2 as httpx
import openai
import pytest
from openai_stub import StubServer

from dicobench.kit.eval.chat import ChatClient
from dicobench.kit.eval.retry import backoff_delay, is_retryable, retry_after


def status_error(code: int, headers=None) -> openai.APIStatusError:
    request = httpx.Request("POST", "http://127.0.0.1/v1/chat/completions")
    response = httpx.Response(code, headers=headers or {}, request=request)
    client = openai.OpenAI(api_key="x", base_url="http://127.0.0.1/v1")
    return client._make_status_error_from_response(response)


@pytest.mark.parametrize("code", [408, 409, 429, 500, 502, 503, 504])
def test_transient_statuses_are_retried(code):
    assert is_retryable(status_error(code))


@pytest.mark.parametrize("code", [400, 401, 403, 404, 413, 422])
def test_request_errors_are_not(code):
    assert not is_retryable(status_error(code))


def test_connection_errors_and_timeouts_are_retried():
    request = httpx.Request("POST", "http://127.0.0.1/v1")
    assert is_retryable(openai.APIConnectionError(request=request))
    assert is_retryable(openai.APITimeoutError(request=request))
    assert not is_retryable(ValueError("not an API error"))


def test_retry_after_is_honoured_and_capped():
    assert retry_after(status_error(429, {"retry-after": "3"})) == 3.0
    assert retry_after(status_error(429, {"retry-after-ms": "250"})) == 0.25
    assert retry_after(status_error(429, {"retry-after": "Wed, 21 Oct 2015 07:28:00 GMT"})) is None
    assert backoff_delay(0, status_error(503, {"retry-after": "2"})) == 2.0
    assert backoff_delay(0, status_error(503, {"retry-after": "600"}), cap=60) == 60


def test_backoff_is_jittered_and_grows():
    rng = random.Random(0)
    first = [backoff_delay(0, base=1.0, rng=rng) for _ in range(200)]
    later = [backoff_delay(4, base=1.0, rng=rng) for _ in range(200)]
    assert all(0 <= d <= 1 for d in first) and len(set(first)) == 200  # spread, not one shared wait
    assert all(0 <= d <= 16 for d in later) and max(later) > 8
    assert all(backoff_delay(20, base=1.0, cap=5.0, rng=rng) <= 5 for _ in range(50))


def test_the_client_retries_408_409_and_5xx_then_answers():
    with StubServer(lambda body: "ok") as stub:
        stub.script.extend([("status", 408, {}), ("status", 409, {}), ("status", 503, {"Retry-After": "0"})])
        client = ChatClient("m", base_url=stub.base_url, api_key="sk-x", backoff=0.01, max_retries=5)
        start = time.perf_counter()
        assert client.complete([{"role": "user", "content": "hi"}]).text == "ok"
        assert client.usage.retries == 3 and len(stub.requests) == 4 and time.perf_counter() - start < 2
        stub.script.append(("status", 400, {}))
        failed = client.complete([{"role": "user", "content": "again"}])  # 400: the request is bad, no retry
        assert failed.text is None and "BadRequestError" in failed.error and len(stub.requests) == 5
        client.close()
