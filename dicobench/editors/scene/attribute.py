"""Attribute edits: one object's colour or surface style changes, or the colour of one of its parts
(one half of a two-tone object, its stripes, its dots); identity and place stay."""

from __future__ import annotations

import dataclasses

import numpy as np

from dicobench.editors.scene import Cue, SceneEdit, capitalised, indefinite, kind_phrase, refer
from dicobench.editors.scene.decoys import Looks
from dicobench.kit.scene.geometry import bounding
from dicobench.kit.scene.model import PlacedObject, Scene
from dicobench.kit.scene.palette import COLOURS, clearly_different, distance, stands_out
from dicobench.kit.scene.random_scenes import SceneConfig, cue_objects, drawable, surface_colour, tell_apart
from dicobench.kit.scene.render import footprint
from dicobench.looks import PATTERN_WORDS, look, namesakes

STYLE_WORDS = {
    "plain": "plain",
    "outline": "hollow outline",
    "striped": "striped",
    "dotted": "polka-dotted",
    "two_tone": "two-tone",
}


# the part of a patterned object drawn in its accent colour, as a person names it
PART_WORDS = {"two_tone": "half", "striped": "stripes", "dotted": "dots"}


def _edit(scene: Scene, old: PlacedObject, new: PlacedObject, text: str, label: str, kind: str) -> SceneEdit:
    a, b = footprint(old), footprint(new)
    return SceneEdit(
        scene=scene.replace_object(old.uid, new),
        text=text,
        subject=old.name,
        dirty=(bounding((a, b)),),
        cues=(Cue(0, a, old.name), Cue(1, b, label)),
        touched=(old.name,),
        kind=kind,
        about=old.uid,
        states=(Looks(old), Looks(new)),
    )


def _may_look(new: PlacedObject, others: list[PlacedObject], surface, cfg: SceneConfig) -> bool:
    """Whether an object may be drawn as `new` (an edit's result, or a look given before the edits):
    still told apart from every other object of its name and legible by the audited look rules."""
    return all(tell_apart(new, o) for o in others) and drawable(new, surface, cfg)


def _became(obj: PlacedObject, new: PlacedObject, cfg: SceneConfig) -> str:
    """`The red-and-white striped mug became a blue-and-white striped mug.` (with decoys: `A ...`)."""
    return capitalised(f"{refer(look(obj), cfg)} became {kind_phrase(look(new))}.")


def recolour(rng: np.random.Generator, scene: Scene, obj: PlacedObject, cfg: SceneConfig = SceneConfig(),
             unlike: tuple[str, ...] = ()) -> SceneEdit | None:
    """Change the main colour to another named colour, at least the difficulty's distance away
    (clearly different at `easy`), that still stands out, still tells the object apart from
    every other of its name, and is clearly unlike the colours `unlike` names (another option's)."""
    surface = surface_colour(scene)
    others = namesakes(obj, scene)
    choices = [
        c
        for c in COLOURS
        if distance(c, obj.colour) >= cfg.difficulty.recolour_distance
        and stands_out(c, surface)
        and (obj.style == "plain" or distance(c, obj.accent) >= 25)
        and _may_look(dataclasses.replace(obj, colour=c), others, surface, cfg)
        and all(clearly_different(c, u) for u in unlike)
    ]
    if not choices:
        return None
    colour = choices[rng.integers(len(choices))]
    new = dataclasses.replace(obj, colour=colour)
    if indefinite(cfg):
        text = (capitalised(f"{refer(look(obj), cfg)} became {colour}.") if obj.style == "plain"
                else _became(obj, new, cfg))
    else:
        text = (_became(obj, new, cfg) if obj.style in PATTERN_WORDS or others
                else f"The {obj.name} changed colour from {obj.colour} to {colour}.")
    return _edit(scene, obj, new, text, f"{obj.name} ({colour})", "recolour")


def restyle(rng: np.random.Generator, scene: Scene, obj: PlacedObject, cfg: SceneConfig = SceneConfig(),
            unlike: tuple[str, ...] = ()) -> SceneEdit | None:
    """Change the surface style (plain, striped, polka-dotted, two-tone, hollow outline), to one
    that still tells the object apart from every other of its name (and is none of `unlike`)."""
    others = namesakes(obj, scene)
    surface = surface_colour(scene)
    styles = [s for s in STYLE_WORDS if s != obj.style and s not in unlike
              and _may_look(dataclasses.replace(obj, style=s), others, surface, cfg)]
    if not styles:
        return None
    style = styles[rng.integers(len(styles))]
    new = dataclasses.replace(obj, style=style)
    text = (_became(obj, new, cfg) if others or indefinite(cfg)
            else f"The {obj.name} changed from {STYLE_WORDS[obj.style]} to {STYLE_WORDS[style]}.")
    return _edit(scene, obj, new, text, f"{obj.name} ({STYLE_WORDS[style]})", "restyle")


def has_part(obj: PlacedObject) -> bool:
    return obj.style in PART_WORDS


