"""A client for any OpenAI-compatible chat endpoint (OpenAI, vLLM, Ollama, llama.cpp server): what
the judges, the `openai:` runner and the LLM backends of the generators all send requests through.

Built for scoring: temperature 0, bounded concurrency, retries as `dicobench.kit.eval.retry` decides
(timeouts, 408/409/429/5xx; Retry-After honoured, else jittered backoff), a disk cache so a
rerun sends nothing, and token accounting.
A request that still fails is returned as an error, never as an answer, so callers can count
it as unjudged. The API key lives only inside the `openai` client: it is never cached, logged
or put in an error message.
"""

from __future__ import annotations

import os
import queue
import re
import threading
import time
from concurrent.futures import Future, as_completed
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Callable, Sequence

from dicobench.kit.errors import UserError
from dicobench.kit.eval.endpoint import check_endpoint
from dicobench.kit.eval.reply_cache import CompletionCache, request_key

Messages = Sequence[dict]
MAX_TIMEOUT = 3600.0  # seconds per request: a day-long wait is a typo (and `inf` overflows the HTTP client)

_SECRET = re.compile(r"\b(?:sk|key|token)-[\w*\-]{3,}", re.IGNORECASE)


@dataclass(frozen=True)
class Completion:
    """One reply; `text` is None when the request failed (then `error` says why)."""

    text: str | None
    error: str | None = None
    cached: bool = False
    prompt_tokens: int = 0
    completion_tokens: int = 0
    latency: float = 0.0  # seconds from the first attempt to the reply, retries included
    unreachable: bool = False  # no reply came at all: the connection failed or timed out


@dataclass
class Usage:
    """What a client has spent: requests sent, replies served from the cache, tokens billed."""

    requests: int = 0
    retries: int = 0
    failures: int = 0
    cache_hits: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0

    def as_dict(self) -> dict:
        return asdict(self)


def read_reply(reply) -> tuple[str, int, int]:
    """(text, prompt tokens, completion tokens) of a chat completion as the `openai` package
    returns it, whatever the server sent: it does not validate a 200's body (text/html comes back
    as a string, `content` as a number or list, `message` missing). A reply without a text is a
    ValueError; token counts that are not integers count 0."""
    choices = getattr(reply, "choices", None)
    message = getattr(choices[0], "message", None) if isinstance(choices, list) and choices else None
    text = getattr(message, "content", None)
    if not isinstance(text, str):
        kind = type(reply).__name__ if choices is None else "no message" if message is None else type(text).__name__
        raise ValueError(f"reply without text ({kind})")
    used = getattr(reply, "usage", None)

    def count(name: str) -> int:
        value = getattr(used, name, None)
        return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else 0

    return text, count("prompt_tokens"), count("completion_tokens")


