"""Questions from an OpenAI-compatible model with the paper's prompt (Table 7), for a build.

Replies are checked (questions.parse_generated); an image whose reply fails the checks, or
whose request fails, keeps its template questions and is counted, so one bad reply never
stops a build. Replies are cached on disk, so a resumed build sends nothing twice.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from dicobench.kit.errors import UserError
from dicobench.kit.eval.chat import ChatClient
from multipanelvqa.questions.common import GenerationError, generate_with_llm


@dataclass(frozen=True)
class QuestionSource:
    spec: str  # "template" or "openai:<model>"
    model: str | None = None
    base_url: str | None = None
    api_key: str | None = None  # never written anywhere

    @classmethod
    def parse(cls, spec: str, base_url: str | None = None, api_key: str | None = None) -> "QuestionSource":
        if spec == "template":
            return cls(spec)
        provider, _, model = spec.partition(":")
        if provider != "openai" or not model:
            raise UserError(f"unknown question source {spec!r}; expected template or openai:<model>")
        return cls(spec, model, base_url, api_key)


class _Captured(Exception):
    """Carries the messages generate_with_llm would send, so all can go in one batch."""


def _capture(messages):
    raise _Captured(messages)


def generated_questions(source: QuestionSource, infos: dict[int, dict],
                        cache_dir: Path) -> tuple[dict[int, dict], int]:
    """({image index: checked Q1..A3 fields}, number of images left with templates).

    generate_with_llm is run twice per image: first to capture its prompt, then to parse the
    reply, so the requests go through ChatClient.complete_many (concurrent, cached) at once.
    """
    conversations = []
    for info in infos.values():
        try:
            generate_with_llm(_capture, **info)
        except _Captured as captured:
            conversations.append(captured.args[0])
    client = ChatClient(source.model, base_url=source.base_url, api_key=source.api_key, cache_dir=cache_dir)
    try:
        replies = client.complete_many(conversations)
    finally:
        client.close()
    generated = {}
    for (index, info), reply in zip(infos.items(), replies):
        if reply.text is None:
            continue
        try:
            generated[index] = generate_with_llm(lambda _: reply.text, **info)
        except GenerationError:
            pass
    return generated, len(infos) - len(generated)
