"""Any OpenAI-compatible chat endpoint (OpenAI, vLLM, SGLang, Ollama, llama.cpp server).

Images go as lossless PNG data URLs at full resolution with `detail: high`: DiCoBench's cues
cover under 5% of a ~2K image, so a silent downscale or JPEG would change the benchmark.
`max_side` shrinks images only when the user asks. The transport is the judge's `ChatClient`
(temperature 0, bounded concurrency, retries); a request that still fails comes back as an
error Reply, which the evaluation retries on the next run instead of scoring it.
"""

from __future__ import annotations

import base64
import io
from typing import Sequence

from PIL import Image

from benchkit.judge import ChatClient
from benchkit.runners.base import Part, Prompt, Reply, Runner


def png_data_url(image: Image.Image, max_side: int | None = None) -> str:
    """`data:image/png;base64,...` of the image, shrunk to `max_side` only when given."""
    if max_side is not None and max(image.size) > max_side:
        image = image.copy()
        image.thumbnail((max_side, max_side), Image.Resampling.LANCZOS)
    if image.mode not in ("RGB", "RGBA", "L", "LA"):
        image = image.convert("RGB")
    buf = io.BytesIO()
    image.save(buf, format="PNG", compress_level=1)  # lossless either way; level 1 is the fastest
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode("ascii")


class OpenAIRunner(Runner):
    """One model name on one endpoint; `concurrency` requests in flight at a time."""

    def __init__(self, model: str, *, base_url: str | None = None, api_key: str | None = None,
                 concurrency: int = 8, max_new_tokens: int | None = None, max_side: int | None = None,
                 timeout: float = 300.0, max_retries: int = 5):
        self.client = ChatClient(model, base_url=base_url, api_key=api_key, max_tokens=max_new_tokens,
                                 concurrency=concurrency, timeout=timeout, max_retries=max_retries)
        self.batch_size = self.client.concurrency
        self.max_side = max_side

    def _content(self, part: Part) -> dict:
        if isinstance(part, str):
            return {"type": "text", "text": part}
        return {"type": "image_url", "image_url": {"url": png_data_url(part, self.max_side), "detail": "high"}}

    def generate(self, prompts: Sequence[Prompt]) -> list[Reply]:
        conversations = [[{"role": "user", "content": [self._content(p) for p in prompt]}] for prompt in prompts]
        return [Reply(c.text, c.error, c.latency) for c in self.client.complete_many(conversations)]

    def close(self) -> None:
        self.client.close()
