"""The task registry: its order is frozen (it seeds every row and is the ClassLabel), and every
proposer and model edit it names exists."""

import pytest

from dicobench.schema import COMMONALITY_TASKS, DIFFERENCE_TASKS, NONE_OPTIONS, QUESTIONS, TASKS, features
from dicobench.tasks.registry import TASK_REGISTRY, TRACKS, get_task, tasks_from

FROZEN = ("attribute", "entity", "spatial_relation", "difference_reasoning",
          "instance", "category", "spatial_grounding", "commonality_reasoning")


def test_the_task_order_is_frozen():
    assert TASKS == FROZEN
    assert features()["task"].names == list(FROZEN)
    assert features()["track"].names == ["difference", "commonality"] == [t.name for t in TRACKS]
    assert DIFFERENCE_TASKS == FROZEN[:4] and COMMONALITY_TASKS == FROZEN[4:]


def test_tasks_declare_their_track_texts_and_sources():
    for task in TASK_REGISTRY:
        assert QUESTIONS[task.track.name] == task.question and NONE_OPTIONS[task.track.name] == task.none_option
    assert tasks_from("procedural") == FROZEN
    assert tasks_from("photos") == FROZEN[:6]
    assert [t for t in FROZEN if get_task(t).model_edit is not None] == ["attribute", "entity", "difference_reasoning"]
    with pytest.raises(ValueError, match="unknown task"):
        get_task("colour")


def test_every_named_proposer_and_plan_resolves():
    pytest.importorskip("cv2")
    for task in TASK_REGISTRY:
        for kind in task.proposers:
            assert callable(task.proposer(kind))
        if task.model_edit is not None:
            assert callable(task.model_edit.plan.load())
