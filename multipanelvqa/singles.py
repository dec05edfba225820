"""The paper's control (§3.3): keep only the image sets whose subfigures the model answers right
when each is shown alone, and report the accuracy on those beside the uncontrolled one.

The singles are `eval --view single` answers: the target subfigure alone with its question (Q2).
A dataset row records the answer of its target subfigure only, so the control checks the target
subfigure of every config in which the image set was asked, not its neighbours.
"""

from __future__ import annotations

from typing import Sequence

from multipanelvqa.factors import pair_key


def image_key(row_id: str, augmentation: str) -> str:
    """What the rows of one image set share across configs and question types."""
    return pair_key(row_id, augmentation).rsplit("-", 1)[0]


def controlled(ids: Sequence[str], augmentations: Sequence[str], single_ids: Sequence[str],
               single_augmentations: Sequence[str], single_verdicts: Sequence[bool | None]) -> list[bool]:
    """Per row: whether its image set was asked alone and every such answer was right."""
    passed: dict[str, bool] = {}
    for row_id, aug, verdict in zip(single_ids, single_augmentations, single_verdicts):
        key = image_key(row_id, aug)
        passed[key] = passed.get(key, True) and verdict is True
    return [passed.get(image_key(i, a), False) for i, a in zip(ids, augmentations)]
