"""Inspect tasks `dicobench/dicobench` and `dicobench/multipanelvqa`: this module is the
distribution's entry point in the group `inspect_ai`, so it declares both (MultipanelVQA's task is
built in `multipanelvqa.harnesses.inspect_task`; it is declared here because Inspect names a task
by the top-level package of the module that declares it).

    inspect eval dicobench/dicobench -T dataset=./dicobench-data --model openai/gpt-4o

Each DiCoBench sample is one user message with this project's prompt: "Image 1:", image A,
"Image 2:", image B, then the question and options, every image a `ContentImage` of the stored
PNG file. The scorer reads replies as `score` does: `extract_choice` against the options.
"""

from __future__ import annotations

from inspect_ai import Task, task
from inspect_ai.scorer import CORRECT, INCORRECT, Score, Target, accuracy, scorer, stderr
from inspect_ai.solver import TaskState

from dicobench.kit.eval.extract import extract_choice
from dicobench.kit.eval.harnesses.inspect_task import make_task
from dicobench.prompting import prompt
from multipanelvqa.harnesses.inspect_task import multipanelvqa_task


@scorer(metrics=[accuracy(), stderr()])
def choice_letter():
    """Right when the letter `extract_choice` reads (against the options) is the target's."""
    async def score(state: TaskState, target: Target) -> Score:
        read = extract_choice(state.output.completion, state.metadata["options"])
        return Score(value=CORRECT if read == target.text else INCORRECT, answer=read)
    return score


def _metadata(row: dict) -> dict:
    return {"task": row["task"], "track": row["track"], "options": row["options"]}


@task
def dicobench(dataset: str, config: str = "all", split: str = "test", limit: int | None = None,
              max_tokens: int | None = None) -> Task:
    return make_task("dicobench", dataset, config, split, limit, max_tokens, ("image_a", "image_b"), prompt,
                     _metadata, choice_letter())


@task
def multipanelvqa(dataset: str, config: str = "all", split: str = "test", limit: int | None = None,
                  max_tokens: int | None = None) -> Task:
    return multipanelvqa_task(dataset, config, split, limit, max_tokens)
