"""MultipanelVQA's panel difficulty: presets and dials, easy is the first release, descriptors are
recorded per row and in the card, and harder panels still hold the answers the questions give."""

import dataclasses
import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
import pytest

sys.path.insert(0, str(Path(__file__).parents[1]))
from digests import fixture, folder_digests  # noqa: E402

from dicobench.kit.io.shards import sidecar_path
from dicobench.kit.scene.catalogue import load_catalogue
from dicobench.kit.scene.palette import COLOURS
from dicobench.kit.scene.random_scenes import random_scene
from multipanelvqa.build import build
from multipanelvqa.composite.positions import neighbours
from multipanelvqa.difficulty import DEFAULT, EASY, EXTREME, HARD, PRESETS, PanelDifficulty, resolve
from multipanelvqa.sources import varied
from multipanelvqa.sources.image_sets import MAX_PANELS, decode_panel, panel_scene, square_crop
from multipanelvqa.sources.procedural import procedural_set


def test_presets_grow_harder_on_every_dial():
    assert DEFAULT == "hard" and set(PRESETS) == {"easy", "hard", "extreme"}
    assert EASY == PanelDifficulty() and EASY.detail_size == 0 and EASY.near_duplicates == 0
    for harder, softer in ((HARD, EASY), (EXTREME, HARD)):
        assert harder.min_objects > softer.max_objects // 2 and harder.max_objects > softer.max_objects
        assert harder.max_size < softer.max_size and harder.near_duplicates > softer.near_duplicates
        assert (harder.detail_size or 999) < (softer.detail_size or 999)
    assert HARD.position_words == EXTREME.position_words == "layout"
    assert EXTREME.other_details > HARD.other_details > EASY.other_details == 0
    assert (EASY.scene_question, EASY.q1_forms) == ("presence", "any_all") and not EASY.varied
    assert HARD.varied and EXTREME.varied and HARD.scene_question == EXTREME.scene_question == "count"
    assert HARD.q1_forms == EXTREME.q1_forms == "one_breaker"
    assert HARD.neighbours == EXTREME.neighbours == "twins" and HARD.q3_choices == EXTREME.q3_choices == "neighbours"
    assert EASY.max_count == 3 < HARD.max_count == EXTREME.max_count == 8  # the most a count may be
    assert (EASY.asked, EASY.count_layout, EASY.counts) == ("mixed", "apart", "spread")
    assert (HARD.asked, HARD.count_layout, HARD.counts) == (EXTREME.asked, EXTREME.count_layout, EXTREME.counts) \
        == ("scene", "clustered", "run")
    assert EASY.catalogue == "first-release" and HARD.catalogue == EXTREME.catalogue == "audited"


def test_dials_set_apart_make_a_custom_preset_and_bad_values_are_refused():
    assert resolve("hard", {"near_duplicates": None}) is HARD
    custom = resolve("hard", {"detail_size": 40})
    assert custom.preset == "custom" and custom.detail_size == 40 and custom.max_objects == HARD.max_objects
    assert resolve("easy", {"near_duplicates": 0}) is EASY  # the preset's own value: still the preset
    for bad in ({"detail_size": 10}, {"near_duplicates": 9}, {"position_words": "long"},
                {"min_objects": 9, "max_objects": 3}, {"other_details": 7}, {"scene_question": "size"},
                {"max_count": 3}, {"counts": "sometimes"}, {"count_layout": "heaped"}, {"asked": "all"},
                {"q1_forms": "all"}, {"catalogue": "second"}):
        with pytest.raises(ValueError):
            resolve("hard", bad)
    with pytest.raises(ValueError, match="unknown difficulty"):
        resolve("medium")


