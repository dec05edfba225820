"""Where the position decides (hard): the target's layout neighbours are its twins, differing in
the asked attribute alone; Q3's wrong choices name the nearest panels; Q1's "all" form has
exactly one breaker; crowded counts stay countable; every layout box carries its own mark."""

import dataclasses

import numpy as np
import pyarrow.parquet as pq
import pytest

from dicobench.kit.scene.catalogue import load_catalogue
from dicobench.kit.scene.geometry import apart, bounding
from dicobench.kit.scene.random_scenes import GAP
from dicobench.kit.scene.render import footprint
from multipanelvqa.build import _images, build
from multipanelvqa.composite.compose import compose
from multipanelvqa.composite.layouts import generate_layouts
from multipanelvqa.composite.positions import describe_positions, nearest, neighbours
from multipanelvqa.difficulty import EXTREME, HARD
from multipanelvqa.questions.common import FILLERS, Q3_NEAR, q1, q3
from multipanelvqa.sources import varied
from multipanelvqa.sources.image_sets import decode_panel

# ---- neighbours ------------------------------------------------------------------------------

def test_neighbours_are_the_panels_next_to_the_target_in_row_column_and_diagonal():
    grid = [(c * 200, r * 200, 200, 200) for r in range(3) for c in range(3)]
    centre = grid[4:5] + grid[:4] + grid[5:]  # the target in the middle: all eight are next to it
    assert sorted(neighbours(centre)) == list(range(1, 9))
    corner = grid  # the target top left: right, below and the diagonal
    assert neighbours(corner) == [1, 3, 4]
    assert nearest(corner)[:3] == [1, 3, 4] and len(nearest(corner)) == 8
    splash = [(0, 0, 200, 200), (260, 10, 200, 200), (600, 600, 200, 200)]
    assert neighbours(splash) == [1]
    far = [(0, 0, 200, 200), (700, 700, 200, 200), (700, 0, 200, 200)]
    assert neighbours(far) == [2]  # none is close: the nearest alone


def _pixels(png):
    return np.asarray(decode_panel(png)).astype(int)


def test_twins_differ_from_the_target_in_the_asked_attribute_alone():
    """Made as the sets make them: each twin is the target's scene with only the question's objects
    changed (recoloured, or Xs taken by objects of another name / given back), and its pixels show
    its own answer (`drawn_as`); every other object is the same object at the same place."""
    checked = {"colour": 0, "count": 0}
    for seed in range(12):
        rng = np.random.default_rng(seed)
        entry = varied._entry(rng, True, HARD.catalogue)
        kind = (varied.colour_kind(rng, entry, HARD.catalogue) if seed % 2
                else varied.count_kind(rng, entry, HARD.max_count))
        exclude = varied.excluded(entry.name, HARD.catalogue)
        base = varied.shared_scene(rng, kind, HARD, exclude)
        target = base and kind.realise(rng, base, kind.values[0], HARD, exclude)
        target = target and varied.vary(rng, target, HARD.other_details, HARD, exclude)
        if target is None:
            continue
        for answer in kind.values[1:3]:
            twin = kind.twin(rng, target, base, answer, HARD, exclude)
            if twin is None:
                continue
            assert varied.drawn_as(kind, twin, answer, HARD.detail_size)
            changed = {o.uid for o in twin.scene.objects if o != target.scene.object(o.uid)}
            assert {o.uid for o in twin.scene.objects} == {o.uid for o in target.scene.objects}
            assert changed and changed <= set(target.slots) | set(target.xs)
            for uid in changed:
                a, b = target.scene.object(uid), twin.scene.object(uid)
                assert (a.cx, a.cy, a.size, a.rotation) == (b.cx, b.cy, b.size, b.rotation)
                if kind.colour:
                    assert dataclasses.replace(a, colour=b.colour) == b
                else:
                    assert (a.name == entry.name) != (b.name == entry.name)
            assert len(changed) == (1 if kind.colour else abs(int(answer) - int(kind.values[0])))
            checked["colour" if kind.colour else "count"] += 1
    assert checked["colour"] >= 3 and checked["count"] >= 3, checked


def test_sets_carry_a_twin_per_panel_with_that_panels_answer(hard_sets):
    for s in hard_sets.values():
        assert len(s.twins) == len(s.panels) and s.twins[0] == b""
        target = _pixels(s.panels[0])
        for answer, twin in zip(s.answers[1:], s.twins[1:]):
            if answer == s.answers[0]:  # target_answer shared: a far panel with the target's answer has none
                assert s.shared and twin == b""
                continue
            diff = np.abs(_pixels(twin) - target).max(axis=2) > 12
            assert 0 < diff.mean() < 0.15  # the asked objects only: a small part of the panel


@pytest.fixture(scope="module")
def hard_rows(tmp_path_factory):
    out = build(tmp_path_factory.mktemp("hard") / "b", layouts="6,20,75,140,181", configs="original",
                num_proc=1, progress=False)
    rows = [r for f in sorted((out / "original").glob("*.parquet"))
            for r in pq.read_table(f, columns=["question_type", "question", "answer", "choices", "subfigures",
                                               "source", "layout_id"]).to_pylist()]
    return [{**r, "question_type": ("q1", "q2", "q3")[r["question_type"]]} for r in rows]


