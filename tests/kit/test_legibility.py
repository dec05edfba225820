"""The audited look rules: every pattern and marking an option names is one a person sees."""

import dataclasses

import numpy as np

from dicobench.kit.scene.difficulty import EASY, HARD
from dicobench.kit.scene.legibility import (
    DETAIL_SIZE,
    HIDDEN_DETAIL,
    KEPT_DETAIL,
    PATTERN_MIN_SIZE,
    detail_shares,
    legible,
    marking_holds,
    misread_colours,
    two_tone_holds,
)
from dicobench.kit.scene.model import PlacedObject
from dicobench.kit.scene.palette import COLOURS, lab_distance
from dicobench.kit.scene.random_scenes import (
    SceneConfig,
    drawable,
    legible_look,
    object_colour,
    random_scene,
    surface_colour,
    with_same_kind,
)
from dicobench.sources.procedural import cue_objects

WOOD = (178, 128, 80)
MUG = PlacedObject(0, "mug", "red", 40, 0, 0, accent="white")


def test_two_tone_that_leaves_stray_pieces_is_not_drawn():
    # the review's satellite dish: two-tone cut its radio waves into two white blocks beside it
    assert not two_tone_holds("satellite dish", 22)
    assert two_tone_holds("bicycle", 22) and two_tone_holds("mug", 22)
    dish = dataclasses.replace(MUG, name="satellite dish", size=22, style="two_tone")
    assert not legible(dish, WOOD)


def test_patterns_need_room_and_second_colours_need_contrast():
    assert not legible(dataclasses.replace(MUG, style="striped", size=PATTERN_MIN_SIZE - 1), WOOD)
    assert legible(dataclasses.replace(MUG, style="striped", size=PATTERN_MIN_SIZE), WOOD)
    # stripes hide the squares that make a chessboard one
    assert not legible(dataclasses.replace(MUG, name="chessboard", style="striped", size=48), WOOD)
    assert not legible(dataclasses.replace(MUG, style="striped", accent="brown"), WOOD)  # stripes the surface's colour
    assert not legible(dataclasses.replace(MUG, style="dotted", accent="red"), WOOD)  # dots the body's colour
    assert legible(MUG, WOOD) and legible(dataclasses.replace(MUG, style="outline"), WOOD)


def test_hollow_must_empty_the_body_and_markings_must_land_on_it():
    assert not legible(dataclasses.replace(MUG, name="bicycle", style="outline"), WOOD)  # thin strokes: hollow = plain
    # the review's "hollow black television": a frame already, its ring only leaves hairlines, at every size
    for size in (24, 34, 40, 60, 80):
        assert not legible(dataclasses.replace(MUG, name="television", style="outline", size=size), WOOD)
        assert legible(dataclasses.replace(MUG, name="camcorder", style="outline", size=size), WOOD)
    assert not marking_holds("thermometer", 48, "band")  # the review's band that no thermometer showed
    assert marking_holds("key", 48, "band")
    marked = dataclasses.replace(MUG, size=48, marking="band", marking_fit=True)
    assert legible(marked, WOOD)
    assert not legible(dataclasses.replace(marked, marking_fit=False), WOOD)  # the first release's places: not audited
    assert not legible(dataclasses.replace(marked, style="striped"), WOOD)  # a band in the stripes' own colour


def test_looks_that_read_as_another_thing_are_not_drawn():
    # the review's hollow spoon that read as a magnifying glass, and a brown snowman as a gingerbread man
    assert not legible(dataclasses.replace(MUG, name="spoon", style="outline"), WOOD)
    assert legible(dataclasses.replace(MUG, name="spoon"), WOOD)
    assert not legible(dataclasses.replace(MUG, name="snowman", colour="brown"), WOOD)
    assert legible(dataclasses.replace(MUG, name="snowman", colour="teal"), WOOD)
    # a careful reader's miss: a white-crusted, pink two-tone bread slice read as a cupcake
    slice_ = dataclasses.replace(MUG, name="bread slice", colour="pink", accent="white", size=40)
    assert not legible(dataclasses.replace(slice_, style="two_tone"), WOOD) and legible(slice_, WOOD)
    # a hollow rug's fringed ends read as a film strip's perforations; a plain rug stays
    rug = dataclasses.replace(MUG, name="rug", colour="black", size=40)
    assert not legible(dataclasses.replace(rug, style="outline"), WOOD) and legible(rug, WOOD)
    # a white-over-blue two-tone door read as a top hat (a careful reader found no door, answered E)
    door = dataclasses.replace(MUG, name="door", colour="blue", accent="white", size=40)
    assert not legible(dataclasses.replace(door, style="two_tone"), WOOD) and legible(door, WOOD)