@pytest.mark.parametrize("args, message", [
    (["--difficulty", "medium"], "invalid choice"),
    (["--detail-size", "8"], "error: --difficulty: detail size must be 0 or 24-160"),
])
def test_bad_difficulty_is_a_one_line_error(tmp_path, args, message):
    proc = subprocess.run([sys.executable, "-m", "multipanelvqa.cli.main", "build", "--out", str(tmp_path / "o"),
                           *args], capture_output=True, text=True)
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
        ids = sorted(r["id"] for f in (hard / config).glob("*.parquet")
                     for r in pq.read_table(f, columns=["id"]).to_pylist())
        described = _descriptors(hard, config)
        assert sorted(d["id"] for d in described) == ids
    rows = {r["id"]: r for f in (hard / "original").glob("*.parquet") for r in pq.read_table(f).to_pylist()}
    hard_px, easy_px, easy_box = {}, {}, {}
    for d in _descriptors(hard, "original"):
        k = rows[d["id"]]["num_subfigures"]
        boxes = [tuple(sf["bbox"]) for sf in rows[d["id"]]["subfigures"]]
        if d["source"] == "procedural_edit":
            assert d["near_duplicates"] == k - 1
        else:  # target_answer shared: the twins at its neighbours, and the group's panels that fill others
            assert len(neighbours(boxes)) <= d["near_duplicates"] <= k - 1
        assert len(d["panel_answers"]) == k
        assert d["objects"] > EASY.max_objects
        hard_px[d["id"]] = d["detail_px"] / max(boxes[0][2:])  # per px of the target's box side
    assert all(d["near_duplicates"] == 0 for d in _descriptors(hard, "low_similarity"))
    for d in _descriptors(easy, "original"):
        assert d["objects"] <= EASY.max_objects and d["near_duplicates"] == (rows[d["id"]]["num_subfigures"] - 1
                                                                            if d["source"] == "procedural_edit" else 0)
        easy_px[d["id"]] = d["detail_px"]
        easy_box[d["id"]] = max(next(r for f in (easy / "original").glob("*.parquet")
                                     for r in pq.read_table(f).to_pylist()
                                     if r["id"] == d["id"])["subfigures"][0]["bbox"][2:])
    # a box of the same side holds a smaller answer object (hard draws the target's box: the
    # layout's and easy's may differ), still one a person reads at 1000x1000
    assert hard_px.keys() == easy_px.keys() and all(hard_px[i] < easy_px[i] / easy_box[i] for i in hard_px)
    assert all(d["detail_px"] >= 14 for d in _descriptors(hard, "original"))
    card = (hard / "README.md").read_text()
    assert "### Difficulty: split `test`" in card and "Panel preset `hard`" in card and "near duplicates" in card
    assert "| original | procedural_scene | 6 |" in card  # two images of three rows each
    assert "Panel preset `easy`" in (easy / "README.md").read_text()
    manifest = json.loads((hard / ".multipanelvqa" / "synthetic.json").read_text())
    assert manifest["difficulty"]["preset"] == "hard" and manifest["difficulty"]["detail_size"] == HARD.detail_size


def _near(image: np.ndarray, colour: str, tol: int = 24) -> np.ndarray:
    return (np.abs(image - np.array(COLOURS[colour])).max(axis=2) <= tol)


# the first release's near duplicates (the hard preset before its varied sets), still a setting of the dials
# (the first release's builders: every dial that makes `varied` sets set back)
ONE_DETAIL = resolve("hard", {"other_details": 0, "scene_question": "presence", "catalogue": "first-release",
                              "target_answer": "unique", "neighbours": "apart", "max_count": 3, "asked": "mixed",
                              "count_layout": "apart", "counts": "spread"})


def _pixels(png: bytes) -> np.ndarray:
    return np.asarray(decode_panel(png)).astype(int)


def _regions(a: np.ndarray, b: np.ndarray) -> int:
    """Separate places where two panels differ (changed pixels joined across a few pixels)."""
    ndimage = pytest.importorskip("scipy.ndimage")
    changed = ndimage.binary_dilation(np.abs(a - b).max(axis=2) > 0, iterations=3)
    return ndimage.label(changed)[1]


@pytest.mark.parametrize("index", range(2))
@pytest.mark.parametrize("source", ["procedural_edit", "procedural_scene"])
def test_one_detail_near_duplicates_differ_only_in_the_answer(source, index):
    """With other_details 0 and presence questions (the first release's builders), near duplicates
    differ from the target only in the answer's object, drawn in the answer's colour (or missing
    where the answer is no): the target is the odd one out, which the varied sets below undo."""
    s = procedural_set(source, index, 0, difficulty=ONE_DETAIL)
    assert s.panels[0] != procedural_set(source, index, 0).panels[0]  # not easy's panels
    assert s.detail_size == HARD.detail_size and s.objects > EASY.max_objects
    target = _pixels(s.panels[0])
    dups = [i for i in range(1, MAX_PANELS) if s.near_duplicate[i]]
    assert len(dups) == (MAX_PANELS - 1 if source == "procedural_edit" else HARD.near_duplicates)
    for i in dups:
        other = _pixels(s.panels[i])
        changed = np.abs(target - other).max(axis=2) > 0
        side = s.detail_size * target.shape[0] / s.crop_side
        assert 0 < changed.sum() <= (1.6 * side) ** 2 and _regions(target, other) == 1  # one small object
        assert s.answers[i] != s.answers[0]
        if s.question.startswith("What color"):
            assert _near(target, s.answers[0])[changed].sum() > 20
            assert _near(other, s.answers[i])[changed].sum() > 20
        else:
            assert (s.answers[0], s.answers[i]) == ("yes", "no")
    for i in set(range(1, MAX_PANELS)) - set(dups):  # the others are scenes of their own
        other = _pixels(s.panels[i])
        assert other.shape != target.shape or (np.abs(target - other).max(axis=2) > 0).mean() > 0.3


