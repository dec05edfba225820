"""What the benchmarks' Inspect tasks share: a row's prompt parts as one user message (every
image a `ContentImage` of the stored PNG file) and the Task over those samples (greedy
generation, then the benchmark's scorer). Each benchmark's task, with its scorer, lives in its
package (`dicobench.harnesses.inspect_tasks`, `multipanelvqa.harnesses.inspect_task`)."""

from __future__ import annotations

from typing import Callable, Sequence

from inspect_ai import Task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import ChatMessageUser, ContentImage, ContentText, GenerateConfig
from inspect_ai.scorer import Scorer
from inspect_ai.solver import generate

from dicobench.kit.eval.harnesses.inspect_samples import ImageFile, rows_as_parts


def message(parts: list) -> list[ChatMessageUser]:
    return [ChatMessageUser(content=[ContentImage(image=str(p), detail="high") if isinstance(p, ImageFile)
                                     else ContentText(text=p) for p in parts])]


def make_task(name: str, dataset: str, config: str, split: str, limit: int | None, max_tokens: int | None,
              image_columns: Sequence[str], prompt: Callable, metadata: Callable[[dict], dict],
              scorer: Scorer) -> Task:
    """The Task `name-<config>` over the rows of `dataset`: each sample the row's `prompt`, its
    answer the target, `metadata(row)` what the scorer reads."""
    samples = [Sample(input=message(parts), target=row["answer"], id=row["id"], metadata=metadata(row))
               for row, parts in rows_as_parts(dataset, config, split, image_columns, prompt, limit)]
    return Task(dataset=MemoryDataset(samples, name=f"{name}-{config}"), solver=generate(), scorer=scorer,
                config=GenerateConfig(temperature=0.0, max_tokens=max_tokens))
