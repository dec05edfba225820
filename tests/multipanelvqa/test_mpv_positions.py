"""Position words: exact wording on hand-made layouts, uniqueness, and truth on all layouts."""

import re
from itertools import combinations

import pytest

from multipanelvqa.composite.layouts import generate_layouts
from multipanelvqa.composite.positions import (
    SHARE,
    PositionError,
    _band_reads,
    _groups,
    caption_numbers,
    describable,
    describe_positions,
)

GRID_2X2 = [(0, 0, 200, 200), (200, 0, 200, 200), (0, 200, 200, 200), (200, 200, 200, 200)]


@pytest.mark.parametrize(
    "boxes, expected",
    [
        (GRID_2X2, ["top left subfigure", "top right subfigure", "bottom left subfigure", "bottom right subfigure"]),
        ([(0, 0, 200, 200), (300, 0, 200, 200)], ["left subfigure", "right subfigure"]),
        ([(0, 300, 200, 200), (0, 0, 200, 200)], ["bottom subfigure", "top subfigure"]),
        (
            [(i * 200, 0, 200, 200) for i in (3, 0, 1, 4, 2)],
            [
                "second subfigure from the right",
                "leftmost subfigure",
                "second subfigure from the left",
                "rightmost subfigure",
                "third subfigure from the left",
            ],
        ),
        # a big panel beside two small ones: read by columns, not by (unclean) rows
        ([(0, 0, 400, 400), (400, 0, 200, 200), (400, 200, 200, 200)],
         ["left subfigure", "top right subfigure", "bottom right subfigure"]),
        (
            [(c * 200, r * 200, 200, 200) for r in range(3) for c in range(3)],
            [f"{v} {h} subfigure" for v in ("top", "middle", "bottom") for h in ("left", "middle", "right")],
        ),
        (
            [(0, 0, 200, 200), (200, 0, 200, 200), (400, 0, 200, 200), (600, 0, 200, 200), (0, 200, 200, 200)],
            [
                "leftmost subfigure in the top row",
                "second subfigure from the left in the top row",
                "second subfigure from the right in the top row",
                "rightmost subfigure in the top row",
                "bottom subfigure",
            ],
        ),
    ],
)
def test_wording(boxes, expected):
    expected = ["center subfigure" if e == "middle middle subfigure" else e for e in expected]
    assert describe_positions(boxes) == expected


def test_scattered_boxes_fall_back_to_ranks():
    # Neither rows nor columns are clean (bands chain through boxes that do not share one),
    # but each box has a visible rank along x or y.
    boxes = [(300, 120, 200, 200), (650, 440, 200, 200), (410, 380, 200, 200), (150, 320, 200, 200),
             (360, 610, 200, 200)]
    assert describe_positions(boxes) == [
        "topmost subfigure",
        "rightmost subfigure",
        "second subfigure from the right",
        "leftmost subfigure",
        "bottommost subfigure",
    ]


def test_raises_when_positions_cannot_be_told_apart():
    boxes = [(170, 310, 200, 200), (80, 550, 200, 200), (50, 0, 200, 200), (480, 560, 200, 200), (680, 650, 200, 200)]
    with pytest.raises(PositionError, match="no visible rank"):
        describe_positions(boxes)
    with pytest.raises(PositionError):
        describe_positions([(0, 0, 200, 200)])


def test_refuses_borderline_words():
    # 60% vertical overlap: just in the same row at the threshold, a row apart just above it.
    with pytest.raises(PositionError, match="borderline"):
        describe_positions([(0, 0, 200, 200), (300, 80, 200, 200)])
    assert describe_positions([(0, 0, 200, 200), (300, 40, 200, 200)]) == ["left subfigure", "right subfigure"]


_OPPOSITE = {"left": "right", "leftmost": "rightmost", "top": "bottom", "topmost": "bottommost"}
_AXIS = ({w: 0 for w in ("left", "right", "leftmost", "rightmost")}
         | {w: 1 for w in ("top", "bottom", "topmost", "bottommost")})


def _centre(b, axis):
    return b[axis] + b[axis + 2] / 2


