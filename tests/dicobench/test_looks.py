"""Option texts say what is drawn: both colours of a patterned object, hollow ones as hollow,
natural relation wording, and catalogue names that match their glyphs."""

import numpy as np

from benchkit.scene.catalogue import FORMER_NAMES, by_name
from benchkit.scene.embeddings import shipped
from benchkit.scene.model import PlacedObject
from benchkit.scene.random_scenes import random_scene
from dicobench.editors.scene import entity
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
    assert statement(related("paintbrush", "paint palette"), 2) == "The paint palette in image 1 and the paintbrush in image 2 are used together."


def test_renamed_glyphs_keep_their_draws():
    names = by_name()
    for new, old in FORMER_NAMES.items():
        assert new in names and old not in names
    assert "fish fillet" not in names and names["whole fish"].icon == "fish"
    table = shipped()
    assert set(table.names) == set(names)  # every name, renamed ones included, has its vector
