"""`dicobench.evaluate(dataset, model)`: any Python model on DiCoBench, scored as `score` does.

Modes: `direct` is the paper's protocol (the letter only, the prompt of docs/ARCHITECTURE.md); `describe` is its
error-analysis protocol (a brief description first, then the letter), read with the same
extraction. Views: `full`, or the resolution ablation's `crop` / `crop-resize` (dicobench.kit.eval.views).
An LLM judge (`judge=`, a `dicobench.kit.eval.judge.Judge`) classifies each wrong answer into the
paper's error types, as `score --judge`.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Callable

from dicobench.benchmark import BENCHMARK
from dicobench.kit.errors import UserError
from dicobench.kit.eval import evaluation
from dicobench.kit.eval.extract import extract_choice
from dicobench.kit.eval.judge import Judge, as_judge
from dicobench.kit.eval.runners import Prompt
from dicobench.kit.eval.views import VIEWS, apply_view
from dicobench.prompting import prompt
from dicobench.results import score_predictions
from dicobench.schema import CONFIG_COLUMN, PROMPT_TEMPLATE

MODES = ("direct", "describe")
DIRECT_INSTRUCTION = PROMPT_TEMPLATE.rsplit("\n", 1)[1]
DESCRIBE_INSTRUCTION = (
    "First briefly describe what you see in the two images that bears on the question, "
    "then give your final answer on the last line as \"Answer: X\", where X is the option's letter."
)


def prompt_template(mode: str) -> str:
    """The text template of `mode`'s prompt (its hash is recorded in run.json and scores.json)."""
    return (PROMPT_TEMPLATE if mode == "direct"
            else PROMPT_TEMPLATE.removesuffix(DIRECT_INSTRUCTION) + DESCRIBE_INSTRUCTION)


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


def benchmark(mode: str = "direct", view: str = "full", judge: Judge | None = None) -> evaluation.EvalSpec:
    """DiCoBench as the evaluation engine sees it, in one mode and view, scored with `judge` (or rules alone)."""
    return evaluation.EvalSpec(
        name=BENCHMARK.name,
        prompt=make_prompt(mode, view),
        parse=lambda row, response: extract_choice(response, row["options"]),
        task_column="task",
        score=functools.partial(score_predictions, judge=judge),
        configs=BENCHMARK.configs,
        settings={"mode": mode, "view": view},
        prompt_template=prompt_template(mode),
        local_max_new_tokens=512 if mode == "describe" else 64,
        features=BENCHMARK.features(),
        columns=("id", "task", "answer", "question", "options", "cues", "image_a", "image_b"),
        unread=unread,
        config_column=CONFIG_COLUMN,
    )


def unread(scores: dict) -> str | None:
    """What a run says when no letter could be read from any reply (every row then counts as wrong)."""
    return "no letter (A-E) could be read" if scores.get("unparsed_rate") == 1 else None


def evaluate(dataset: str | Path, model, *, config: str = "all", split: str = "test", view: str = "full",
             mode: str = "direct", out: str | Path | None = None, limit: int | None = None,
             name: str | None = None, judge: Judge | str | None = None, judge_base_url: str | None = None,
             judge_api_key: str | None = None, judge_cache: str | Path | None = None, progress: bool | None = None,
             concurrency: int | None = None, raise_on_error: bool = False, allow_partial: bool = False,
             **runner_options) -> dict:
    """Ask `model` every row (those not answered in `out` yet) and score; the scores.json dict.

    `model` is a function `(images: list[PIL.Image.Image], prompt: str) -> str` (the two
    images in order and the multiple-choice prompt), a `dicobench.kit.eval.runners.Runner`, or a spec
    such as "hf:ORG/MODEL" or "openai:gpt-4o" built with `runner_options` (batch_size,
    base_url, dtype, ...). `concurrency` calls a function from that many threads (requests in
    flight for "openai:"); replies are kept in row order. `progress` shows a bar (default: when
    stderr is a terminal). A function is refused before any row when it cannot be called with those
    two arguments, and the run is named after it (`name` names it otherwise).

    With `out` the predictions file is the one `dicobench eval` writes, and a second call
    resumes it. While rows fail the result is incomplete (`complete` False,
    `accuracy_lower`/`accuracy_upper` instead of `accuracy`); `raise_on_error` raises the first
    failure instead. `limit` asks the first N rows, scored as those N rows, or with
    `allow_partial` as a partial run of the whole split (bounds, `complete` False). `judge` (a
    `Judge`, e.g. `Judge.from_spec("openai:gpt-4o", base_url=...)`) adds the error analysis of wrong
    answers; for compatibility a spec string with `judge_base_url`, `judge_api_key` and
    `judge_cache` builds that Judge."""
    if not judge and any(v is not None for v in (judge_base_url, judge_api_key, judge_cache)):
        raise UserError("judge_base_url, judge_api_key and judge_cache apply only with judge=")
    judge = as_judge(judge, base_url=judge_base_url, api_key=judge_api_key, cache=judge_cache)
    return evaluation.evaluate(benchmark(mode, view, judge), str(dataset), model, config=config, split=split, out=out,
                               limit=limit, name=name, runner_options={**runner_options, "concurrency": concurrency},
                               progress=progress, allow_partial=allow_partial, raise_on_error=raise_on_error)
