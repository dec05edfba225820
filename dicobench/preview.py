"""A DiCoBench row on a contact sheet (`dicobench.kit.report.preview`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import datasets

    from dicobench.kit.report.preview import Item

COLUMNS = ("id", "task", "answer", "options", "cues", "image_a", "image_b")  # what `item` reads


def item(row: dict, features: datasets.Features) -> Item:
    """Image pair, cue boxes, and `id | task | answer X` over the answer's option text."""
    task, letter = features["task"].int2str(row["task"]), features["answer"].int2str(row["answer"])
    boxes = [(cue["image"], cue["bbox"]) for cue in row["cues"]]
    caption = f"{row['id']} | {task} | answer {letter}\n{row['options'][row['answer']]}"
    return [row["image_a"], row["image_b"]], boxes, caption