def test_opposite_words_agree_with_geometry():
    """Two descriptions that differ only by left/right (top/bottom) name boxes in that order."""
    checked = 0
    for layout in generate_layouts(0):
        boxes, words = layout.boxes, [d.split() for d in describe_positions(layout.boxes)]
        for i, j in combinations(range(len(boxes)), 2):
            a, b = words[i], words[j]
            diff = [k for k in range(len(a)) if len(a) == len(b) and a[k] != b[k]]
            if len(diff) != 1:
                continue
            wa, wb = a[diff[0]], b[diff[0]]
            for low, high in _OPPOSITE.items():
                if {wa, wb} == {low, high}:
                    lo, hi = (i, j) if wa == low else (j, i)
                    assert _centre(boxes[lo], _AXIS[low]) < _centre(boxes[hi], _AXIS[low]), (layout, wa, wb)
                    checked += 1
    assert checked > 200


def test_ordinals_agree_with_geometry():
    """'second subfigure from the left' is left of the 'third ... from the left' in the same group."""
    ordinal = re.compile(r"(\w+) subfigure from the (left|right|top|bottom)(.*)")
    order = {"second": 2, "third": 3, "fourth": 4}
    checked = 0
    for layout in [l for seed in range(6) for l in generate_layouts(seed)]:
        desc = describe_positions(layout.boxes)
        parsed = [ordinal.fullmatch(d) for d in desc]
        for i, j in combinations(range(len(desc)), 2):
            mi, mj = parsed[i], parsed[j]
            if not (mi and mj) or mi.group(2, 3) != mj.group(2, 3):
                continue
            side, axis = mi.group(2), _AXIS[mi.group(2)]
            near, far = (i, j) if order[mi.group(1)] < order[mj.group(1)] else (j, i)
            closer_to_low = _centre(layout.boxes[near], axis) < _centre(layout.boxes[far], axis)
            assert closer_to_low == (side in ("left", "top")), (layout, desc[i], desc[j])
            checked += 1
    assert checked >= 5


def test_caption_numbers_follow_reading_order():
    assert caption_numbers(GRID_2X2) == [1, 2, 3, 4]
    assert caption_numbers(list(reversed(GRID_2X2))) == [4, 3, 2, 1]
    # small vertical jitter stays within a band
    assert caption_numbers([(300, 30, 200, 200), (0, 0, 200, 200), (100, 400, 200, 200)]) == [2, 1, 3]


def test_caption_numbers_do_not_give_away_the_target():
    layouts = generate_layouts(0)
    for l in layouts:
        assert sorted(caption_numbers(l.boxes)) == list(range(1, l.num_panels + 1))
    target_numbers = [caption_numbers(l.boxes)[0] for l in layouts]
    assert len(set(target_numbers)) >= 6
    assert target_numbers.count(1) < len(layouts) / 2


# ---- layout words: one panel as a person reads the layout -----------------------------------
# Told apart from the code under test: geometry only. A panel is "clearly left of" another when
# both its edges are further left by 40% of the smaller panel side (for same-size squares: they
# share under 60% of their width, so no reader puts them in one column).

def _clearly(q, p, side, m):
    axis, low = {"left": (0, True), "right": (0, False), "top": (1, True), "bottom": (1, False)}[side]
    a, b = (q, p) if low else (p, q)
    return a[axis] < b[axis] - m and a[axis] + a[axis + 2] < b[axis] + b[axis + 2] - m


def _fits(word, p, boxes, m):
    others = [q for q in boxes if q != p]
    if word in ("left", "right", "top", "bottom"):
        return not any(_clearly(q, p, word, m) for q in others)
    low, high = ("left", "right") if word == "across" else ("top", "bottom")
    return any(_clearly(q, p, low, m) for q in others) and any(_clearly(q, p, high, m) for q in others)


_TWO_WORDS = re.compile(r"(top|middle|bottom) (left|middle|right) subfigure")
_ONE_WORD = re.compile(r"(top|bottom|left|right|middle|center)(?:most)? subfigure")


