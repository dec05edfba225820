"""A camera per image (dicobench.shots): rows written as two shots, checked on their clean renders,
with cues that still hold the change and cameras recorded in the row."""

import dataclasses
import json
import subprocess
import sys

import numpy as np
import pytest

import dicobench
from dicobench.build import generation_options
from dicobench.build_config import BuildConfig
from dicobench.checks import (
    MIN_VISIBLE_PIXELS,
    VISIBLE_STEP,
    Rejected,
    check_change_within,
    check_cues_drawn,
    check_shots_written,
)
from dicobench.generate import BuildOptions, proposed_row, sample_seed
from dicobench.kit.errors import UserError
from dicobench.kit.io.imageio import decode
from dicobench.kit.scene.camera import Camera, CameraBounds, draw_cameras, photograph
from dicobench.kit.scene.difficulty import HARD
from dicobench.kit.scene.random_scenes import SceneConfig
from dicobench.kit.scene.render import background, render
from dicobench.schema import COMMONALITY_TASKS, DIFFERENCE_TASKS, LETTERS
from dicobench.shots import mapped, note

# room for every option's decoys: at 900-1000 px difference reasoning found it in 1 seed of 20
SMALL_HARD = dataclasses.replace(HARD, min_canvas=1200, max_canvas=1300, min_objects=40, max_objects=50, same_kind=20)
CLEAN = BuildOptions(per_task=5, scene=SceneConfig.from_difficulty(SMALL_HARD))
SHOT = dataclasses.replace(CLEAN, camera=SMALL_HARD.camera)


def both_rows(task: str, letter: str, clean: BuildOptions = CLEAN, shot: BuildOptions = SHOT, source=None):
    """The first seed whose row passes with and without cameras: (clean row, shot row, the shot's proposal)."""
    for attempt in range(40):
        seed = sample_seed(0, "test", task, 0, attempt)
        try:
            off, _ = proposed_row(task, seed, letter, clean, source)
            on, prop = proposed_row(task, seed, letter, shot, source)
        except Rejected:
            continue
        return off, on, prop
    raise AssertionError(f"no seed of {task} passed")


def pixels(row):
    return decode(row["image_a"]["bytes"]), decode(row["image_b"]["bytes"])


def assert_same_but_pixels(off, on, bounds):
    """Cameras change the images, the cues and the generator's camera note, nothing else."""
    for key in ("question", "options", "answer", "changed_area", "source", "seed", "track", "task"):
        assert on[key] == off[key], key
    cams = draw_cameras(on["seed"], bounds)
    assert dicobench.cameras(on) == cams and dicobench.cameras(off) is None
    assert on["generator"] == off["generator"] + note(cams)
    assert on["image_a"]["bytes"] != on["image_b"]["bytes"]  # no pair is one image twice, E included
    shapes = tuple(image.shape for image in pixels(on))
    assert on["cues"] == mapped(off["cues"], cams, shapes)
    for cue in on["cues"]:
        x, y, w, h = cue["bbox"]
        assert 0 <= x and 0 <= y and x + w <= shapes[cue["image"]][1] and y + h <= shapes[cue["image"]][0]
    return cams


def changed_inside(before, after, cues):
    """The pixels where two shots of one camera differ, and whether all lie inside the cue boxes."""
    diff = (before != after).any(axis=2)
    inside = np.zeros_like(diff)
    for cue in cues:
        x, y, w, h = cue["bbox"]
        inside[y : y + h, x : x + w] = True
    return diff, not (diff & ~inside).any()


def written_shots(row, scenes, cams):
    """The row's pixels, checked to be its scenes rendered whole through its cameras."""
    a, b = pixels(row)
    assert (np.array_equal(a, render(scenes[0], camera=cams[0]))
            and np.array_equal(b, render(scenes[1], camera=cams[1])))
    return a, b


@pytest.mark.parametrize("task", DIFFERENCE_TASKS)
def test_difference_rows_are_two_shots_whose_cues_hold_the_change(task):
    off, on, prop = both_rows(task, "C")
    cams = assert_same_but_pixels(off, on, SHOT.camera)
    base, edited = prop.views.scene_a, prop.views.scenes[LETTERS.index("C")]
    a, b = written_shots(on, (base, edited), cams)
    # through either camera, the edit changes the shot only inside the clean cues as that camera maps them
    for camera in cams:
        before, after = render(base, camera=camera), render(edited, camera=camera)
        _, inside = changed_inside(before, after, mapped(off["cues"], (camera, camera), (a.shape, a.shape)))
        step = np.abs(before.astype(int) - after.astype(int)).max(axis=2)
        assert inside and (step >= VISIBLE_STEP).sum() >= MIN_VISIBLE_PIXELS
    # and the pair differs everywhere a little, not only at the change: no pixel shortcut
    assert (a != b).any(axis=2).mean() > 0.5


def test_e_rows_are_one_scene_taken_twice():
    off, on, prop = both_rows("attribute", "E")
    cams = assert_same_but_pixels(off, on, SHOT.camera)
    written_shots(on, (prop.views.scene_a, prop.views.scene_a), cams)
    assert off["image_a"] == off["image_b"] and on["cues"] == []


@pytest.mark.parametrize("task", COMMONALITY_TASKS)
def test_commonality_rows_show_their_shared_objects_in_both_shots(task):
    off, on, prop = both_rows(task, "B")
    cams = assert_same_but_pixels(off, on, SHOT.camera)
    views = prop.views
    a, b = written_shots(on, (views.scene_a, views.scenes[1]), cams)
    bare = (background(views.scene_a, cams[0]), background(views.scene_b, cams[1]))
    check_cues_drawn((a, b), bare, on["cues"])
    # the same object seen by two cameras, not a copy of its pixels
    crops = [(a, b)[c["image"]][c["bbox"][1] : c["bbox"][1] + c["bbox"][3], c["bbox"][0] : c["bbox"][0] + c["bbox"][2]]
             for c in on["cues"]]
    assert not any(np.array_equal(p, q) for p in crops for q in crops if p is not q)


