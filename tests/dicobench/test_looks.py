"""Option texts say what is drawn: both colours of a patterned object, hollow ones as hollow,
natural relation wording, and catalogue names that match their glyphs."""

import dataclasses

import numpy as np

from dicobench.editors.scene import entity
from dicobench.kit.scene.catalogue import FORMER_NAMES, by_name
from dicobench.kit.scene.embeddings import shipped
from dicobench.kit.scene.model import PlacedObject
from dicobench.kit.scene.palette import clearly_different
from dicobench.kit.scene.random_scenes import random_scene
from dicobench.looks import look, with_marking
from dicobench.sources.relations import RELATIONS, related, statement


def _car(**kw):
    return PlacedObject(uid=0, name="car", colour="green", size=60, cx=100, cy=100, accent="brown", **kw)


def test_a_patterned_object_is_named_by_both_its_colours():
    assert look(_car(style="striped")) == "green-and-brown striped car"
    assert look(_car(style="two_tone")) == "green-and-brown two-tone car"
    assert look(_car(style="outline")) == "hollow green car"
    assert look(_car()) == "green car"
    assert with_marking(_car(marking="band")) == "green car with a brown band"
    orange = dataclasses.replace(_car(marking="sticker"), accent="orange")
    assert with_marking(orange) == "green car with an orange sticker"
    assert with_marking(_car(style="dotted", marking="band")) == "green-and-brown dotted car with a band"


def test_entity_options_never_name_one_colour_of_a_two_coloured_object():
    rng = np.random.default_rng(4)
    scene = random_scene(rng)
    styled = [o for o in scene.objects if o.style in ("striped", "dotted", "two_tone")]
    assert styled
    for obj in styled[:5]:
        text = entity.remove(rng, scene, obj).text
        assert text == f"The {look(obj)} disappeared." and f"{obj.colour}-and-{obj.accent}" in text


def test_relations_read_naturally():
    texts = {statement(r, 1) for r in RELATIONS}
    assert not any("form one whole" in t for t in texts)
    assert statement(related("key", "padlock"), 1) == "The key in image 1 opens the padlock in image 2."
    assert (statement(related("paintbrush", "paint palette"), 2)
            == "The paint palette in image 1 and the paintbrush in image 2 are used together.")


def test_renamed_glyphs_keep_their_draws():
    names = by_name()
    for new, old in FORMER_NAMES.items():
        assert new in names and old not in names
    assert "fish fillet" not in names and names["whole fish"].icon == "fish"
    table = shipped()
    assert set(table.names) == set(names)  # every name, renamed ones included, has its vector


def _two_mugs():
    """A scene with a red and a blue mug side by side, and a lone plain car."""
    from dicobench.kit.scene.model import Scene

    mugs = (PlacedObject(uid=0, name="mug", colour="red", size=60, cx=300, cy=300),
            PlacedObject(uid=1, name="mug", colour="blue", size=60, cx=420, cy=300))
    car = PlacedObject(uid=2, name="car", colour="green", size=60, cx=300, cy=520)
    return Scene(width=900, height=700, background="wood", variant=0, tint="neutral", texture_seed=1,
                 objects=mugs + (car,))


def test_objects_that_share_a_name_are_called_by_their_look():
    from dicobench.editors.scene import attribute, traces
    from dicobench.looks import called, namesakes

    scene = _two_mugs()
    red, blue, car = scene.objects
    assert namesakes(red, scene) == [blue] and called(red, scene) == "red mug" and called(car, scene) == "car"
    rng = np.random.default_rng(0)
    for _ in range(20):
        edit = attribute.recolour(rng, scene, red)
        new = edit.scene.object(0)
        assert edit.text == f"The red mug became {'an' if new.colour[0] in 'aeiou' else 'a'} {new.colour} mug."
        assert new.colour != "blue" and clearly_different(new.colour, "blue")  # never a second blue mug
    assert attribute.restyle(rng, scene, red).text.startswith("The red mug became a")
    assert attribute.recolour(rng, scene, car).text.startswith("The car changed colour from green to")
    assert entity.remove(rng, scene, red).text == "The red mug disappeared."
    footprints = next(k for k in traces.KINDS if k.name == "footprints")
    edit = traces.add_trace(rng, scene, blue, footprints)
    assert edit.text == "A trail of shoe prints now leads to the blue mug, so someone walked up to it."


