"""The `Judge` both benchmarks' scoring takes: an LLM judge's settings, checked once, as one value;
its requests go through `dicobench.kit.eval.chat.ChatClient`."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from dicobench.kit.errors import UserError
from dicobench.kit.eval.chat import MAX_TIMEOUT, ChatClient
from dicobench.kit.eval.endpoint import check_endpoint
from dicobench.kit.eval.reply_cache import default_cache_dir


def parse_judge(spec: str) -> str:
    """The model name in a judge spec `openai:<model>`."""
    provider, _, model = spec.partition(":") if isinstance(spec, str) else ("", "", "")
    if provider != "openai" or not model:
        raise UserError(f"unknown judge {spec!r}; expected openai:<model>, e.g. openai:gpt-4o")
    return model


@dataclass(frozen=True)
class Judge:
    """An LLM judge: the model at an OpenAI-compatible endpoint and how to ask it, validated once
    (the same rules for both benchmarks) and handed to scoring, which asks it through `client()`.

    The API key comes from `api_key` or, when None, from OPENAI_API_KEY when the client is made;
    it is left out of the repr, of comparisons and of everything a score records (only `spec` is).
    Replies are cached under `cache` (default ~/.cache/dicobench/judge), so a rerun sends only
    what is still missing."""

    model: str
    base_url: str | None = None
    api_key: str | None = field(default=None, repr=False, compare=False)
    cache: Path | None = None
    concurrency: int = 8
    timeout: float = 60.0
    retries: int = 5

    def __post_init__(self) -> None:
        if not isinstance(self.model, str) or not self.model:
            raise UserError("a judge needs a model name, e.g. openai:gpt-4o")
        check_endpoint(self.base_url, "the judge's base URL")
        for name, low in (("concurrency", 1), ("retries", 0)):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value < low:
                raise UserError(f"the judge's {name} must be an integer of at least {low}, got {value!r}")
        if not isinstance(self.timeout, (int, float)) or isinstance(self.timeout, bool) \
                or not 0 < self.timeout <= MAX_TIMEOUT:
            raise UserError(f"the judge's timeout must be a number of seconds above 0 and at most {MAX_TIMEOUT:g}, "
                            f"got {self.timeout!r}")
        if self.cache is not None:
            object.__setattr__(self, "cache", Path(self.cache))
            if self.cache.exists() and not self.cache.is_dir():
                raise UserError(f"the judge's cache {self.cache} exists and is not a folder")

    @classmethod
    def from_spec(cls, spec: str, **settings) -> "Judge":
        """The judge named `openai:<model>`, with the other fields as keywords."""
        return cls(parse_judge(spec), **settings)

    @property
    def spec(self) -> str:
        """`openai:<model>`: what scores.json records of the judge."""
        return f"openai:{self.model}"

    def client(self) -> "ChatClient":
        """A client for this judge's requests (close it when done)."""
        return ChatClient(self.model, base_url=self.base_url, api_key=self.api_key,
                          cache_dir=self.cache if self.cache is not None else default_cache_dir(),
                          concurrency=self.concurrency, max_retries=self.retries, timeout=self.timeout)


def as_judge(judge: "Judge | str | None", **settings) -> "Judge | None":
    """A Judge as scoring takes it: a Judge as is, a spec `openai:<model>` as the Judge with
    `settings` (the other fields of Judge; the defaults for those left out or None), None as no
    judge."""
    if isinstance(judge, Judge) and any(v is not None for v in settings.values()):
        raise UserError("a Judge carries its own settings: give them to Judge.from_spec, not beside it")
    if not judge or isinstance(judge, Judge):
        return judge or None
    if isinstance(judge, str):
        return Judge.from_spec(judge, **{k: v for k, v in settings.items() if v is not None})
    raise UserError(f"judge: expected a Judge or 'openai:<model>', got {type(judge).__name__}")
