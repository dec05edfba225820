"""The one interface every model backend implements: interleaved prompts in, replies out.

A prompt is a list of parts in reading order, text (`str`) or images (`PIL.Image`), e.g.
`["Image 1:", a, "Image 2:", b, question]`. The benchmark decides the parts; a runner only
maps them to its backend's format, so every backend sees exactly the same prompt.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Sequence, Union

from PIL import Image

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
    """A model behind one call: `generate(prompts)` answers a batch, in order, deterministically."""

    #: how many prompts one `generate` call should get (the evaluation loop chunks rows by it)
    batch_size: int = 1

    @abstractmethod
    def generate(self, prompts: Sequence[Prompt]) -> list[Reply]:
        """One Reply per prompt, in order. Raises only for problems no retry can fix (bad key)."""

    def close(self) -> None:
        """Release connections or memory."""

    def __enter__(self) -> "Runner":
        return self

    def __exit__(self, *exc) -> None:
        self.close()