def recolour_part(rng: np.random.Generator, scene: Scene, obj: PlacedObject, cfg: SceneConfig = SceneConfig(),
                  unlike: tuple[str, ...] = ()) -> SceneEdit | None:
    """Change the colour of the part of a patterned object drawn in its accent (one half of a
    two-tone object, its stripes, its dots) while the rest of it stays: to a named colour at least
    the difficulty's distance from the old one that keeps the look legible (the audited rules: clearly
    unlike the main colour, and the surface where the part reaches the outline), still tells the
    object apart from every other of its name, and is clearly unlike the colours `unlike` names."""
    if not has_part(obj):
        return None
    surface = surface_colour(scene)
    others = namesakes(obj, scene)
    choices = [
        c
        for c in COLOURS
        if distance(c, obj.accent) >= cfg.difficulty.recolour_distance
        and clearly_different(c, obj.colour)
        and _may_look(dataclasses.replace(obj, accent=c), others, surface, cfg)
        and all(clearly_different(c, u) for u in unlike)
    ]
    if not choices:
        return None
    accent = choices[rng.integers(len(choices))]
    new = dataclasses.replace(obj, accent=accent)
    part = PART_WORDS[obj.style]
    text = capitalised(f"the {obj.accent} {part} of {refer(look(obj), cfg)} became {accent}.")
    return _edit(scene, obj, new, text, f"{obj.name} ({accent} {part})", "part")


def turn_stripes(scene: Scene, obj: PlacedObject, cfg: SceneConfig = SceneConfig()) -> SceneEdit | None:
    """Turn a striped object's stripes to run along the other diagonal, in the same colours: the
    change a shrunk pair hides (the stripes blur to the same mix of colours either way) and zoom
    shows plainly ("The stripes of a red-and-white striped mug now run the other way.")."""
    if obj.style != "striped":
        return None
    new = dataclasses.replace(obj, turned=not obj.turned)
    text = capitalised(f"the stripes of {refer(look(obj), cfg)} now run the other way.")
    return _edit(scene, obj, new, text, f"{obj.name} (stripes turned)", "turn")


# px: the smallest object whose stripes a turn may take: its stripes are then at least 4 px apart
# (`dicobench.kit.scene.render`), 16 px at a careful reader's 4x zoom
TURN_MIN_SIZE = 36


def turnable(obj: PlacedObject) -> bool:
    return obj.style == "striped" and obj.size >= TURN_MIN_SIZE


def with_stripes(rng: np.random.Generator, scene: Scene, cfg: SceneConfig, want: int) -> Scene:
    """The scene with objects a turn may take drawn striped in their own two colours until `want`
    names have one (in a seeded order; each still told apart from its namesakes and legible): a
    2K scene seldom holds four striped objects of 36-48 px, so without this most rows the `turns`
    dial asks for fell back to recolours. Both images show them striped (the row's base scene)."""
    names = {o.name for o in part_objects(scene, cfg) if turnable(o)}
    sized = [o for o in cue_objects(scene, cfg, scale=2) if o.size >= TURN_MIN_SIZE and o.style != "striped"]
    surface = surface_colour(scene)
    for idx in rng.permutation(len(sized)):
        if len(names) >= want:
            break
        obj = sized[idx]
        new = dataclasses.replace(obj, style="striped")
        if obj.name not in names and _may_look(new, namesakes(obj, scene), surface, cfg):
            scene, names = scene.replace_object(obj.uid, new), names | {obj.name}
    return scene


def part_objects(scene: Scene, cfg: SceneConfig) -> list[PlacedObject]:
    """The objects a part edit may change: patterned ones up to twice the difficulty's cue scale
    (the part that changes is a fraction of the object); none where the difficulty asks for no
    part edits."""
    return [o for o in cue_objects(scene, cfg, scale=2) if has_part(o)] if cfg.difficulty.parts else []


def two_changes(rng: np.random.Generator, scene: Scene, obj: PlacedObject, cfg: SceneConfig = SceneConfig(),
                part: bool = False) -> tuple[SceneEdit, SceneEdit] | None:
    """Two attribute edits of one object that a person tells apart: two clearly different new
    colours, a new colour and a new style, or two new styles; with `part`, two clearly different
    new colours of its part."""
    if part:
        first = recolour_part(rng, scene, obj, cfg)
        second = first and recolour_part(rng, scene, obj, cfg, unlike=(first.scene.object(obj.uid).accent,))
        return (first, second) if first and second else None
    draw = rng.random()
    if draw < 0.4:
        first = recolour(rng, scene, obj, cfg)
        second = first and recolour(rng, scene, obj, cfg, unlike=(first.scene.object(obj.uid).colour,))
    elif draw < 0.75:
        # the new colour is clearly unlike the accent, which the new style may show
        first, second = recolour(rng, scene, obj, cfg, unlike=(obj.accent,)), restyle(rng, scene, obj, cfg)
    else:
        first = restyle(rng, scene, obj, cfg)
        second = first and restyle(rng, scene, obj, cfg, unlike=(first.scene.object(obj.uid).style,))
    return (first, second) if first and second else None