def test_the_targets_neighbours_show_twins_and_q3_names_near_panels(hard_rows):
    for r in hard_rows:
        boxes = [tuple(s["bbox"]) for s in r["subfigures"]]
        twins = {i for i, s in enumerate(r["subfigures"]) if s["source_id"].endswith(":twin")}
        assert twins == set(neighbours(boxes)), r["layout_id"]
        if r["question_type"] == "q3":
            positions = [s["position"] for s in r["subfigures"]]
            wrong = [c for c in r["choices"] if c != positions[0] and c not in FILLERS]
            # among the five nearest that do not show the target's answer (the one far panel that
            # may show it is skipped), fillers only where fewer than three remain
            assert set(wrong) <= {positions[i] for i in nearest(boxes)[:Q3_NEAR + 1]}
            assert len(wrong) == 3 or len(wrong) >= len(boxes) - 2
            assert r["choices"]["abcd".index(r["answer"])] == positions[0]


def test_q3_order_picks_among_the_nearest_five_and_refuses_a_bad_order():
    positions = ["top left", "top middle", "left middle", "shared", "far one", "far two", "right bottom",
                 "middle"]
    picked = set()
    for seed in range(40):
        q = q3("Q?", "x", positions, 0, letter="abcd"[seed % 4], rng=np.random.default_rng(seed),
               order=[1, 2, 7, 3, 6, 4, 5], exclude=[3])
        assert q.choices["abcd".index(q.answer)] == "top left" and len(set(q.choices)) == 4
        picked |= set(q.choices) - {"top left"}
    # the five nearest eligible: "shared" is excluded, "far two" is sixth
    assert picked <= {"top middle", "left middle", "middle", "right bottom", "far one"} and len(picked) > 3
    with pytest.raises(ValueError):
        q3("Q?", "x", positions, 0, letter="c", rng=np.random.default_rng(0), order=[1, 2])


# ---- Q1 with one breaker ---------------------------------------------------------------------

def test_q1_all_form_has_exactly_one_breaker():
    answers = ["3", "1", "5", "1", "5"]
    no = q1("How many cups are there in the image?", answers, 0, yes=False, other_than=True)
    assert no.answer == "no" and 'something other than "3"' in no.question
    assert no.question.startswith("For all the subfigures")
    assert sum(a == "3" for a in answers) == 1  # the target alone breaks the rule
    yes = q1("How many cups are there in the image?", answers, 0, yes=True, absent_answer="0", other_than=True)
    assert yes.answer == "yes" and 'other than "0"' in yes.question
    with pytest.raises(ValueError):
        q1("Q?", answers, 0, yes=True, absent_answer="5", other_than=True)
    with pytest.raises(ValueError):
        q1("Q?", answers, 0, yes=True, other_than=True)


def test_one_breaker_schedule_balances_yes_no_and_any_all():
    layouts = generate_layouts(0, "layout")
    kinds = [k for _, _, k, _ in _images(["procedural_edit"], layouts, 0, q1_forms="one_breaker")]
    assert set(kinds) == {"yes", "yes_all", "no_any", "no_all"}
    counts = {k: kinds.count(k) for k in set(kinds)}
    assert max(counts.values()) - min(counts.values()) <= 2, counts
    # the other forms keep their schedules
    assert [k for _, _, k, _ in _images(["procedural_edit"], layouts, 0, q1_forms="any")].count("yes") == \
        counts["yes"] + counts["yes_all"]


def test_built_q1_all_forms_are_true(hard_rows):
    """An "all ... other than V" row is no exactly when V is the target's answer (Q2's)."""
    import re
    target = {(r["source"], r["layout_id"]): r["answer"] for r in hard_rows if r["question_type"] == "q2"}
    forms = [r for r in hard_rows if r["question_type"] == "q1" and r["question"].startswith("For all the subfigures")]
    assert len(forms) >= 2
    for r in forms:
        value = re.search(r'something other than "([^"]+)"', r["question"]).group(1)
        assert r["answer"] == ("no" if value == target[(r["source"], r["layout_id"])] else "yes")


# ---- crowded counts ----------------------------------------------------------------------------

