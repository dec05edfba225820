"""Commonality rows as written: determinism, letter independence, checks, text-only chance, build."""

import numpy as np
import pytest
from datasets import load_dataset
from text_only import assert_at_chance

from dicobench.checks import MAX_AREA, Rejected, check_cues_drawn
from dicobench.generate import BuildOptions, generate_row, letter_schedule, sample_seed
from dicobench.kit.io.imageio import decode
from dicobench.kit.scene.random_scenes import SceneConfig
from dicobench.kit.scene.render import background, footprint, render
from dicobench.schema import COMMONALITY_TASKS, NONE_OPTIONS, QUESTIONS, TASKS
from dicobench.tasks import category, commonality_reasoning, instance, spatial_grounding

MODULES = {"instance": instance, "category": category, "spatial_grounding": spatial_grounding,
           "commonality_reasoning": commonality_reasoning}
SMALL = SceneConfig(min_long_side=900, max_long_side=1000, min_objects=20, max_objects=25, max_size=64,
                    max_object_area=0.02)
OPTS = BuildOptions(scene=SMALL)


@pytest.mark.parametrize("task", COMMONALITY_TASKS)
def test_rows_are_deterministic_and_independent_of_the_letter(task):
    row, _ = generate_row(task, 2, "C", OPTS)
    assert generate_row(task, 2, "C", OPTS)[0] == row
    others = {letter: generate_row(task, 2, letter, OPTS)[0] for letter in ("A", "E")}
    for other in others.values():
        # same seed (so no rejection depended on the answer), same options, same image a
        assert other["seed"] == row["seed"] and other["options"] == row["options"]
        assert other["image_a"] == row["image_a"] and other["image_b"] != row["image_b"]
    assert row["question"] == QUESTIONS["commonality"] and row["options"][4] == NONE_OPTIONS["commonality"]
    assert row["track"] == "commonality" and row["changed_area"] == 0.0 and task in row["generator"]
    e = others["E"]
    assert e["answer"] == "E" and e["cues"] == []
    a, b = decode(row["image_a"]["bytes"]), decode(row["image_b"]["bytes"])
    assert sorted(c["image"] for c in row["cues"]) == [0, 1]  # the shared object, boxed in each image
    for cue in row["cues"]:
        h, w = (a if cue["image"] == 0 else b).shape[:2]
        x, y, bw, bh = cue["bbox"]
        assert 0 <= x and 0 <= y and x + bw <= w and y + bh <= h and bw * bh < MAX_AREA * w * h
        assert cue["label"]


def test_commonality_reasoning_records_the_relation_kind():
    row, _ = generate_row("commonality_reasoning", 0, "B", OPTS)
    kinds = {c["label"].split(": ")[1].split(" ")[0] for c in row["cues"]}
    assert len(kinds) == 1 and kinds <= {"combination", "supply", "embedding", "cooperation"}


def test_cue_check_needs_a_visible_object_in_a_small_box():
    prop = instance.propose(np.random.default_rng(3), SMALL)
    pixels = (render(prop.scene_a), render(prop.scene_b))
    bare = (background(prop.scene_a), background(prop.scene_b))
    obj = prop.scene_a.objects[0]
    box = list(footprint(obj))
    check_cues_drawn(pixels, bare, [{"image": 0, "bbox": box, "label": obj.name}])
    empty = bare[0].copy()
    with pytest.raises(Rejected, match="not_visible"):
        check_cues_drawn((empty, pixels[1]), bare, [{"image": 0, "bbox": box, "label": obj.name}])
    h, w = pixels[0].shape[:2]
    with pytest.raises(Rejected, match="too_large"):
        check_cues_drawn(pixels, bare, [{"image": 0, "bbox": [0, 0, w // 4, h // 4], "label": "x"}])
    with pytest.raises(Rejected, match="outside"):
        check_cues_drawn(pixels, bare, [{"image": 0, "bbox": [w - 5, 0, 20, 20], "label": "x"}])


def test_text_only_strategies_stay_at_chance():
    """The options exist before the letter is drawn and are interchangeable, so reading only
    them cannot beat 1 in 5: text heuristics over 240 rows stay inside a 99.9% binomial band."""
    tiny = SceneConfig(min_long_side=640, max_long_side=720, min_objects=12, max_objects=16, max_size=56,
                       max_object_area=0.03)
    n = 60

    def rows():
        for task in COMMONALITY_TASKS:
            letters = letter_schedule(task, n, 0, "test")
            for i in range(n):
                prop = MODULES[task].propose(np.random.default_rng(sample_seed(0, "test", task, i, 0)), tiny)
                if prop is not None:
                    yield [c.text for c in prop.candidates] + [NONE_OPTIONS["commonality"]], letters[i]

    assert assert_at_chance(rows()) >= 0.7 * n * len(COMMONALITY_TASKS)


def test_build_of_all_eight_tasks_loads_with_datasets(small_build):
    everything = load_dataset(str(small_build), "all", split="test")
    assert len(everything) == 2 * len(TASKS) and len(set(everything["id"])) == len(everything)
    for task in COMMONALITY_TASKS:
        ds = load_dataset(str(small_build), task, split="test")
        assert len(ds) == 2 and set(ds["task"]) == {TASKS.index(task)} and set(ds["track"]) == {1}
        row = ds[0]
        assert row["image_a"].mode == row["image_b"].mode == "RGB"
        assert 1600 <= max(row["image_a"].size) <= 2048 and len(row["options"]) == 5
    card = (small_build / "README.md").read_text()
    assert "| commonality_reasoning | 2 |" in card and "Commonality rows are checked" in card.split("## Checks")[1]
