"""Difficulty presets and dials: easy is the first release's world, harder presets keep every
pixel check and record what they were built with."""

import dataclasses

import numpy as np
import pytest

from dicobench.build_config import resolve_difficulty
from dicobench.generate import BuildOptions, generate_row
from dicobench.kit.errors import UserError
from dicobench.kit.scene.difficulty import EASY, EXTREME, HARD, PRESETS, Difficulty, preset
from dicobench.kit.scene.random_scenes import SceneConfig, clashes, random_scene
from dicobench.kit.scene.render import footprint, render

# a hard world on a small canvas, so that a row takes a fraction of a second
SMALL_HARD = dataclasses.replace(HARD, min_canvas=900, max_canvas=1000, min_objects=40, max_objects=50)


def test_easy_is_the_default_scene_config():
    assert SceneConfig.from_difficulty(EASY) == SceneConfig()
    assert preset("easy") is EASY and set(PRESETS) == {"easy", "hard", "extreme"}


def test_dials_set_apart_make_a_custom_difficulty():
    assert HARD.with_axes(marks=None) is HARD
    assert HARD.with_axes(marks=HARD.marks) == HARD
    custom = HARD.with_axes(marks=10)
    assert custom.preset == "custom" and custom.marks == 10 and custom.grain == HARD.grain
    with pytest.raises(UserError, match="overlap"):
        resolve_difficulty("hard", {"overlap": 0.9})
    with pytest.raises(UserError, match="unknown difficulty"):
        resolve_difficulty("brutal")


def test_hard_scenes_are_cluttered_small_and_overlap_only_a_little():
    cfg = SceneConfig.from_difficulty(SMALL_HARD)
    scene = random_scene(np.random.default_rng(3), cfg)
    assert cfg.min_objects <= len(scene.objects) <= cfg.max_objects
    assert all(SMALL_HARD.min_size <= o.size <= SMALL_HARD.max_size for o in scene.objects)
    assert set(o.colour for o in scene.objects) <= set(scene.palette) and len(scene.palette) == SMALL_HARD.palette
    boxes = [footprint(o) for o in scene.objects]
    touching = 0
    for i, (x, y, w, h) in enumerate(boxes):
        for bx, by, bw, bh in boxes[i + 1:]:
            ow, oh = min(x + w, bx + bw) - max(x, bx), min(y + h, by + bh) - max(y, by)
            if ow > 0 and oh > 0:
                touching += 1
                assert min(ow / min(w, bw), oh / min(h, bh)) <= SMALL_HARD.overlap
    assert touching > 0  # the dial is used, not just allowed
    # the surface carries marks and grain: far more distinct levels than a smooth texture
    bare = render(dataclasses.replace(scene, objects=()))
    smooth = render(dataclasses.replace(scene, objects=(), marks=0, grain=0.0))
    assert (bare != smooth).any(axis=2).mean() > 0.5


@pytest.mark.parametrize("task", ["attribute", "entity", "spatial_relation", "difference_reasoning", "category"])
def test_hard_rows_pass_the_checks_and_record_their_difficulty(task):
    opts = BuildOptions(per_task=5, scene=SceneConfig.from_difficulty(SMALL_HARD))
    row, _ = generate_row(task, 0, "C", opts)
    assert row["answer"] == "C" and len(row["cues"]) >= 1
    assert "; difficulty hard: long side 900-1000 px" in row["generator"]
    if row["track"] == "difference":
        assert 0 < row["changed_area"] < 0.05
        limit = SMALL_HARD.cue_max_size
        # a part edit's object may be up to twice the cue scale (only its part changes: `--parts`,
        # `--turns`), as may both objects of a flip row (`--flips`), whether flipped or moved
        parts = ("half)", "stripes)", "dots)", "stripes turned)")
        if any(c["label"].endswith(parts) for c in row["cues"]) or any("flipped" in o for o in row["options"]):
            limit *= 2
        if task != "difference_reasoning":
            assert all(c["bbox"][2] <= 2 * limit and c["bbox"][3] <= 2 * limit for c in row["cues"])


def test_cli_sets_dials_and_rejects_bad_ones(tmp_path):
    import json
    import subprocess
    import sys

    out = tmp_path / "b"
    args = [sys.executable, "-m", "dicobench.cli.main", "build", "--out", str(out), "--per-task", "1", "--tasks",
            "attribute", "--num-proc", "1", "--quiet", "--difficulty", "easy", "--min-canvas", "800",
            "--max-canvas", "900"]
    assert subprocess.run(args, capture_output=True).returncode == 0
    manifest = json.loads(next((out / ".dicobench").glob("test.json")).read_text())
    assert manifest["scene"]["difficulty"]["preset"] == "custom" and manifest["scene"]["max_long_side"] == 900
    bad = subprocess.run(args[:-4] + ["--overlap", "0.9", "--overwrite"], capture_output=True, text=True)
    assert bad.returncode == 2 and bad.stderr.startswith("dicobench: error: --difficulty: overlap")


def test_easy_rows_say_nothing_new():
    row, _ = generate_row("attribute", 0, "A", BuildOptions(per_task=5))
    assert "difficulty" not in row["generator"]


def test_same_kind_objects_sit_beside_a_namesake_in_a_clearly_different_colour():
    from dicobench.kit.scene.palette import clearly_different
    from dicobench.kit.scene.random_scenes import TWIN_REACH, tell_apart, with_same_kind
    from dicobench.sources.procedural import cue_objects

    cfg = SceneConfig.from_difficulty(dataclasses.replace(SMALL_HARD, same_kind=12))
    rng = np.random.default_rng(5)
    base = random_scene(rng, cfg)
    assert len({o.name for o in base.objects}) == len(base.objects)  # the scene itself keeps names apart
    editable = cue_objects(base, cfg)
    scene = with_same_kind(rng, base, cfg, editable)
    added = scene.objects[len(base.objects):]
    assert scene.objects[: len(base.objects)] == base.objects and len(added) >= 10
    assert len({o.uid for o in scene.objects}) == len(scene.objects)
    for twin in added:
        same = [o for o in scene.objects if o.name == twin.name and o.uid != twin.uid]
        assert all(clearly_different(twin.colour, o.colour) and tell_apart(twin, o) for o in same)
        first = next(o for o in same if o in editable)
        assert max(abs(twin.cx - first.cx), abs(twin.cy - first.cy)) <= TWIN_REACH * first.size
        assert twin.size <= cfg.difficulty.cue_max_size
    boxes = [footprint(o) for o in scene.objects]
    assert not any(clashes(b, boxes[:i] + boxes[i + 1:], cfg) for i, b in enumerate(boxes))
    # the dial at 0 adds nothing and takes no draw
    state = rng.bit_generator.state
    assert with_same_kind(rng, base, SceneConfig.from_difficulty(SMALL_HARD.with_axes(same_kind=0)), editable) is base
    assert rng.bit_generator.state == state


@pytest.mark.parametrize("dial", ["parts", "turns", "flips", "swaps", "turnbacks", "doubles", "near_misses"])
@pytest.mark.parametrize("share", [-0.1, 1.5])
def test_a_share_outside_0_to_1_is_refused(dial, share):
    with pytest.raises(ValueError, match="turnbacks, doubles, near_misses must be within 0-1"):
        Difficulty(**{dial: share})


def test_same_kind_counts_are_checked():
    with pytest.raises(ValueError, match="same-kind"):
        Difficulty(max_objects=900, same_kind=200)
    assert HARD.same_kind and EXTREME.same_kind + EXTREME.max_objects >= 250  # several hundred objects at extreme
