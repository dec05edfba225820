"""Model runners behind one interface (`Runner.generate(prompts) -> replies`), chosen by a spec
`<name>:<model>`: `hf:<hub id or folder>` (transformers), `openai:<model>` (any OpenAI-compatible
endpoint), or any name registered with `register_runner` or through the `dicobench.runners`
entry-point group (`mymodel = mypackage.module:MyRunner`). The options each runner declares
(`dicobench.kit.eval.runners.options`) are the `eval` command's runner flags."""

from __future__ import annotations

from importlib import import_module
from importlib.metadata import entry_points
from typing import Callable

from dicobench.kit.errors import UserError
from dicobench.kit.eval.runners.base import CallableRunner, Part, Prompt, Reply, Runner
from dicobench.kit.eval.runners.options import RunnerOption, collect, declared
from dicobench.kit.registry import Ref, Registry

__all__ = ["RUNNERS", "CallableRunner", "Part", "Prompt", "Reply", "Runner", "RunnerOption", "all_options",
           "as_runner", "check_options", "load_runner", "register_runner", "runner_class"]

ENTRY_POINT_GROUP = "dicobench.runners"
# built-in runners named by a Ref, imported only when used (torch is slow to import)
RUNNERS: Registry[Ref | type[Runner]] = Registry("runner", [
    ("hf", Ref("dicobench.kit.eval.runners.transformers_runner:TransformersRunner")),
    ("openai", Ref("dicobench.kit.eval.runners.openai_runner:OpenAIRunner")),
])


def register_runner(name: str, cls: type[Runner] | Ref | str) -> None:
    """Make `--model <name>:<model>` build `cls(model, **options)`; `cls` may be a `Ref` to the class
    (a "module:Class" string is taken as one). A taken name is refused (`RUNNERS.unregister` frees it)."""
    if not name or ":" in name:
        raise ValueError(f"a runner name is a word without ':', got {name!r}")
    RUNNERS.register(name, Ref(cls) if isinstance(cls, str) else cls)


def _known() -> dict[str, str | Ref | type[Runner]]:
    found = {ep.name: ep.value for ep in entry_points(group=ENTRY_POINT_GROUP)}
    return {**found, **dict(RUNNERS.items())}  # registered names win over installed plugins


def runner_class(spec: str) -> type[Runner]:
    """The class behind `<name>:<model>`, checked before anything is loaded."""
    name, _, model = spec.partition(":")
    known = _known()
    if not model or name not in known:
        raise UserError(f"unknown model {spec!r}; expected <runner>:<model> with runner one of "
                        f"{', '.join(sorted(known))} (e.g. hf:<hub id or folder>, openai:<model>)")
    return _imported(name, known[name])


def _imported(name: str, target: str | Ref | type[Runner]) -> type[Runner]:
    """The class a registered Ref or an installed entry point's "module:Class" value names."""
    if isinstance(target, (str, Ref)):
        path = target.path if isinstance(target, Ref) else target
        module, _, attr = path.partition(":")
        try:
            return getattr(import_module(module), attr)
        except (ImportError, AttributeError) as exc:
            raise UserError(f"runner {name!r} ({path}) cannot be imported: {exc}") from None
    return target


def check_options(spec: str, options: dict) -> dict:
    """The options given (None means not given); one the runner does not take is refused
    rather than ignored."""
    cls = runner_class(spec)
    given = {k: v for k, v in options.items() if v is not None}
    takes = {o.name for o in declared(cls.options)}
    foreign = [k for k in given if k not in takes]
    if foreign:
        flags = ", ".join(RunnerOption(k, "").flag for k in foreign)
        raise UserError(f"{flags}: not an option of {spec.partition(':')[0]}: models")
    return given


def all_options() -> list[RunnerOption]:
    """The options of every known runner (one that cannot be imported offers none: choosing it
    with `--model` says why)."""
    runners = {}
    for name, target in _known().items():
        try:
            runners[name] = _imported(name, target).options
        except UserError:
            continue
    return collect(runners)


def load_runner(spec: str, **options) -> Runner:
    """The runner for `spec`, built with the options given (see `check_options`)."""
    given = check_options(spec, options)
    return runner_class(spec)(spec.partition(":")[2], **given)


def as_runner(model: Runner | Callable | str, **options) -> Runner:
    """A Runner from a Runner, a spec string, or a function `(images, prompt) -> str`."""
    if isinstance(model, Runner):
        return model
    if isinstance(model, str):
        return load_runner(model, **options)
    if callable(model):
        return CallableRunner(model)
    raise TypeError(f"model must be a Runner, a '<runner>:<model>' spec or a callable, not {type(model).__name__}")