def _reads_as(description, p, boxes, m):
    """Whether a reader could take a bare position word to mean box p; None for group words."""
    two = _TWO_WORDS.fullmatch(description)
    if two or description == "center subfigure":
        v, h = two.groups() if two else ("middle", "middle")
        return (_fits("down" if v == "middle" else v, p, boxes, m)
                and _fits("across" if h == "middle" else h, p, boxes, m))
    one = _ONE_WORD.fullmatch(description)
    if one:
        word = one.group(1)
        if word == "middle":  # middle of which axis: either reading counts
            return _fits("down", p, boxes, m) or _fits("across", p, boxes, m)
        return _fits(word, p, boxes, m)
    return None


_GROUP = re.compile(r"in the (top|bottom|left|right)(?:most)? (row|column)$")


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_layout_words_name_exactly_one_panel_as_a_person_reads_it(seed):
    """Over all 210 layouts: a bare position ("top left", "bottom middle", "topmost") fits its
    panel and no other, and "... in the top row" (or bottom, left, right) is never said of a panel
    with another clearly beyond it. The short words of the first release fail this often."""
    bare = unnamed = 0
    wrong = {"short": 0, "layout": 0}
    for words in wrong:
        for layout in generate_layouts(seed, words):
            boxes = layout.boxes
            m = 0.4 * min(min(b[2], b[3]) for b in boxes)
            try:
                descriptions = describe_positions(boxes, words)
            except PositionError:
                unnamed += 1
                continue
            for p, d in zip(boxes, descriptions):
                fits = _reads_as(d, p, boxes, m)
                if fits is None:
                    group = _GROUP.search(d)
                    assert not group or _fits(group.group(1), p, boxes, m), (layout.layout_id, d)
                    continue
                bare += words == "layout"
                wrong[words] += not fits or sum(bool(_reads_as(d, q, boxes, m)) for q in boxes) != 1
    assert wrong["layout"] == 0 and bare > 250
    assert wrong["short"] > 50  # what the layout words fix (the first release's words, kept at easy)
    assert unnamed == 0  # every layout has its words (the layout words' layouts move a panel where needed)


def test_two_word_positions_only_where_row_and_column_readings_agree():
    # Splash: the top row's left panel (1) sits right of a lower panel (4), so "top left" would point
    # at a panel whose column is not the leftmost; the layout words name its row instead.
    boxes = [(640, 10, 200, 200), (420, 40, 200, 200), (450, 300, 200, 200), (690, 280, 200, 200),
             (150, 480, 200, 200)]
    short, layout = describe_positions(boxes), describe_positions(boxes, "layout")
    assert short[1] == "top left subfigure"
    assert layout[1] == "left subfigure in the top row" and "top left subfigure" not in layout
    # A bottom row of two under three columns: its left panel is in the middle column ("bottom
    # middle" has two readings), so it is the bottom row's left panel.
    boxes = [(0, 0, 200, 200), (200, 0, 200, 200), (400, 0, 200, 200), (200, 200, 200, 200), (400, 200, 200, 200)]
    assert describe_positions(boxes)[3] == "bottom middle subfigure"
    assert describe_positions(boxes, "layout")[3] == "left subfigure in the bottom row"
    # A full grid keeps its two-word positions.
    grid = [(c * 200, r * 200, 200, 200) for r in range(3) for c in range(3)]
    assert describe_positions(grid, "layout") == describe_positions(grid)


def test_a_row_is_read_with_and_without_a_panel_that_spans_beyond_it():
    """A panel twice the height of a row's others, its top on theirs, spans two rows: one reader
    counts it in the top row, another takes the top row to be the band of small panels (a careful
    reviewer read "the rightmost subfigure in the top row" as the third small one). Layout words name
    a panel by its place in a row only where both readings name it."""
    small = [(0, 0, 200, 200), (200, 0, 200, 200), (400, 0, 200, 200)]
    spanning = [*small, (600, 0, 400, 400), (0, 200, 400, 400)]
    assert describe_positions(spanning)[3] == "rightmost subfigure in the top row"  # the first release's words
    assert not describable(spanning, "layout")
    # a spanning panel at the row's far end from where the small ones are counted keeps their places
    assert _band_reads(spanning, [0, 1, 2, 3], 1) is False
    assert _band_reads(small + [(600, 0, 200, 200)], [0, 1, 2, 3], 1) is True
    # rows of alike panels keep their words
    assert describe_positions(small + [(0, 200, 400, 400), (400, 200, 400, 400)], "layout")[:3] == [
        "left subfigure in the top row", "middle subfigure in the top row", "right subfigure in the top row"]