def test_hard_sets_draw_the_object_in_several_panels_and_name_it_once(hard_sets):
    """Several hard panels hold the question's object, in other counts: both sources ask how many
    (asked scene); the target's answer shows in one more panel and one replacement (target_answer
    shared: a far panel shows it too), never in a twin; no colour or presence questions. A custom
    `asked` mixed draws the first hard preset's colour questions."""
    assert procedural_set("procedural_edit", 0, 0, difficulty=HARD) == hard_sets[("procedural_edit", 0)]
    kinds = set()
    for (source, _), s in hard_sets.items():
        assert s.shared and s.answers[1] == s.answers[0] and s.answers[0] not in s.answers[2:]
        assert s.replacement_answers.count(s.answers[0]) == 1 and s.absent_answer not in s.answers
        assert all(bool(t) == (a != s.answers[0]) for a, t in zip(s.answers[1:], s.twins[1:]))
        assert s.detail_size == HARD.detail_size and s.objects > EASY.max_objects
        assert re.fullmatch(r"How many [\w -]+ are there in the image\?", s.question)
        kinds.add(source)
        assert sum(a != "0" for a in s.answers) >= 3
        assert {s.answers[0], s.absent_answer} <= {str(c) for c in range(HARD.max_count + 1)}
    assert kinds == {"procedural_edit", "procedural_scene"}
    mixed = procedural_set("procedural_edit", 0, 0, difficulty=resolve("hard", {"asked": "mixed"}))
    assert mixed.question.startswith("What color is the ")
    assert all(a in COLOURS for a in mixed.answers + mixed.replacement_answers)


def test_hard_near_duplicates_differ_in_several_details_and_the_target_is_not_the_odd_one_out(hard_sets):
    """Each near duplicate differs from the target in several places (the answer's object and
    other details of both panels), so the panel whose pixels differ most from the group's others
    is the target about as often as chance, where the first release's near duplicates give it away."""
    from multipanelvqa.shortcuts import odd_one_out

    def hits(s):
        """(hits, chance) over the group's prefixes, as layouts of fewer panels take them."""
        group = [0] + [i for i in range(1, MAX_PANELS) if s.near_duplicate[i]]
        thumbs = np.stack([np.asarray(decode_panel(p).resize((64, 64)), dtype=np.float32) for p in s.panels])
        return [(odd_one_out(thumbs, group[:k]), 1 / k) for k in range(3, len(group) + 1)]

    hard, regions = [], []
    for s in hard_sets.values():
        target = _pixels(s.panels[0])
        for i in [i for i in range(1, MAX_PANELS) if s.near_duplicate[i]]:
            regions.append(_regions(target, _pixels(s.panels[i])))
        hard += hits(s)
    # the Xs' group is one region, the other details more (fewer where they land beside one another)
    assert np.median(regions) >= HARD.other_details, regions
    first = [h for source in ("procedural_edit", "procedural_scene") for i in range(2)
             for h in hits(procedural_set(source, i, 0, difficulty=ONE_DETAIL))]
    rate = {name: sum(h for h, _ in v) / len(v) for name, v in (("hard", hard), ("first", first))}
    # eight sets are a small sample (chance is about 0.22; benchmarks/bench_mpv_difficulty.py measures
    # hundreds of images): the first release's near duplicates give the target away in most groups.
    # These eight give 0.47 at target_answer shared; sets 4-15 give 0.31 (0.32 at unique, chance 0.22)
    assert rate["first"] >= 0.6 and rate["hard"] <= min(0.5, rate["first"] - 0.15), rate


