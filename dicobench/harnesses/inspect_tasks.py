"""Inspect tasks `dicobench/dicobench` and `dicobench/multipanelvqa` (entry-point group `inspect_ai`).

    inspect eval dicobench/dicobench -T dataset=./dicobench-data --model openai/gpt-4o
    inspect eval dicobench/multipanelvqa -T dataset=./multipanelvqa-data -T config=original --model ...

Each sample is one user message with this project's prompt: "Image 1:", image A, "Image 2:",
image B, then the question and options (MultipanelVQA: the composite, then the question), every
image a `ContentImage` of the stored PNG file. Scorers read replies as `score` does:
`extract_choice` for DiCoBench, MultipanelVQA's rules (no judge) for MultipanelVQA.
"""

from __future__ import annotations

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import ChatMessageUser, ContentImage, ContentText, GenerateConfig
from inspect_ai.scorer import CORRECT, INCORRECT, Score, Target, accuracy, scorer, stderr
from inspect_ai.solver import TaskState, generate

from dicobench.kit.eval.extract import extract_choice
from dicobench.kit.eval.harnesses.inspect_samples import ImageFile, rows_as_parts
from dicobench import prompting as dicobench_prompting
from multipanelvqa import prompting as multipanelvqa_prompting
from multipanelvqa.scoring import rule_verdict


def _message(parts: list) -> list[ChatMessageUser]:
    return [ChatMessageUser(content=[ContentImage(image=str(p), detail="high") if isinstance(p, ImageFile)
                                     else ContentText(text=p) for p in parts])]


@scorer(metrics=[accuracy(), stderr()])
def choice_letter():
    """Right when the letter `extract_choice` reads (against the options) is the target's."""
    async def score(state: TaskState, target: Target) -> Score:
        read = extract_choice(state.output.completion, state.metadata["options"])
        return Score(value=CORRECT if read == target.text else INCORRECT, answer=read)
    return score


@scorer(metrics=[accuracy(), stderr()])
def multipanel_rules():
    """Right when MultipanelVQA's rules say so (what they cannot settle counts as wrong)."""
    async def score(state: TaskState, target: Target) -> Score:
        verdict = rule_verdict(state.output.completion, target.text, state.metadata["question_type"],
                               state.metadata["choices"])
        return Score(value=CORRECT if verdict is True else INCORRECT, metadata={"rule_verdict": verdict})
    return score


@task
def dicobench(dataset: str, config: str = "all", split: str = "test", limit: int | None = None,
              max_tokens: int | None = None) -> Task:
    samples = [Sample(input=_message(parts), target=row["answer"],
                      id=row["id"], metadata={"task": row["task"], "track": row["track"], "options": row["options"]})
               for row, parts in rows_as_parts(dataset, config, split, ("image_a", "image_b"),
                                               dicobench_prompting.prompt, limit)]
    return Task(dataset=MemoryDataset(samples, name=f"dicobench-{config}"), solver=generate(),
                scorer=choice_letter(), config=GenerateConfig(temperature=0.0, max_tokens=max_tokens))


@task
def multipanelvqa(dataset: str, config: str = "all", split: str = "test", limit: int | None = None,
                  max_tokens: int | None = None) -> Task:
    samples = [Sample(input=_message(parts), target=row["answer"], id=row["id"],
                      metadata={"question_type": row["question_type"], "choices": list(row["choices"] or []),
                                "augmentation": row["augmentation"]})
               for row, parts in rows_as_parts(dataset, config, split, ("image",), multipanelvqa_prompting.prompt,
                                               limit)]
    return Task(dataset=MemoryDataset(samples, name=f"multipanelvqa-{config}"), solver=generate(),
                scorer=multipanel_rules(), config=GenerateConfig(temperature=0.0, max_tokens=max_tokens))
