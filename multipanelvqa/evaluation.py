"""`multipanelvqa.evaluate(dataset, model)`: any Python model on MultipanelVQA, scored by rules.

`multipanelvqa score OUT/predictions.jsonl --judge openai:MODEL` adds the paper's LLM judge
for the answers rules cannot settle.
"""

from __future__ import annotations

from pathlib import Path

from benchkit import evaluation
from benchkit.extract import extract_choice
from benchkit.runners import Prompt
from multipanelvqa import score_cli
from multipanelvqa.prompting import prompt
from multipanelvqa.schema import CHOICE_LETTERS, CONFIGS, DEFAULT_CONFIG, QUESTION_TYPES


def build_prompt(row: dict) -> Prompt:
    """The composite alone, then the question (a single image gets no "Image 1:" label)."""
    return evaluation.interleave(*prompt(row))


def parse(row: dict, response: str) -> str | None:
    """The chosen letter for Q3 (multiple choice); free-form answers are left to the scorer."""
    qtype = row["question_type"]
    if (QUESTION_TYPES[qtype] if isinstance(qtype, int) else qtype) != "q3":  # a ClassLabel index or name
        return None
    return extract_choice(response, row["choices"] or None, letters="".join(CHOICE_LETTERS))


BENCHMARK = evaluation.Benchmark(name="multipanelvqa", prompt=build_prompt, parse=parse, configs=CONFIGS,
                                 task_column="question_type", score_register=score_cli.register)


def evaluate(dataset: str | Path, model, *, config: str = DEFAULT_CONFIG, split: str = "test",
             out: str | Path | None = None, limit: int | None = None, name: str | None = None,
             **runner_options) -> dict:
    """Ask `model` every question (those not answered in `out` yet) and score by rules; the
    scores.json dict. `model` is a function `(images, prompt) -> str` (the composite image and
    the question with its answer instruction), a Runner, or a spec like "openai:gpt-4o" built
    with `runner_options`. Raises `IncompleteEvaluation` while rows fail."""
    return evaluation.evaluate(BENCHMARK, str(dataset), model, config=config, split=split, out=out,
                               limit=limit, name=name, runner_options=runner_options)
