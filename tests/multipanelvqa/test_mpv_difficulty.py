"""MultipanelVQA's panel difficulty: presets and dials, easy is the first release, descriptors are
recorded per row and in the card, and harder panels still hold the answers the questions give."""

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
import pytest

sys.path.insert(0, str(Path(__file__).parents[1]))
from digests import fixture, folder_digests  # noqa: E402

from benchkit.scene.palette import COLOURS
from benchkit.io.shards import sidecar_path
from multipanelvqa.build import build
from multipanelvqa.difficulty import DEFAULT, EASY, EXTREME, HARD, PRESETS, PanelDifficulty, resolve
from multipanelvqa.sources.image_sets import MAX_PANELS, decode_panel, procedural_set


def test_presets_grow_harder_on_every_dial():
    assert DEFAULT == "hard" and set(PRESETS) == {"easy", "hard", "extreme"}
    assert EASY == PanelDifficulty() and EASY.detail_size == 0 and EASY.near_duplicates == 0
    for harder, softer in ((HARD, EASY), (EXTREME, HARD)):
        assert harder.min_objects > softer.max_objects // 2 and harder.max_objects > softer.max_objects
        assert harder.max_size < softer.max_size and harder.near_duplicates > softer.near_duplicates
        assert (harder.detail_size or 999) < (softer.detail_size or 999)
    assert HARD.position_words == EXTREME.position_words == "layout"


def test_dials_set_apart_make_a_custom_preset_and_bad_values_are_refused():
    assert resolve("hard", {"near_duplicates": None}) is HARD
    custom = resolve("hard", {"detail_size": 40})
    assert custom.preset == "custom" and custom.detail_size == 40 and custom.max_objects == HARD.max_objects
    assert resolve("easy", {"near_duplicates": 0}) is EASY  # the preset's own value: still the preset
    for bad in ({"detail_size": 10}, {"near_duplicates": 9}, {"position_words": "long"}, {"min_objects": 9, "max_objects": 3}):
        with pytest.raises(ValueError):
            resolve("hard", bad)
    with pytest.raises(ValueError, match="unknown difficulty"):
        resolve("medium")


@pytest.mark.parametrize("args, message", [
    (["--difficulty", "medium"], "invalid choice"),
    (["--detail-size", "8"], "error: --difficulty: detail size must be 0 or 24-160"),
])
def test_bad_difficulty_is_a_one_line_error(tmp_path, args, message):
    proc = subprocess.run([sys.executable, "-m", "multipanelvqa.cli.main", "build", "--out", str(tmp_path / "o"), *args],
                          capture_output=True, text=True)
    assert proc.returncode == 2 and message in proc.stderr
    assert not (tmp_path / "o").exists()


def test_easy_writes_the_first_release_rows(tmp_path):
    """The recorded digests (tests/digests.py's multipanelvqa case is built at easy) hold for an
    easy build of one of its configs: same ids, same bytes in every column."""
    recorded = fixture("multipanelvqa")["original"]["rows"]
    out = build(tmp_path / "easy", layouts="6,140", configs="original", num_proc=1, progress=False, difficulty="easy")
    assert folder_digests(out)["original"]["rows"] == recorded


def _descriptors(folder: Path, config: str) -> list[dict]:
    return [d for shard in sorted((folder / config).glob("*.parquet"))
            for d in json.loads(Path(sidecar_path(shard)).read_text())["descriptors"]]


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    root = tmp_path_factory.mktemp("mpv")
    kw = dict(layouts="6,140", configs="original,low_similarity", num_proc=1, progress=False)
    return build(root / "hard", **kw), build(root / "easy", difficulty="easy", **kw)


