"""A MultipanelVQA row on a contact sheet (`dicobench.kit.report.preview`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import datasets

    from dicobench.kit.report.preview import Item

# what `item` reads
COLUMNS = ("id", "question_type", "question", "answer", "augmentation", "subfigures", "target_index", "image")


def item(row: dict, features: datasets.Features) -> Item:
    """Composite with every subfigure boxed, and the question, answer and target position."""
    qtype = features["question_type"].int2str(row["question_type"])
    target = row["subfigures"][row["target_index"]]["position"] if row["subfigures"] else "-"
    boxes = [(0, sub["bbox"]) for sub in row["subfigures"]]
    caption = f"{row['id']} | {qtype} | {row['augmentation']} | target: {target}\n"
    caption += f"{row['question']}\nanswer: {row['answer']}"
    return [row["image"]], boxes, caption
