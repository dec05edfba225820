"""Which images a rebuild must draw afresh because reviewers rejected them (`multipanelvqa review`)."""

from __future__ import annotations

from dataclasses import replace
from typing import Sequence

from multipanelvqa.generate import ImageTask, image_seed, row_id
from multipanelvqa.schema import QUESTION_TYPES
from multipanelvqa.sources.image_sets import PROCEDURAL


def redo_count(task: ImageTask, configs: Sequence[str], rejected: frozenset[tuple[str, int]]) -> int:
    """How many successive versions of the task's image have a question rejected in some
    config: the rebuild makes the next one. Imported image sets cannot be drawn afresh (0)."""
    if task.source not in PROCEDURAL or not rejected:
        return 0
    layout_id = task.layout.layout_id
    ids = [row_id(c, task.source, task.root_seed, layout_id, q, task.variant) for c in configs for q in QUESTION_TYPES]
    redo = 0
    while any((i, image_seed(task.root_seed, task.source, layout_id, replace(task, redo=redo).seed_variant))
              in rejected for i in ids):
        redo += 1
    return redo