@pytest.mark.parametrize("layout", ["apart", "clustered"])
def test_crowded_counts_are_countable(hard_sets, layout):
    """Count sets reach counts above the first release's 3; every count panel's Xs are COUNT_GAP
    apart, or, clustered, stand in one group whose every object shows most of itself, and are
    drawn at least as large as the detail size (checked when the sets are made): at the smallest
    panel (180 px from a crop of at most 600) that is 15 px on the canvas."""
    difficulty = EXTREME.with_axes(count_layout=layout)
    scene_counts = []
    for seed in range(8):
        rng = np.random.default_rng(100 + seed)
        entry = varied._entry(rng, True, difficulty.catalogue)
        kind = varied.count_kind(rng, entry, difficulty.max_count)
        exclude = varied.excluded(entry.name, difficulty.catalogue)
        base = varied.shared_scene(rng, kind, difficulty, exclude)
        if base is None:
            continue
        assert len(base.xs) == difficulty.max_count
        panel = kind.realise(rng, base, kind.values[0], difficulty, exclude)
        if panel is not None and varied.legible_count(panel):
            if layout == "apart":
                assert varied.x_spacing(panel) >= varied.COUNT_GAP
            else:
                boxes = [footprint(panel.scene.object(uid)) for uid in panel.slots]
                assert varied.x_spacing(dataclasses.replace(panel, xs=panel.slots)) < 0  # they touch
                group = bounding(boxes)
                assert all(apart(footprint(o), group, GAP) for o in panel.scene.objects if o.uid not in panel.slots)
            scene_counts.append(len(panel.xs))
    assert scene_counts
    counts = {int(a) for s in hard_sets.values() if s.question.startswith("How many") for a in s.answers}
    assert counts and max(counts) <= HARD.max_count
    assert HARD.detail_size * 180 / 600 >= 15


def test_a_run_of_counts_is_consecutive_round_a_circle_and_names_no_count_more_often():
    """`counts` run: five counts one apart (8 and 0 next to each other), and over many sets every
    count is the target's about as often, so Q2's answer is no likelier from its text alone."""
    rng = np.random.default_rng(0)
    entry = varied._entry(rng, True, HARD.catalogue)
    targets = []
    for _ in range(1800):
        values = [int(v) for v in varied.count_kind(rng, entry, 8, 5, run=True).values]
        assert any(sorted((v - start) % 9 for v in values) == [0, 1, 2, 3, 4] for start in range(9)), values
        targets.append(values[0])
    per_count = np.bincount(targets, minlength=9)
    assert per_count.min() > 150 and per_count.max() < 250, per_count  # 200 each at random


def test_count_sets_keep_out_the_xs_kin_and_never_count_pills():
    """A group of one colour is read by shape alone: no kind of the X's category is drawn in its
    set, and the pill, whose glyph draws two, is never the counted object."""
    rng = np.random.default_rng(1)
    entry = next(e for e in load_catalogue(HARD.catalogue) if e.name == "keyboard")
    kind = varied.count_kind(rng, entry, HARD.max_count, 5, run=True)
    out = varied.kept_out(kind, HARD)
    assert {"SIM card", "calculator", "laptop"} <= out and "mitten" not in out
    assert not {"SIM card", "calculator"} & varied.kept_out(kind, HARD.with_axes(count_layout="apart"))
    assert all(varied._entry(np.random.default_rng(i), True, HARD.catalogue).name != "pill" for i in range(400))


@pytest.mark.parametrize("layout", ["apart", "clustered"])
def test_legible_count_refuses_xs_too_close(layout):
    """Two Xs 4 px apart are no longer counted apart: refused whether the Xs stand apart or in a group."""
    difficulty = HARD.with_axes(count_layout=layout)
    rng = np.random.default_rng(3)
    entry = varied._entry(rng, True, difficulty.catalogue)
    kind = varied.count_kind(rng, entry, difficulty.max_count)
    exclude = varied.excluded(entry.name, difficulty.catalogue)
    base = None
    while base is None:
        base = varied.shared_scene(rng, kind, difficulty, exclude)
    assert varied.legible_count(base)
    a, b = base.xs[:2]
    oa = base.scene.object(a)
    close = base.scene.replace_object(b, dataclasses.replace(base.scene.object(b), cx=oa.cx + 4, cy=oa.cy))
    assert not varied.legible_count(dataclasses.replace(base, scene=close))


# ---- marks and words for every layout box ---------------------------------------------------------

def test_every_layout_box_has_its_words_and_its_own_mark():
    """All 210 layouts of the layout words (layout 181 included): each box has position words
    naming it alone, and its caption mark is drawn in its own top-left corner, nowhere else."""
    for layout in generate_layouts(0, "layout"):
        words = describe_positions(layout.boxes, "layout")
        assert len(set(words)) == layout.num_panels
        panels = [dataclasses.replace(layout).boxes and _solid(i) for i in range(layout.num_panels)]
        plain = np.asarray(compose(layout, panels)).astype(int)
        marked = np.asarray(compose(layout, panels,
                                    captions=[str(i + 1) for i in range(layout.num_panels)])).astype(int)
        changed = np.abs(plain - marked).sum(-1) > 0
        inside = np.zeros_like(changed)
        for x, y, w, h in layout.boxes:
            corner = changed[y:y + h // 3, x:x + w // 2]
            assert corner.any(), (layout.layout_id, (x, y, w, h))
            inside[y:y + h // 3, x:x + w // 2] = True
        assert not changed[~inside].any(), layout.layout_id


def _solid(i):
    from PIL import Image
    return Image.new("RGB", (64, 64), ((60 * i) % 256, 120, 200))