def test_rows_count_only_where_panels_of_different_rows_overlap_well_under_half():
    """Careful readers put a splash panel in the next row (column) where it overlapped that row's
    panels by 0.38-0.49 of a side: layout 33's lowest panel in the pair's row above (so two choices
    named one panel), layout 3's top panel in the left column. Such groupings give no layout words."""
    layout_33 = [(590, 677, 187, 187), (363, 776, 187, 187), (798, 508, 187, 187), (351, 556, 187, 187),
                 (581, 371, 187, 187), (124, 681, 187, 187), (733, 130, 187, 187)]
    assert _groups(layout_33, 1, SHARE) is not None and _groups(layout_33, 1, SHARE, bands=True) is None
    assert not any("row" in d for d in describe_positions(layout_33, "layout"))  # its columns are clear
    layout_3 = [(217, 99, 217, 217), (92, 329, 217, 217), (351, 539, 217, 217), (619, 736, 217, 217),
                (620, 359, 217, 217)]
    assert _groups(layout_3, 0, SHARE) is not None and _groups(layout_3, 0, SHARE, bands=True) is None
    # well apart, rows and columns still count
    assert _groups(GRID_2X2, 1, SHARE, bands=True) == [[0, 1], [2, 3]]


def test_layout_words_exist_whichever_box_is_the_target():
    """Layout words name the first box (the target) at most length, and a build puts any box first:
    a splash base's seven panels had words in the generator's order but were borderline with its
    fourth panel first, and the build stopped. `describable` tries every box first."""
    boxes = [(663, 386, 210, 210), (420, 535, 210, 210), (214, 314, 210, 210), (281, 82, 210, 210),
             (646, 137, 210, 210), (246, 760, 210, 210), (21, 606, 210, 210)]
    describe_positions(boxes, "layout")
    with pytest.raises(PositionError, match="borderline"):
        describe_positions([boxes[3], *boxes[:3], *boxes[4:]], "layout")
    assert not describable(boxes, "layout") and describable(boxes)


def test_layouts_without_layout_words_are_grid_mixed_and_splash_ones():
    """The paper's layouts lacking layout words (seed 0) are grid_mixed ones, where a panel twice
    the others' size shares a row or column with them, and splash ones whose rows or columns
    overlap by about half a side; the short words always exist."""
    layouts = generate_layouts(0)
    missing = [l for l in layouts if not describable(l.boxes, "layout")]
    assert [l.style for l in missing].count("grid_mixed") == 38
    assert [l.style for l in missing].count("splash") == 15 and len(missing) == 53
    assert all(describable(l.boxes) for l in layouts)


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_layout_words_layouts_move_a_panel_so_every_layout_is_named(seed):
    """With layout words a base whose prefixes lack them has panels placed again where the style's
    generator could have put them: all 210 layouts are named, the same count per style and panel
    number; up to a third of the splash layouts differ from the short words' and about half the
    grid_mixed ones, every base keeping its first panel and each grid_mixed base its first two (the
    two sizes)."""
    short, layout = generate_layouts(seed), generate_layouts(seed, "layout")
    assert all(describable(l.boxes, "layout") for l in layout)
    assert ([(l.layout_id, l.style, l.num_panels) for l in layout]
            == [(l.layout_id, l.style, l.num_panels) for l in short])
    moved = [(a, b) for a, b in zip(short, layout) if a != b]
    assert sum(a.style != "grid_mixed" for a, _ in moved) <= 25
    assert all(a.boxes[:1] == b.boxes[:1] for a, b in moved)
    assert all(a.boxes[:2] == b.boxes[:2] for a, b in moved if a.style == "grid_mixed")
    assert {len({box[2] for box in b.boxes}) for b in layout if b.style == "grid_mixed"} == {2}
    # a base is placed again only where a prefix lacks the words, and then from that prefix on
    missing = {l.layout_id for l in short if not describable(l.boxes, "layout")}
    assert missing <= {a.layout_id for a, _ in moved}
    assert {a.layout_id // 7 for a, _ in moved} == {i // 7 for i in missing}
