"""A prompt (interleaved text and images) as one user chat message in the content-list form
lmms-eval and Inspect-style harnesses take: `{"type": "text"}` and `{"type": "image"}` parts."""

from __future__ import annotations

from dicobench.kit.eval.runners import Prompt


def chat_message(parts: Prompt) -> list[dict]:
    return [{"role": "user", "content": [
        {"type": "text", "text": p} if isinstance(p, str) else {"type": "image", "url": p} for p in parts]}]
