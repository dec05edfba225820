"""What `evaluate()` asks: the user's model (a Runner, a runner spec, or a function) and the
runner options, checked and resolved before any data or weights load."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from dicobench.kit.errors import UserError
from dicobench.kit.eval.runners import CallableRunner, Runner, check_options, runner_class


@dataclass(frozen=True)
class ResolvedModel:
    """A model as `evaluate()` runs it.

    `model` is what `runners.as_runner` opens (a Runner, a function wrapped in `CallableRunner`,
    or a spec, loaded only when rows are asked); `options` the runner's options with the
    benchmark's defaults filled in; `label` the name runs and scores carry; `asked_tokens` the
    `max_new_tokens` the user asked for (run.json records it, not the default)."""

    model: Runner | Callable | str
    options: dict
    label: str
    asked_tokens: int | None


def resolve_model(model, runner_options: dict | None = None, *, name: str | None = None,
                  raise_on_error: bool = False, local_max_new_tokens: int = 64) -> ResolvedModel:
    """Check `model` and `runner_options` together, one-line errors: runner options apply to a
    spec only (an unknown runner or option is refused), `concurrency` to a spec or a function;
    a spec of a runner that caps tokens gets `local_max_new_tokens` unless one is asked."""
    spec = model if isinstance(model, str) else None
    options = dict(runner_options or {})
    asked_tokens = options.get("max_new_tokens")
    threads = options.pop("concurrency", None) if spec is None else None
    if spec is not None:  # an unknown runner or option is refused before any data or weights load
        check_options(spec, options)
        if runner_class(spec).caps_tokens and options.get("max_new_tokens") is None:
            options["max_new_tokens"] = local_max_new_tokens
    elif any(v is not None for v in options.values()):
        given = ", ".join(k for k, v in options.items() if v is not None)
        raise UserError(f"runner options ({given}) apply only when model is a spec such as 'hf:ID'")
    if threads is not None and (isinstance(model, Runner) or not callable(model)):
        raise UserError("concurrency applies to a function model or a spec; a Runner keeps its own")
    if threads is not None and threads < 1:
        raise UserError("concurrency must be at least 1")
    if spec is None and not isinstance(model, Runner) and callable(model):
        model = CallableRunner(model, concurrency=threads or 1, raise_on_error=raise_on_error)
    label = name or spec or (model.name if isinstance(model, CallableRunner) else type(model).__qualname__)
    return ResolvedModel(model, options, label, asked_tokens)