def test_a_hard_row_names_namesakes_by_their_look():
    from dicobench.checks import Rejected
    from dicobench.generate import BuildOptions, proposed_row
    from dicobench.kit.scene.difficulty import HARD
    from dicobench.kit.scene.random_scenes import SceneConfig

    opts = BuildOptions(per_task=5, scene=SceneConfig.from_difficulty(HARD))
    seen = 0
    for seed in range(6):
        try:
            row, proposal = proposed_row("entity", seed, "A", opts)
        except Rejected:  # a draw the checks refuse: a build moves on to the next seed
            continue
        described = proposal.describe("A", row["cues"])
        assert described["objects"] > HARD.max_objects  # the same-kind objects come on top of the distinct ones
        seen += described["namesakes"] > 0
    assert seen


def test_plural_names_take_no_article_when_they_change_or_appear():
    import dataclasses

    from dicobench.editors.scene import attribute

    scene = _two_mugs()
    socks = dataclasses.replace(scene, objects=tuple(dataclasses.replace(o, name="socks") if o.name == "mug" else o
                                                     for o in scene.objects))
    rng = np.random.default_rng(1)
    text = attribute.recolour(rng, socks, socks.objects[0]).text
    assert text.startswith("The red socks became ") and " a " not in text and " an " not in text


def test_swapped_symmetric_patterns_do_not_tell_namesakes_apart():
    import dataclasses

    from dicobench.editors.scene import attribute
    from dicobench.kit.scene.random_scenes import tell_apart

    a = PlacedObject(uid=0, name="bowling ball", colour="green", accent="blue", style="two_tone", size=40, cx=100,
                     cy=100)
    b = dataclasses.replace(a, uid=1, colour="blue", accent="green", cx=200)
    assert not tell_apart(a, b) and not tell_apart(dataclasses.replace(a, style="striped"),
                                                   dataclasses.replace(b, style="striped"))
    # body and dots differ
    assert tell_apart(dataclasses.replace(a, style="dotted"), dataclasses.replace(b, style="dotted"))
    assert tell_apart(a, dataclasses.replace(b, style="plain"))
    # a plain blue bowling ball with a green accent may not become the swapped twin of the two-tone one
    scene = _two_mugs()
    scene = dataclasses.replace(scene, objects=(a, dataclasses.replace(b, style="plain")))
    rng = np.random.default_rng(0)
    for _ in range(30):
        edit = attribute.restyle(rng, scene, scene.objects[1])
        assert edit.scene.object(1).style != "two_tone"


def test_a_trace_beside_one_of_several_namesakes_is_clearly_its_own():
    import math

    from dicobench.editors.scene import traces
    from dicobench.kit.scene.render import footprint

    scene = _two_mugs()
    red, blue, _ = scene.objects
    spill = next(k for k in traces.KINDS if k.name == "spill")
    placed = [e for e in (traces.add_trace(np.random.default_rng(seed), scene, red, spill) for seed in range(10)) if e]
    assert len(placed) >= 5  # the free side of the red mug takes most spills
    for edit in placed:
        x, y, w, h = edit.cues[0].bbox
        centre = (x + w / 2, y + h / 2)

        def gap(box):
            bx, by, bw, bh = box
            return math.hypot(max(bx - centre[0], 0, centre[0] - bx - bw), max(by - centre[1], 0, centre[1] - by - bh))

        assert gap(footprint(blue)) >= 2 * gap(footprint(red))
        assert "beside the red mug, so it was knocked over" in edit.text


def test_plural_names_agree_in_every_sentence():
    import dataclasses

    from dicobench.editors.scene import traces

    scene = _two_mugs()
    socks = dataclasses.replace(scene.objects[2], name="socks", colour="red")
    scene = dataclasses.replace(scene, objects=scene.objects[:2] + (socks,))
    rng = np.random.default_rng(3)
    assert " were replaced by " in entity.replace(rng, scene, socks).text
    scorch = next(k for k in traces.KINDS if k.name == "scorch")
    assert traces.add_trace(rng, scene, socks, scorch).text == \
        "Scorch marks have appeared on the socks, so they were burned or overheated."
