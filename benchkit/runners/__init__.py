"""Model runners behind one interface (`Runner.generate(prompts) -> replies`), chosen by a spec:
`hf:<hub id or folder>` (transformers) or `openai:<model>` (any OpenAI-compatible endpoint)."""

from __future__ import annotations

from benchkit.errors import UserError
from benchkit.runners.base import Part, Prompt, Reply, Runner

__all__ = ["Part", "Prompt", "Reply", "Runner", "load_runner"]


def load_runner(spec: str, *, batch_size: int = 1, concurrency: int = 8, max_new_tokens: int | None = None,
                local_max_new_tokens: int = 64, max_pixels: int | None = None, base_url: str | None = None,
                api_key: str | None = None, max_side: int | None = None) -> Runner:
    """The runner for `spec`. Options of the other backend are refused rather than ignored.
    Without `max_new_tokens`, local generation stops at `local_max_new_tokens` and API calls use
    the endpoint's own limit (reasoning models spend hidden tokens that a small cap would cut off)."""
    backend, _, name = spec.partition(":")
    if not name or backend not in ("hf", "openai"):
        raise UserError(f"unknown model {spec!r}; expected hf:<hub id or folder> or openai:<model>")
    if backend == "hf":
        given = [flag for flag, value in (("--base-url", base_url), ("--api-key", api_key),
                                          ("--max-side", max_side)) if value is not None]
        if given:
            raise UserError(f"{', '.join(given)}: only for openai: models")
        from benchkit.runners.transformers_runner import TransformersRunner

        return TransformersRunner(name, batch_size=batch_size, max_new_tokens=max_new_tokens or local_max_new_tokens,
                                  max_pixels=max_pixels)
    if max_pixels is not None:
        raise UserError("--max-pixels: only for hf: models (use --max-side to shrink images sent to an API)")
    from benchkit.runners.openai_runner import OpenAIRunner

    return OpenAIRunner(name, base_url=base_url, api_key=api_key, concurrency=concurrency,
                        max_new_tokens=max_new_tokens, max_side=max_side)
