"""Procedural image sets: deterministic, the target alone has its answer, edits stay local."""

import numpy as np
import pytest

from multipanelvqa.sources.image_sets import MAX_PANELS, ImageSet, decode_panel
from multipanelvqa.sources.procedural import procedural_set


@pytest.fixture(scope="module")
def edit_set():
    return procedural_set("procedural_edit", 0, 0)


def _norm(a):
    return a.strip().casefold()


@pytest.mark.parametrize("source", ["procedural_edit", "procedural_scene"])
def test_sets_are_deterministic_and_valid(source):
    a, b = procedural_set(source, 1, 0), procedural_set(source, 1, 0)
    assert a == b  # same bytes for the same (source, index, seed)
    assert a.source == source and len(a.panels) == MAX_PANELS and len(a.replacements) == MAX_PANELS - 1
    target = _norm(a.answers[0])
    assert all(_norm(x) != target for x in a.answers[1:] + a.replacement_answers)
    if a.absent_answer is not None:
        assert _norm(a.absent_answer) not in {_norm(x) for x in a.answers + a.replacement_answers}
    sizes = {decode_panel(p).size for p in a.panels}
    assert all(w == h and 250 <= w <= 600 for w, h in sizes)  # square crops: nothing is cut by the layout box
    assert procedural_set(source, 2, 0).panels[0] != a.panels[0]


def test_edit_variants_differ_only_around_the_edited_object(edit_set):
    assert edit_set.question.startswith("What color is the ")
    base = np.asarray(decode_panel(edit_set.panels[0])).astype(int)
    for png, answer in zip(edit_set.panels[1:], edit_set.answers[1:]):
        other = np.asarray(decode_panel(png)).astype(int)
        changed = np.abs(base - other).max(axis=2) > 0
        assert 0 < changed.mean() < 0.15, answer  # one object's colour, not a new scene
    replacement = np.asarray(decode_panel(edit_set.replacements[0])).astype(int)
    assert replacement.shape != base.shape or (np.abs(base - replacement).max(axis=2) > 0).mean() > 0.5


def test_image_set_checks_and_take(edit_set):
    with pytest.raises(ValueError, match="not unique"):
        ImageSet("x", "x", "q?", (b"a", b"b"), ("red", " Red"), ("1", "2"))
    with pytest.raises(ValueError, match="not unique"):
        ImageSet("x", "x", "q?", (b"a", b"b"), ("red", "blue"), ("1", "2"), (b"c",), ("red",), ("3",))
    with pytest.raises(ValueError, match="absent"):
        ImageSet("x", "x", "q?", (b"a", b"b"), ("red", "blue"), ("1", "2"), absent_answer="BLUE")
    small = ImageSet("x", "x", "q?", (b"a", b"b", b"c"), ("red", "blue", "green"), ("1", "2", "3"))
    assert small.take(5) == ([b"a", b"b", b"c", b"b", b"c"], ["red", "blue", "green", "blue", "green"],
                             ["1", "2", "3", "2", "3"])
    assert small.take_replacements(4) == ([], [], [])
    panels, answers, ids = edit_set.take(8)
    assert panels == list(edit_set.panels) and answers[0] == edit_set.answers[0]