def test_rows_are_deterministic_with_cameras():
    _, on, _ = both_rows("spatial_relation", "A")
    assert proposed_row("spatial_relation", on["seed"], "A", SHOT)[0] == on


@pytest.fixture(scope="module")
def photo_source(tmp_path_factory):
    pytest.importorskip("cv2")
    pytest.importorskip("skimage")
    from photo_fixtures import TWINS, write_source

    return write_source(tmp_path_factory.mktemp("photos"), TWINS["full"])


@pytest.mark.parametrize("task", ["entity", "instance"])
def test_photo_rows_go_through_the_pixel_camera(task, photo_source):
    from photo_fixtures import POLICY

    clean = BuildOptions(photos=POLICY)
    off, on, prop = both_rows(task, "A", clean, dataclasses.replace(clean, camera=CameraBounds()), photo_source)
    cams = assert_same_but_pixels(off, on, CameraBounds())
    a, b = pixels(on)
    clean_a, clean_b = pixels(off)
    assert np.array_equal(a, photograph(clean_a, cams[0])) and np.array_equal(b, photograph(clean_b, cams[1]))
    # image b's cues hold the change as camera B frames it (one camera gives both the same grain)
    e_b = photograph(prop.image_b, cams[1])
    _, inside = changed_inside(e_b, b, [c for c in on["cues"] if c["image"] == 1] if task == "instance" else
                               mapped(off["cues"], (cams[1], cams[1]), (b.shape, b.shape)))
    assert inside


def test_shot_checks_reject():
    a = np.zeros((60, 80, 3), np.uint8)
    b = a.copy()
    b[10:20, 10:20] = 200
    cue = {"image": 1, "bbox": [8, 8, 14, 14], "label": "x"}
    check_change_within(a, b, [cue], (0, 0, 80, 60))
    with pytest.raises(Rejected, match="shot_change_outside_cues"):
        check_change_within(a, b, [dict(cue, bbox=[30, 30, 10, 10])], (0, 0, 80, 60))
    with pytest.raises(Rejected, match="cue_leaves_frame"):
        mapped([dict(cue, bbox=[0, 20, 10, 10])], (Camera(), Camera(dx=-5)), (a.shape, a.shape))
    from dicobench.kit.io.imageio import encode_png

    pa, pb = encode_png(a), encode_png(b)
    check_shots_written((pa, pb), (a, b), [cue])
    with pytest.raises(Rejected, match="shot_not_written"):
        check_shots_written((pa, pa), (a, b), [cue])
    with pytest.raises(Rejected, match="shots_identical"):
        check_shots_written((pa, pa), (a, a), [])
    with pytest.raises(Rejected, match="cue_outside_image"):
        check_shots_written((pa, pb), (a, b), [dict(cue, bbox=[75, 8, 14, 14])])


def test_camera_option_defaults_and_errors():
    assert BuildConfig(difficulty="hard").camera_bounds() == HARD.camera
    assert BuildConfig(difficulty="easy").camera_bounds() is None
    assert BuildConfig(camera="on", difficulty="easy").camera_bounds() == HARD.camera
    assert BuildConfig(camera="none", difficulty="extreme").camera_bounds() is None
    assert BuildConfig(source="folder:x").camera_bounds() == HARD.camera
    own = CameraBounds(shift=1.0)
    assert BuildConfig(camera=own).camera_bounds() == own
    with pytest.raises(UserError, match="--camera must be one of none, on"):
        BuildConfig(camera="yes").camera_bounds()
    assert generation_options(BuildConfig(camera="none"))[0].camera is None
    assert generation_options(BuildConfig())[0].camera == HARD.camera


def test_cli_camera_none_writes_the_clean_renders_and_records_it(tmp_path):
    out = tmp_path / "b"
    args = [sys.executable, "-m", "dicobench.cli.main", "build", "--out", str(out), "--per-task", "1", "--tasks",
            "attribute", "--num-proc", "1", "--quiet", "--difficulty", "easy", "--min-canvas", "800",
            "--max-canvas", "900"]
    assert subprocess.run(args + ["--camera", "on"], capture_output=True).returncode == 0
    manifest = json.loads((out / ".dicobench" / "test.json").read_text())
    assert manifest["camera"] == dataclasses.asdict(HARD.camera)
    card = (out / "README.md").read_text()
    assert "Image 2 is a second shot" in card and "shift up to 2 px per axis" in card
    bad = subprocess.run(args + ["--camera", "maybe", "--overwrite"], capture_output=True, text=True)
    assert bad.returncode == 2 and "--camera" in bad.stderr
    assert subprocess.run(args + ["--camera", "none", "--overwrite"], capture_output=True).returncode == 0
    assert json.loads((out / ".dicobench" / "test.json").read_text())["camera"] is None
    assert "Both images of a row are clean renders" in (out / "README.md").read_text()


def test_a_default_build_writes_no_pair_twice(small_build):
    import pyarrow.parquet as pq

    rows = [r for shard in sorted(small_build.glob("*/test-*.parquet")) for r in pq.read_table(shard).to_pylist()]
    assert len(rows) == 16
    for row in rows:
        assert row["image_a"]["bytes"] != row["image_b"]["bytes"]
        assert dicobench.cameras(row) == draw_cameras(row["seed"], HARD.camera)
    assert (json.loads((small_build / ".dicobench" / "test.json").read_text())["camera"]
            == dataclasses.asdict(HARD.camera))