class ChatClient:
    """Sends chat requests to one model; see the module docstring for the guarantees."""

    def __init__(
        self,
        model: str,
        *,
        base_url: str | None = None,
        api_key: str | None = None,
        cache_dir: str | Path | None = None,
        temperature: float = 0.0,
        max_tokens: int | None = None,
        concurrency: int = 8,
        max_retries: int = 5,
        timeout: float = 60.0,
        backoff: float = 1.0,
        max_backoff: float = 60.0,
    ):
        check_endpoint(base_url, f"the endpoint of {model}")
        key = api_key or os.environ.get("OPENAI_API_KEY")
        if not key:
            if base_url is None:
                raise UserError(f"no API key for {model}: set OPENAI_API_KEY or pass an API key")
            key = "EMPTY"  # local servers (vLLM, Ollama, llama.cpp) ignore it; the openai package needs one
        self._key = key
        import openai  # deferred (about 0.5 s): scoring by rules, and every Judge not yet used, need none of it

        self._client = openai.OpenAI(api_key=key, base_url=base_url, timeout=timeout, max_retries=0)
        self.model = model
        self.temperature = temperature
        self.max_tokens = max_tokens
        self.concurrency = max(1, concurrency)
        self.max_retries = max_retries
        self.backoff = backoff
        self.max_backoff = max_backoff
        self.cache = CompletionCache(Path(cache_dir) / "completions.sqlite") if cache_dir else None
        self.usage = Usage()
        self._lock = threading.Lock()
        self._closed = threading.Event()  # set by close(): requests still retrying give up

    def __repr__(self) -> str:
        return f"ChatClient(model={self.model!r}, base_url={self.endpoint!r})"

    @property
    def endpoint(self) -> str:
        """The base URL requests go to (the provider's default when none was given)."""
        return str(self._client.base_url)

    def complete_many(self, conversations: Sequence[Messages],
                      readable: Callable[[str], bool] | None = None) -> list[Completion]:
        """One Completion per conversation, in order; identical requests are sent once, with a
        progress bar of the requests sent where stderr is a terminal. Only replies `readable` accepts
        are cached (a judge's verdict it could not read is asked again on a rerun). An interrupt
        (Ctrl-C) cancels the requests not sent yet and keeps the replies that came."""
        requests = [self._request(messages) for messages in conversations]
        results: list[Completion | None] = [None] * len(requests)
        todo: dict[str, list[int]] = {}
        for i, request in enumerate(requests):
            hit = self._cached(request)
            if hit is not None:
                results[i] = hit
            else:
                todo.setdefault(request_key(request), []).append(i)
        if todo:
            from tqdm.auto import tqdm  # deferred with the requests: a fully cached run needs none of it

            groups = list(todo.values())
            futures = dict(zip(_sent(self._send, [requests[idx[0]] for idx in groups], self.concurrency), groups))
            try:
                with tqdm(total=len(todo), desc=f"asking {self.model}", unit="request", leave=False,
                          disable=None) as bar:  # None: shown where stderr is a terminal
                    for future in as_completed(futures):  # the cache is written from this thread only
                        done = self._store(requests[futures[future][0]], future.result(), readable)
                        for i in futures[future]:
                            results[i] = done
                        bar.update(1)
            except BaseException:
                self._closed.set()  # requests still retrying give up
                raise
            finally:  # on an interrupt: what is queued is never sent, and nothing waits for what is in flight
                for future in futures:
                    future.cancel()
        return results  # type: ignore[return-value]

    def complete(self, messages: Messages, *, first: bool = False) -> Completion:
        """One conversation, sent from the calling thread: callers that keep their own workers busy
        use it on a client without cache (the cache belongs to one thread). A `first` request
        checks the endpoint: a connection that fails or times out is not retried, so a wrong
        base URL shows at once (`Completion.unreachable`)."""
        request = self._request(messages)
        return self._cached(request) or self._store(request, self._send(request, first=first))

    def close(self) -> None:
        self._closed.set()
        if self.cache:
            self.cache.close()
        self._client.close()

    def _request(self, messages: Messages) -> dict:
        request = {"model": self.model, "messages": list(messages), "temperature": self.temperature}
        if self.max_tokens is not None:
            request["max_tokens"] = self.max_tokens
        return request

    def _keyed(self, request: dict) -> dict:
        """The request as the cache keys it: with the endpoint (one model name, two servers)."""
        return {**request, "endpoint": self.endpoint}

    def _cached(self, request: dict) -> Completion | None:
        hit = self.cache.get(self._keyed(request)) if self.cache else None
        if hit is None:
            return None
        with self._lock:
            self.usage.cache_hits += 1
        return Completion(hit[0], cached=True, prompt_tokens=hit[1], completion_tokens=hit[2])

    def _store(self, request: dict, done: Completion, readable: Callable[[str], bool] | None = None) -> Completion:
        if self.cache and done.text is not None and (readable is None or readable(done.text)):
            self.cache.put(self._keyed(request), done.text, done.prompt_tokens, done.completion_tokens)
        return done

    def _send(self, request: dict, *, first: bool = False) -> Completion:
        """Send with retries (a `first` request: not after a connection failure); a failure after
        the last retry comes back as an error Completion."""
        import openai  # loaded by __init__ already

        from dicobench.kit.eval.retry import answered, call_with_retries, is_retryable  # deferred with openai

        start = time.perf_counter()

        def create():
            with self._lock:
                self.usage.requests += 1
            return self._client.chat.completions.create(**request)

        def count_retry(exc: BaseException) -> None:
            with self._lock:
                self.usage.retries += 1

        try:
            reply = call_with_retries(create, max_retries=self.max_retries, base=self.backoff,
                                      cap=self.max_backoff, on_retry=count_retry,
                                      retryable=answered if first else is_retryable, stop=self._closed)
        except (openai.AuthenticationError, openai.PermissionDeniedError, openai.NotFoundError) as exc:
            raise UserError(
                f"the endpoint refused the request for {self.model} "
                f"({type(exc).__name__}, status {exc.status_code}): "
                "check the API key, the model name and the base URL"
            ) from None
        except openai.OpenAIError as exc:  # retries exhausted, or a request retrying won't fix
            return self._failed(exc)
        except ValueError as exc:  # a 200 whose body is not JSON
            return self._failed(ValueError(f"a reply that is not JSON ({exc})"))
        else:
            try:
                text, prompt, completion = read_reply(reply)
            except ValueError as exc:
                return self._failed(exc)
            with self._lock:
                self.usage.prompt_tokens += prompt
                self.usage.completion_tokens += completion
            return Completion(text, prompt_tokens=prompt, completion_tokens=completion,
                              latency=time.perf_counter() - start)

    def _failed(self, exc: Exception) -> Completion:
        import openai  # loaded by __init__ already

        with self._lock:
            self.usage.failures += 1
        message = _SECRET.sub("***", str(exc).replace(self._key, "***"))
        return Completion(None, error=f"{type(exc).__name__}: {message}"[:300],
                          unreachable=isinstance(exc, openai.APIConnectionError))


def _sent(send: Callable[[dict], Completion], requests: Sequence[dict], workers: int) -> list[Future]:
    """A future per request, sent in order by `workers` daemon threads. A thread pool's workers are
    joined when the interpreter exits, so a request hung in flight would hold an interrupted command
    until its timeout; a cancelled future is skipped, never sent."""
    jobs: queue.SimpleQueue = queue.SimpleQueue()
    futures = [Future() for _ in requests]
    for job in zip(futures, requests):
        jobs.put(job)

    def work() -> None:
        while True:
            try:
                future, request = jobs.get_nowait()
            except queue.Empty:
                return
            if future.set_running_or_notify_cancel():
                try:
                    future.set_result(send(request))
                except BaseException as e:  # handed to the caller, as a pool does
                    future.set_exception(e)

    for _ in range(min(workers, len(requests))):
        threading.Thread(target=work, name="chat-request", daemon=True).start()
    return futures
