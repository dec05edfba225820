"""`multipanelvqa.evaluate(dataset, model)`: any Python model on MultipanelVQA, scored by rules.

Views: `full` composites, or the isolation ablation (Figure 4) on the questions that target one
subfigure: `isolated` (the other subfigures blanked) or `single` (the target alone).
A `judge=` (dicobench.kit.eval.judge.Judge), or `multipanelvqa score OUT/predictions.jsonl --judge
openai:MODEL` afterwards, adds the paper's LLM judge for the answers rules cannot settle.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Callable

from dicobench.kit.errors import UserError
from dicobench.kit.eval import evaluation
from dicobench.kit.eval.extract import extract_choice
from dicobench.kit.eval.judge import Judge, as_judge
from dicobench.kit.eval.runners import Prompt
from multipanelvqa.benchmark import BENCHMARK
from multipanelvqa.prompting import INSTRUCTIONS, prompt
from multipanelvqa.results import score_predictions
from multipanelvqa.schema import CHOICE_LETTERS, CONFIG_COLUMN, DEFAULT_CONFIG, QUESTION_TYPES
from multipanelvqa.views import VIEWS, apply_view, targets_one


def make_prompt(view: str) -> Callable[[dict], Prompt]:
    """Row -> the image (in `view`) alone, then the question (a single image gets no "Image 1:" label)."""
    if view not in VIEWS:
        raise UserError(f"unknown view {view!r}; expected one of {', '.join(VIEWS)}")

    def build(row: dict) -> Prompt:
        images, text = prompt({**row, "image": apply_view(row, view)})
        return evaluation.interleave(images, text)

    return build


def parse(row: dict, response: str) -> str | None:
    """The chosen letter for Q3 (multiple choice); free-form answers are left to the scorer."""
    qtype = row["question_type"]
    if (QUESTION_TYPES[qtype] if isinstance(qtype, int) else qtype) != "q3":  # a ClassLabel index or name
        return None
    return extract_choice(response, row["choices"] or None, letters="".join(CHOICE_LETTERS))


def _targets_one(qtype: int) -> bool:
    return targets_one(QUESTION_TYPES[qtype])  # a ClassLabel index


def benchmark(view: str = "full", judge: Judge | None = None) -> evaluation.EvalSpec:
    """MultipanelVQA as the evaluation engine sees it, in one view (a partial view asks only its rows),
    scored by rules and `judge` when given."""
    return evaluation.EvalSpec(
        name=BENCHMARK.name, prompt=make_prompt(view), parse=parse, configs=BENCHMARK.configs,
        task_column="question_type", score=functools.partial(score_predictions, view=view, judge=judge),
        settings={"view": view},
        select=None if view == "full" else ("question_type", _targets_one),
        prompt_template=json.dumps(INSTRUCTIONS, sort_keys=True), features=BENCHMARK.features(),
        columns=("id", "question_type", "question", "answer", "choices", "image"),
        unread=unread,
        config_column=CONFIG_COLUMN,
    )


def unread(scores: dict) -> str | None:
    """What a run without a judge says when the rules could settle no reply (every row then counts as wrong)."""
    settled = scores.get("rule_correct", 0) + scores.get("rule_wrong", 0) + (scores.get("judged") or 0)
    nothing = scores.get("rule_undecided") and not settled and not scores.get("judge")
    return "no answer could be read by the rules" if nothing else None


def evaluate(dataset: str | Path, model, *, config: str = DEFAULT_CONFIG, split: str = "test", view: str = "full",
             out: str | Path | None = None, limit: int | None = None, name: str | None = None,
             judge: Judge | None = None, progress: bool | None = None, concurrency: int | None = None,
             raise_on_error: bool = False, allow_partial: bool = False, **runner_options) -> dict:
    """Ask `model` every question (those not answered in `out` yet) and score by rules (then
    `judge`, a `dicobench.kit.eval.judge.Judge`, on what they cannot settle); the scores.json dict. `model` is a
    function `(images, prompt) -> str` (the composite image and
    the question with its answer instruction), a Runner, or a spec like "openai:gpt-4o" built
    with `runner_options`. `progress`, `concurrency`, `raise_on_error`, `limit` and
    `allow_partial` work as in `dicobench.evaluate`. While rows fail the result is incomplete
    (`complete` False, `accuracy_lower`/`accuracy_upper` instead of `accuracy`)."""
    judge = as_judge(judge)
    return evaluation.evaluate(benchmark(view, judge), str(dataset), model, config=config, split=split, out=out,
                               limit=limit, name=name, runner_options={**runner_options, "concurrency": concurrency},
                               progress=progress, allow_partial=allow_partial, raise_on_error=raise_on_error)
