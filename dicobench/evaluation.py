"""`dicobench.evaluate(dataset, model)`: any Python model on DiCoBench, scored as `score` does.

Modes: `direct` is the paper's protocol (the letter only, DESIGN.md's prompt); `describe` is its
error-analysis protocol (a brief description first, then the letter), read with the same
extraction. Views: `full`, or the resolution ablation's `crop` / `crop-resize` (benchkit.views).
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable

from benchkit import evaluation
from benchkit.extract import extract_choice
from benchkit.errors import UserError
from benchkit.runners import Prompt
from benchkit.views import VIEWS, apply_view
from dicobench import score_cli
from dicobench.prompting import prompt
from dicobench.schema import CONFIGS, PROMPT_TEMPLATE

MODES = ("direct", "describe")
DIRECT_INSTRUCTION = PROMPT_TEMPLATE.rsplit("\n", 1)[1]
DESCRIBE_INSTRUCTION = (
    "First briefly describe what you see in the two images that bears on the question, "
    "then give your final answer on the last line as \"Answer: X\", where X is the option's letter."
)


def make_prompt(mode: str, view: str) -> Callable[[dict], Prompt]:
    """Row -> "Image 1:", image_a, "Image 2:", image_b, prompt text; with the mode and view applied."""
    if mode not in MODES:
        raise UserError(f"unknown mode {mode!r}; expected one of {', '.join(MODES)}")
    if view not in VIEWS:
        raise UserError(f"unknown view {view!r}; expected one of {', '.join(VIEWS)}")

    def build(row: dict) -> Prompt:
        images, text = prompt(row)
        if mode == "describe":
            text = text.removesuffix(DIRECT_INSTRUCTION) + DESCRIBE_INSTRUCTION
        return evaluation.interleave(apply_view(images, row["cues"], view), text)

    return build


def benchmark(mode: str = "direct", view: str = "full") -> evaluation.Benchmark:
    """DiCoBench as the evaluation engine sees it, in one mode and view."""
    return evaluation.Benchmark(
        name="dicobench",
        prompt=make_prompt(mode, view),
        parse=lambda row, response: extract_choice(response, row["options"]),
        task_column="task",
        score_register=score_cli.register,
        configs=CONFIGS,
        score_args=("--name", "{name}"),
        settings={"mode": mode, "view": view},
        local_max_new_tokens=512 if mode == "describe" else 64,
    )


def evaluate(dataset: str | Path, model, *, config: str = "all", split: str = "test", view: str = "full",
             mode: str = "direct", out: str | Path | None = None, limit: int | None = None,
             name: str | None = None, **runner_options) -> dict:
    """Ask `model` every row (those not answered in `out` yet) and score; the scores.json dict.

    `model` is a function `(images: list[PIL.Image.Image], prompt: str) -> str` (the two
    images in order and the multiple-choice prompt), a `benchkit.runners.Runner`, or a spec
    such as "hf:ORG/MODEL" or "openai:gpt-4o" built with `runner_options` (batch_size,
    concurrency, base_url, dtype, ...). With `out` the predictions file is the one `dicobench
    eval` writes, and a second call resumes it. Raises `IncompleteEvaluation` while rows fail."""
    return evaluation.evaluate(benchmark(mode, view), str(dataset), model, config=config, split=split, out=out,
                               limit=limit, name=name, runner_options=runner_options)
