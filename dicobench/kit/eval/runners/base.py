"""The one interface every model backend implements: interleaved prompts in, replies out.

A prompt is a list of parts in reading order, text (`str`) or images (`PIL.Image`), e.g.
`["Image 1:", a, "Image 2:", b, question]`. The benchmark decides the parts; a runner only
maps them to its backend's format, so every backend sees exactly the same prompt.
"""

from __future__ import annotations

import functools
import inspect
import time
from abc import ABC, abstractmethod
from collections import deque
from dataclasses import dataclass
from itertools import islice
from typing import Callable, ClassVar, Iterable, Iterator, Sequence, Union

from PIL import Image

from dicobench.kit.errors import UserError

Part = Union[str, Image.Image]
Prompt = Sequence[Part]


@dataclass(frozen=True)
class Reply:
    """A model's answer to one prompt. `text` is None when the call failed: `error` says why,
    and the row is retried on the next run instead of being scored as a wrong answer."""

    text: str | None
    error: str | None = None
    latency: float = 0.0  # seconds spent on this prompt (a batch's time is shared by its prompts)


class Runner(ABC):
    """A model behind one call: `generate(prompts)` answers a batch, in order, deterministically.

    A runner registered by name (`dicobench.kit.eval.runners.register_runner`) is built from a command
    line as `cls(model_name, **options)`, with only the options it lists in `options`."""

    #: the `load_runner` options its constructor takes (e.g. "batch_size", "base_url")
    options: ClassVar[tuple[str, ...]] = ()
    #: how many prompts one `generate` call should get (the evaluation loop chunks rows by it)
    batch_size: int = 1
    #: True when generation needs a length cap: the benchmark's default is passed when none is given
    caps_tokens: ClassVar[bool] = False

    @abstractmethod
    def generate(self, prompts: Sequence[Prompt]) -> list[Reply]:
        """One Reply per prompt, in order. Raises only for problems no retry can fix (bad key)."""

    def stream(self, prompts: Iterable[Prompt]) -> Iterator[tuple[int, Reply]]:
        """(position in `prompts`, Reply) as replies come. Prompts are built lazily by the
        iterator, which only this method advances. This default answers batch after batch;
        runners that can keep work in flight override it."""
        items = iter(prompts)
        done = 0
        while batch := list(islice(items, self.batch_size)):
            for offset, reply in enumerate(self.generate(batch)):
                yield done + offset, reply
            done += len(batch)

    def close(self) -> None:
        """Release connections or memory."""

    def __enter__(self) -> "Runner":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


class CallableRunner(Runner):
    """Any Python function `(images, prompt) -> str` as a runner: the prompt's images in order
    and its text parts joined by newlines (the "Image i:" labels stay out of it). An exception
    is recorded as the row's error, so the row is asked again on the next run; with
    `raise_on_error` it propagates instead (the rows answered before it are kept).

    `concurrency` > 1 calls the function from that many threads (for a function that waits on
    I/O, such as a client of a remote model); replies still come in prompt order, so the
    predictions file reads as a sequential run's would. A function that cannot be called with
    two arguments is refused here, before any row (`check_signature`); `name` is what runs
    record of it (`callable_name`)."""

    def __init__(self, fn: Callable[[list, str], str], *, concurrency: int = 1, raise_on_error: bool = False):
        if concurrency < 1:
            raise ValueError("concurrency must be at least 1")
        check_signature(fn)
        self.fn = fn
        self.name = callable_name(fn)
        self.concurrency = concurrency
        self.raise_on_error = raise_on_error

    def generate(self, prompts: Sequence[Prompt]) -> list[Reply]:
        return [self._ask(prompt) for prompt in prompts]

    def stream(self, prompts: Iterable[Prompt]) -> Iterator[tuple[int, Reply]]:
        if self.concurrency == 1:
            yield from super().stream(prompts)
            return
        from concurrent.futures import ThreadPoolExecutor  # deferred: only concurrent runs need it

        window: deque = deque()  # futures in prompt order: at most 2x concurrency built ahead of the oldest
        done = 0
        with ThreadPoolExecutor(self.concurrency) as pool:
            try:
                for prompt in prompts:
                    window.append(pool.submit(self._ask, prompt))
                    if len(window) >= 2 * self.concurrency:
                        yield done, window.popleft().result()
                        done += 1
                while window:
                    yield done, window.popleft().result()
                    done += 1
            finally:  # an error raised or the caller stopped: the rest is not asked
                for future in window:
                    future.cancel()

    def _ask(self, prompt: Prompt) -> Reply:
        images = [p for p in prompt if not isinstance(p, str)]
        texts = [p for p in prompt if isinstance(p, str) and not _is_label(p)]
        start = time.perf_counter()
        try:
            text = self.fn(images, "\n".join(texts))
        except Exception as exc:  # the user's model failed on this row: retried next run
            if self.raise_on_error:
                raise
            return Reply(None, error=f"{type(exc).__name__}: {exc}"[:300])
        if not isinstance(text, str):
            if self.raise_on_error:
                raise TypeError(f"the model returned {type(text).__name__}, not str")
            return Reply(None, error=f"the model returned {type(text).__name__}, not str")
        return Reply(text, latency=time.perf_counter() - start)


def _is_label(text: str) -> bool:
    return text.startswith("Image ") and text.endswith(":") and text[6:-1].isdigit()


def callable_name(fn: Callable) -> str:
    """What runs, charts and leaderboards call a function model: `my_model`, `Model.answer` for a
    method, `Model` for a callable object (a `functools.partial` by the function it wraps)."""
    while isinstance(fn, functools.partial):
        fn = fn.func
    name = getattr(fn, "__qualname__", None)  # functions and methods; an object's class has it, not the object
    return (name if isinstance(name, str) else type(fn).__qualname__).rsplit("<locals>.", 1)[-1]


def check_signature(fn: Callable) -> None:
    """UserError unless `fn` can be called as `fn(images, prompt)` (one whose signature cannot be
    read, such as some built-ins, is left to its first call)."""
    try:
        signature = inspect.signature(fn)
    except (TypeError, ValueError):
        return
    try:
        signature.bind([], "")
    except TypeError as exc:
        raise UserError(f"model {callable_name(fn)}{signature} cannot be called as model(images, prompt): "
                        f"{exc}") from None
