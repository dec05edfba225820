"""How a drawn object looks, in the words a person would use: the one describer of option texts.

A patterned object is named by both of its colours ("green-and-brown striped car"), so that no
option names only one colour of an object drawn in two; a hollow one says so; a marking is
named after the look it is drawn on. Where a scene holds several objects of one name (the
difficulty's same-kind objects), each is called by its look: the scene keeps their colours
apart (`dicobench.kit.scene.random_scenes.tell_apart`), so the look tells them apart.
"""

from __future__ import annotations

from dicobench.editors.scene import article
from dicobench.kit.scene.model import PlacedObject, Scene

PATTERN_WORDS = {"striped": "striped", "dotted": "dotted", "two_tone": "two-tone"}


def look(obj: PlacedObject) -> str:
    """`red mug`, `hollow red mug`, `red-and-white striped mug`."""
    if obj.style in PATTERN_WORDS:
        return f"{obj.colour}-and-{obj.accent} {PATTERN_WORDS[obj.style]} {obj.name}"
    if obj.style == "outline":
        return f"hollow {obj.colour} {obj.name}"
    return f"{obj.colour} {obj.name}"


def namesakes(obj: PlacedObject, scene: Scene) -> list[PlacedObject]:
    """The other objects of `scene` that share `obj`'s name."""
    return [o for o in scene.objects if o.name == obj.name and o.uid != obj.uid]


def called(obj: PlacedObject, scene: Scene) -> str:
    """What an option calls `obj` in `scene`: its name (`mug`), or its look (`red mug`) when
    another object there shares the name."""
    return look(obj) if namesakes(obj, scene) else obj.name


def with_marking(obj: PlacedObject) -> str:
    """`red-and-white striped mug with a band`: the look that makes it this very object (the
    marking is drawn in the accent colour, already named for a patterned object)."""
    if obj.marking is None:
        return look(obj)
    if obj.style in PATTERN_WORDS:
        mark = {"sticker": "a sticker", "band": "a band", "spots": "spots"}[obj.marking]
    else:
        mark = {"sticker": article(f"{obj.accent} sticker"), "band": article(f"{obj.accent} band"),
                "spots": f"{obj.accent} spots"}[obj.marking]
    return f"{look(obj)} with {mark}"