def test_objects_are_never_drawn_in_a_colour_that_reads_as_another_thing():
    """`legible` refuses a brown snowman, but falling back to plain keeps its colour: scenes drew one
    in about one of 40. A colour is now drawn again where the object would read as another thing
    (a red syringe, turned, was taken for a carrot); the first release's colours stay."""
    syringe = dataclasses.replace(MUG, name="syringe", size=24)
    assert not legible(syringe, WOOD) and not legible(dataclasses.replace(syringe, colour="orange"), WOOD)
    assert legible(dataclasses.replace(syringe, colour="blue"), WOOD)
    hard, easy, tile = SceneConfig.from_difficulty(HARD), SceneConfig.from_difficulty(EASY), (215, 215, 215)
    for name, misread in (("snowman", {"brown"}), ("syringe", {"red", "orange"})):
        drawn = {object_colour(np.random.default_rng(seed), name, tile, hard) for seed in range(300)}
        assert not drawn & misread and len(drawn) >= 8
        assert {object_colour(np.random.default_rng(seed), name, tile, easy) for seed in range(300)} & misread


def test_black_never_hides_the_inner_detail_that_names_a_glyph():
    """The tenth review: a black chessboard's squares barely showed at 16x. The rim (0.4 times the
    body's colour) covers holes up to 2 px wide; on black it is no line at all."""
    rims = {c: lab_distance(rgb, tuple(0.4 * v for v in rgb)) for c, rgb in COLOURS.items()}
    assert rims["black"] < 10 and min(d for c, d in rims.items() if c != "black") >= 30
    hidden, kept = detail_shares("chessboard", DETAIL_SIZE)
    assert hidden >= HIDDEN_DETAIL and kept < KEPT_DETAIL
    assert detail_shares("bus", DETAIL_SIZE)[1] >= KEPT_DETAIL  # its windows stay open on a black bus
    chessboard = dataclasses.replace(MUG, name="chessboard", colour="black", size=22)
    assert not legible(chessboard, WOOD) and legible(dataclasses.replace(chessboard, colour="red"), WOOD)
    assert legible(dataclasses.replace(chessboard, name="bus"), WOOD)
    assert {"black"} <= misread_colours("waffle", "audited") and not misread_colours("waffle", "first-release")
    hard, easy, tile = SceneConfig.from_difficulty(HARD), SceneConfig.from_difficulty(EASY), (215, 215, 215)
    # nor is one drawn so where the look is already plain (an instance row's glance double takes its
    # object's look: a black waffle beside a black egg)
    waffle = dataclasses.replace(chessboard, name="waffle", accent="black")
    assert not drawable(waffle, WOOD, hard) and drawable(waffle, WOOD, easy)
    for name in ("waffle", "keyboard", "microchip"):
        assert "black" not in {object_colour(np.random.default_rng(seed), name, tile, hard) for seed in range(300)}
        assert "black" in {object_colour(np.random.default_rng(seed), name, tile, easy) for seed in range(300)}


def test_first_release_looks_stay_and_audited_ones_fall_back_to_plain():
    striped = dataclasses.replace(MUG, style="striped", size=20)
    assert legible_look(striped, WOOD, SceneConfig.from_difficulty(EASY)) is striped
    assert (legible_look(striped, WOOD, SceneConfig.from_difficulty(HARD))
            == dataclasses.replace(striped, style="plain"))


def test_every_object_of_hard_scenes_keeps_the_rules():
    cfg = SceneConfig.from_difficulty(HARD)
    for seed in range(3):
        rng = np.random.default_rng(seed)
        scene = random_scene(rng, cfg)
        scene = with_same_kind(rng, scene, cfg, cue_objects(scene, cfg))
        surface = surface_colour(scene)
        assert all(drawable(o, surface, cfg) for o in scene.objects)
        assert all(o.colour in COLOURS for o in scene.objects)


def _flood_pieces(mask):
    """A plain 4-connected flood fill: each piece's pixel count per row."""
    seen, out = np.zeros(mask.shape, bool), []
    for y, x in zip(*np.nonzero(mask)):
        if seen[y, x]:
            continue
        rows, stack = np.zeros(mask.shape[0], int), [(y, x)]
        seen[y, x] = True
        while stack:
            cy, cx = stack.pop()
            rows[cy] += 1
            for ny, nx in ((cy + 1, cx), (cy - 1, cx), (cy, cx + 1), (cy, cx - 1)):
                if 0 <= ny < mask.shape[0] and 0 <= nx < mask.shape[1] and mask[ny, nx] and not seen[ny, nx]:
                    seen[ny, nx] = True
                    stack.append((ny, nx))
        out.append(tuple(rows))
    return sorted(out)


def test_pieces_are_the_four_connected_components():
    from dicobench.kit.scene.legibility import _mask, _pieces

    rng = np.random.default_rng(1)
    masks = [rng.random((rng.integers(1, 25), rng.integers(1, 25))) < rng.uniform(0.2, 0.8) for _ in range(100)]
    masks += [np.zeros((4, 4), bool), np.ones((3, 5), bool), np.eye(6, dtype=bool)]  # diagonal: six pieces
    masks += [_mask(name, 22) for name in ("satellite dish", "bicycle", "mug")]
    for mask in masks:
        assert sorted(tuple(int(v) for v in rows) for rows in _pieces(mask)) == _flood_pieces(mask)
