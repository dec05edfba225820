"""DiCoBench's fixed vocabulary and `datasets` features (the contract in DESIGN.md)."""

from __future__ import annotations

import datasets

TRACKS = ("difference", "commonality")
DIFFERENCE_TASKS = ("attribute", "entity", "spatial_relation", "difference_reasoning")
COMMONALITY_TASKS = ("instance", "category", "spatial_grounding", "commonality_reasoning")
TASKS = DIFFERENCE_TASKS + COMMONALITY_TASKS
CONFIGS = TASKS + ("all",)
LETTERS = ("A", "B", "C", "D", "E")
SOURCE_SEPARATOR = "|"  # a `source` naming several photos (photo commonality rows) joins their ids

QUESTIONS = {
    "difference": "What is the difference between the two images?",
    "commonality": "What do the two images have in common?",
}
NONE_OPTIONS = {
    "difference": "There is no visible difference between the two images",
    "commonality": "There is no visible commonality between the two images",
}

PROMPT_TEMPLATE = (
    "{question}\nOptions:\nA. {o0}\nB. {o1}\nC. {o2}\nD. {o3}\nE. {o4}\n"
    "Answer with the option's letter from the given choices directly."
)


def track_of(task: str) -> str:
    if task in DIFFERENCE_TASKS:
        return "difference"
    if task in COMMONALITY_TASKS:
        return "commonality"
    raise ValueError(f"unknown task {task!r}; expected one of {', '.join(TASKS)}")


def features() -> datasets.Features:
    return datasets.Features(
        {
            "id": datasets.Value("string"),
            "track": datasets.ClassLabel(names=list(TRACKS)),
            "task": datasets.ClassLabel(names=list(TASKS)),
            "image_a": datasets.Image(),
            "image_b": datasets.Image(),
            "question": datasets.Value("string"),
            "options": datasets.List(datasets.Value("string"), length=5),
            "answer": datasets.ClassLabel(names=list(LETTERS)),
            "cues": datasets.List(
                {
                    "image": datasets.Value("int8"),
                    "bbox": datasets.List(datasets.Value("int32"), length=4),
                    "label": datasets.Value("string"),
                }
            ),
            "changed_area": datasets.Value("float32"),
            "source": datasets.Value("string"),
            "seed": datasets.Value("int64"),
            "generator": datasets.Value("string"),
        }
    )


def prompt_text(question: str, options) -> str:
    return PROMPT_TEMPLATE.format(question=question, **{f"o{i}": o for i, o in enumerate(options)})
