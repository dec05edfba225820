import dataclasses
from collections import Counter

import pytest
from text_only import assert_at_chance, difference_options

from dicobench.generate import BuildOptions, generate_row, letter_schedule, sample_seed
from dicobench.kit.io.imageio import decode
from dicobench.kit.scene.random_scenes import SceneConfig
from dicobench.schema import DIFFERENCE_TASKS, LETTERS, NONE_OPTIONS


def test_letter_schedule_is_balanced_and_seeded():
    for n in (5, 96, 97):
        counts = Counter(letter_schedule("attribute", n, 0, "test"))
        assert set(counts) <= set(LETTERS) and max(counts.values()) - min(counts.values()) <= 1
    assert letter_schedule("entity", 96, 0, "test") == letter_schedule("entity", 96, 0, "test")
    assert letter_schedule("entity", 96, 0, "test") != letter_schedule("entity", 96, 1, "test")


def test_seeds_differ_by_split_task_index_and_attempt():
    seeds = {sample_seed(0, s, t, i, a) for s in ("test", "train") for t in DIFFERENCE_TASKS for i in range(5)
             for a in range(3)}
    assert len(seeds) == 2 * 4 * 5 * 3


@pytest.mark.parametrize("task", DIFFERENCE_TASKS)
def test_rows_are_deterministic_and_checked(task):
    opts = BuildOptions()
    row, info = generate_row(task, 3, "B", opts)
    again, _ = generate_row(task, 3, "B", opts)
    assert row == again  # same seed and options: same bytes
    other_letter, _ = generate_row(task, 3, "D", opts)
    assert other_letter["options"] == row["options"]  # the options never depend on the answer
    assert other_letter["image_a"] == row["image_a"] and other_letter["image_b"] != row["image_b"]
    other, _ = generate_row(task, 3, "B", dataclasses.replace(opts, seed=1))
    assert other["image_a"]["bytes"] != row["image_a"]["bytes"] and other["options"] != row["options"]
    assert row["answer"] == "B" and row["options"][4] == NONE_OPTIONS["difference"]
    assert row["source"] == f"procedural:{row['seed']}" and "dicobench" in row["generator"]
    a, b = decode(row["image_a"]["bytes"]), decode(row["image_b"]["bytes"])
    assert 1600 <= max(a.shape[:2]) <= 2048 and a.shape == b.shape
    assert 0 < row["changed_area"] < 0.05 and row["cues"]


def test_none_rows_have_identical_images():
    row, _ = generate_row("attribute", 0, "E", BuildOptions())
    assert row["image_a"]["bytes"] == row["image_b"]["bytes"] and row["cues"] == [] and row["changed_area"] == 0


def test_text_only_strategies_stay_at_chance():
    """Options are made before the correct letter is drawn, so reading only the text cannot
    beat 1 in 5: a few text heuristics over 240 rows stay inside a 99.9% binomial band."""
    cfg = SceneConfig(min_long_side=900, max_long_side=1000, min_objects=25, max_objects=28)
    n = 60
    assert assert_at_chance(difference_options(cfg, n)) >= 0.8 * n * len(DIFFERENCE_TASKS)