def test_descriptors_are_recorded_per_row_and_in_the_card(built):
    hard, easy = built
    for config in ("original", "low_similarity"):
        ids = sorted(r["id"] for f in (hard / config).glob("*.parquet") for r in pq.read_table(f, columns=["id"]).to_pylist())
        described = _descriptors(hard, config)
        assert sorted(d["id"] for d in described) == ids
    rows = {r["id"]: r for f in (hard / "original").glob("*.parquet") for r in pq.read_table(f).to_pylist()}
    hard_px, easy_px = {}, {}
    for d in _descriptors(hard, "original"):
        k = rows[d["id"]]["num_subfigures"]
        expected = k - 1 if d["source"] == "procedural_edit" else min(HARD.near_duplicates, k - 1)
        assert d["near_duplicates"] == expected
        assert d["objects"] > EASY.max_objects
        hard_px[d["id"]] = d["detail_px"]
    assert all(d["near_duplicates"] == 0 for d in _descriptors(hard, "low_similarity"))
    for d in _descriptors(easy, "original"):
        assert d["objects"] <= EASY.max_objects and d["near_duplicates"] == (rows[d["id"]]["num_subfigures"] - 1
                                                                            if d["source"] == "procedural_edit" else 0)
        easy_px[d["id"]] = d["detail_px"]
    # the same layout box holds a smaller answer object, still one a person reads at 1000x1000
    assert hard_px.keys() == easy_px.keys() and all(14 <= hard_px[i] < easy_px[i] for i in hard_px)
    card = (hard / "README.md").read_text()
    assert "### Difficulty: split `test`" in card and "Panel preset `hard`" in card and "near duplicates" in card
    assert "| original | procedural_scene | 6 |" in card  # two images of three rows each
    assert "Panel preset `easy`" in (easy / "README.md").read_text()
    manifest = json.loads((hard / ".multipanelvqa" / "synthetic.json").read_text())
    assert manifest["difficulty"]["preset"] == "hard" and manifest["difficulty"]["detail_size"] == HARD.detail_size


def _near(image: np.ndarray, colour: str, tol: int = 24) -> np.ndarray:
    return (np.abs(image - np.array(COLOURS[colour])).max(axis=2) <= tol)


@pytest.mark.parametrize("index", range(4))
@pytest.mark.parametrize("source", ["procedural_edit", "procedural_scene"])
def test_hard_panels_hold_their_answers(source, index):
    """The target alone has its answer in the pixels: near duplicates differ from it only in the
    answer's object, which is drawn in the answer's colour (or is missing where the answer is no)."""
    s = procedural_set(source, index, 0, difficulty=HARD)
    assert s == procedural_set(source, index, 0, difficulty=HARD)  # deterministic
    assert s.panels[0] != procedural_set(source, index, 0).panels[0]  # not easy's panels
    assert s.detail_size == HARD.detail_size and s.objects > EASY.max_objects
    target = np.asarray(decode_panel(s.panels[0])).astype(int)
    dups = [i for i in range(1, MAX_PANELS) if s.near_duplicate[i]]
    assert len(dups) == (MAX_PANELS - 1 if source == "procedural_edit" else HARD.near_duplicates)
    for i in dups:
        other = np.asarray(decode_panel(s.panels[i])).astype(int)
        changed = np.abs(target - other).max(axis=2) > 0
        side = s.detail_size * target.shape[0] / s.crop_side
        assert 0 < changed.sum() <= (1.6 * side) ** 2  # one small object, not a new scene
        assert s.answers[i] != s.answers[0]
        if s.question.startswith("What color"):
            assert _near(target, s.answers[0])[changed].sum() > 20
            assert _near(other, s.answers[i])[changed].sum() > 20
        else:
            assert (s.answers[0], s.answers[i]) == ("yes", "no")
    for i in set(range(1, MAX_PANELS)) - set(dups):  # the others are scenes of their own
        other = np.asarray(decode_panel(s.panels[i])).astype(int)
        assert other.shape != target.shape or (np.abs(target - other).max(axis=2) > 0).mean() > 0.3


def test_layout_position_words_name_the_target_by_rows_or_columns():
    from multipanelvqa.composite.layouts import generate_layouts
    from multipanelvqa.composite.positions import describe_positions

    longer = 0
    for layout in generate_layouts(0)[:40]:
        short, hard = describe_positions(layout.boxes), describe_positions(layout.boxes, "layout")
        assert len(set(hard)) == len(hard) == len(short)  # still one wording per panel
        assert len(hard[0].split()) >= len(short[0].split())
        longer += len(hard[0].split()) > len(short[0].split())
    assert longer >= 5
