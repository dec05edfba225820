"""Runner options, declared by the runners that take them: the `eval` command's runner flags are
generated from the declarations of every known runner, and read back from its arguments.

A runner lists its options in `Runner.options`, as `RunnerOption`s or as the names of the
shared ones below (`max_new_tokens` is one option whichever runner takes it). A runner of one's
own declares its own `RunnerOption` and gets a flag `--<name with dashes>` on `eval`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Iterable

from dicobench.kit.cli.argtypes import http_url, non_negative_int


@dataclass(frozen=True)
class RunnerOption:
    """One keyword of a runner's constructor as the command line offers it: `type` parses the
    flag's value (None keeps the text); a `switch` is a flag without a value. Not giving a flag
    leaves the option out (None), so the runner's own default applies."""

    name: str
    help: str
    type: Callable[[str], Any] | None = None
    switch: bool = False

    @property
    def flag(self) -> str:
        return "--" + self.name.replace("_", "-")


# the built-in runners' options, in the order `eval --help` lists them
SHARED: tuple[RunnerOption, ...] = (
    RunnerOption("base_url", "openai: endpoint, e.g. http://127.0.0.1:8000/v1 for vLLM (default OpenAI)", http_url),
    RunnerOption("api_key", "openai: API key (prefer the OPENAI_API_KEY environment variable)"),
    RunnerOption("batch_size", "hf: prompts per generate call (answers do not change; default 1)", int),
    RunnerOption("concurrency", "openai: requests kept in flight (default 8)", int),
    RunnerOption("max_new_tokens", "reply length cap (default: 64 tokens for hf: models, 512 in describe mode; "
                                   "the endpoint's own limit for openai:)", int),
    RunnerOption("max_pixels", "hf: per-image pixel budget, for processors that take one", int),
    RunnerOption("max_side", "openai: shrink images to this long side (default: full size)", int),
    RunnerOption("retries", "openai: retries of a request that timed out, lost its connection, was rate limited or "
                            "met a server error (default 5); "
                            "a first request that cannot connect stops the run at once",
                 non_negative_int),
    RunnerOption("dtype", "hf: torch dtype, e.g. bfloat16, float16, float32, auto (default bf16 on GPU, "
                          "float32 on CPU)"),
    RunnerOption("device_map", "hf: accelerate device map, e.g. auto, cuda:0, cpu (default auto on GPU)"),
    RunnerOption("attn_implementation", "hf: e.g. sdpa, flash_attention_2, eager"),
    RunnerOption("trust_remote_code", "hf: run the model repository's own code (only for repositories you trust)",
                 switch=True),
    RunnerOption("model_args", "hf: more from_pretrained arguments as k=v,k2=v2"),
)
_SHARED = {o.name: o for o in SHARED}


def declared(options: Iterable[RunnerOption | str], runner: str = "this") -> tuple[RunnerOption, ...]:
    """A runner's `options` as declarations: a name stands for the shared option of that name."""
    out = []
    for option in options:
        if isinstance(option, str):
            option = _SHARED.get(option) or RunnerOption(option, f"{runner}: the runner's {option!r} option")
        out.append(option)
    return tuple(out)


def collect(runners: dict[str, Iterable[RunnerOption | str]]) -> list[RunnerOption]:
    """Every option the runners (name -> their `options`) take: the shared ones first, then the
    others in the order the runners declare them. Two runners declaring one name differently
    is refused rather than one flag silently meaning two things."""
    found: dict[str, RunnerOption] = {}
    for name, options in runners.items():
        for option in declared(options, name):
            if found.setdefault(option.name, option) != option:
                raise ValueError(f"runner {name!r} declares option {option.name!r} unlike another runner")
    shared = [o for o in SHARED if o.name in found]
    return shared + [o for o in found.values() if o.name not in _SHARED]
