"""The Inspect task `dicobench/multipanelvqa`, built here and declared with `@task` by the
distribution's `inspect_ai` entry point, `dicobench.harnesses.inspect_tasks` (Inspect names a task
by the top-level package of the module that declares it):

    inspect eval dicobench/multipanelvqa -T dataset=./multipanelvqa-data -T config=original --model ...

Each sample is one user message with this project's prompt: the composite, then the question.
Its scorer reads replies by MultipanelVQA's rules, as `multipanelvqa score` does without a judge.
"""

from __future__ import annotations

from inspect_ai import Task
from inspect_ai.scorer import CORRECT, INCORRECT, Score, Target, accuracy, scorer, stderr
from inspect_ai.solver import TaskState

from dicobench.kit.eval.harnesses.inspect_task import make_task
from multipanelvqa.prompting import prompt
from multipanelvqa.scoring import rule_verdict


@scorer(metrics=[accuracy(), stderr()])
def multipanel_rules():
    """Right when MultipanelVQA's rules say so (what they cannot settle counts as wrong)."""
    async def score(state: TaskState, target: Target) -> Score:
        verdict = rule_verdict(state.output.completion, target.text, state.metadata["question_type"],
                               state.metadata["choices"])
        return Score(value=CORRECT if verdict is True else INCORRECT, metadata={"rule_verdict": verdict})
    return score


def _metadata(row: dict) -> dict:
    return {"question_type": row["question_type"], "choices": list(row["choices"] or []),
            "augmentation": row["augmentation"]}


def multipanelvqa_task(dataset: str, config: str = "all", split: str = "test", limit: int | None = None,
                       max_tokens: int | None = None) -> Task:
    """The Task of `dataset`'s `config`/`split` (its first `limit` rows)."""
    return make_task("multipanelvqa", dataset, config, split, limit, max_tokens, ("image",), prompt, _metadata,
                     multipanel_rules())