def test_varied_panels_are_checked_on_their_pixels():
    """`drawn_as` (run on every hard panel) fails a wrong count, a missing object and a wrong colour."""
    rng = np.random.default_rng(3)
    entry = next(e for e in load_catalogue("audited") if e.name == "key")
    exclude = varied.excluded(entry.name, "audited")
    count = varied.count_kind(rng, entry)
    base = varied.shared_scene(rng, count, HARD, exclude)
    two = count.realise(rng, base, "2", HARD, exclude)
    assert varied.drawn_as(count, two, "2", 52) and not varied.drawn_as(count, two, "3", 52)
    gone = dataclasses.replace(two, scene=two.scene.replace_object(two.xs[0], None))
    x = two.scene.object(two.xs[0])
    out = dataclasses.replace(two, scene=two.scene.replace_object(x.uid, dataclasses.replace(x, cx=two.crop[0] - 2)))
    faint = dataclasses.replace(two, scene=two.scene.replace_object(x.uid, dataclasses.replace(x, size=4)))
    assert not any(varied.drawn_as(count, p, "2", 52) for p in (gone, out, faint))  # missing, cut by the crop, unseen
    colour = dataclasses.replace(varied.colour_kind(rng, entry, HARD.catalogue),
                                 values=("red", "blue", "green", "yellow"))
    panel = varied.shared_scene(rng, colour, HARD, exclude)
    red = colour.realise(rng, panel, "red", HARD, exclude)
    assert varied.drawn_as(colour, red, "red", 52) and not varied.drawn_as(colour, red, "blue", 52)


def test_no_drawn_name_contains_the_question_name_is_contained_in_it_or_looks_like_it():
    assert {"camera", "film camera", "video camera"} <= varied.excluded("camera", "first-release")
    assert (varied.excluded("pencil", "first-release") >= {"pencil"}
            and "pen" not in varied.excluded("pencil", "first-release"))
    audited = {e.name for e in load_catalogue("audited")}
    assert {"film camera", "video camera", "pen", "pickup truck"}.isdisjoint(audited)  # the audit's work
    assert all(n in audited for group in varied.PANEL_LOOKALIKES for n in group)
    assert {"fountain pen", "tent"} & varied.excluded("pencil", "audited") == {"fountain pen"}
    assert "teepee" in varied.excluded("tent", "audited") and "soccer ball" in varied.excluded("basketball", "audited")
    rng = np.random.default_rng(0)
    for name in ("camera", "pencil", "basketball", "tent", "crow"):
        entry = next(e for e in load_catalogue("audited") if e.name == name)
        exclude = varied.excluded(name, "audited")
        kind = varied.colour_kind(rng, entry, HARD.catalogue)
        panel = varied.vary(rng, varied.shared_scene(rng, kind, HARD, exclude), 6, HARD, exclude)
        drawn = [o.name for o in panel.scene.objects]
        assert drawn.count(name) == 1 and not (set(drawn) & (exclude - {name})) and set(drawn) <= audited
    assert varied.plural("glass of water") is None and varied.plural("wine glass") == "wine glasses"
    assert [varied.plural(n) for n in ("trophy", "key", "computer mouse", "hotdog")] == [
        "trophies", "keys", "computer mice", "hotdogs"]
def test_colour_questions_never_ask_a_colour_in_which_the_object_reads_as_another_thing():
    """A red syringe reads as a carrot and a brown snowman as a gingerbread man: neither is a colour
    question's answer, nor a detail's recolouring, at `hard` (the first release's colours stay)."""
    for name, misread in (("syringe", {"red", "orange"}), ("snowman", {"brown"})):
        entry = next(e for e in load_catalogue("audited") if e.name == name)
        asked = {v for seed in range(60) for v in varied.colour_kind(np.random.default_rng(seed), entry,
                                                                     HARD.catalogue, 5).values}
        assert not asked & misread and len(asked) >= 8
        assert {v for seed in range(60) for v in varied.colour_kind(np.random.default_rng(seed), entry,
                                                                    "first-release", 5).values} & misread
        scene = random_scene(np.random.default_rng(0), panel_scene(HARD))
        obj = dataclasses.replace(scene.objects[0], name=name, colour="teal")
        scene = scene.replace_object(obj.uid, obj)
        recoloured = {varied._change(np.random.default_rng(seed), scene, square_crop(scene), "recolour", obj, HARD,
                                     frozenset()).object(obj.uid).colour for seed in range(60)}
        assert not recoloured & misread and len(recoloured) >= 5


def test_layout_position_words_name_the_target_by_rows_or_columns():
    from multipanelvqa.composite.layouts import generate_layouts
    from multipanelvqa.composite.positions import describe_positions

    longer, shorter = 0, []
    for layout in generate_layouts(0, "layout")[:40]:
        short, hard = describe_positions(layout.boxes), describe_positions(layout.boxes, "layout")
        assert len(set(hard)) == len(hard) == len(short)  # still one wording per panel
        if len(hard[0].split()) < len(short[0].split()):
            shorter.append(layout.layout_id)
        longer += len(hard[0].split()) > len(short[0].split())
    # layout 3's short words count columns whose panels overlap by 0.42 of a side (`positions.APART`)
    assert longer >= 5 and shorter == [3]
