"""Entity edits: an object is replaced by one of another category, removed, or added."""

from __future__ import annotations

import dataclasses

import numpy as np

from dicobench.editors.scene import Cue, SceneEdit, capitalised, kind_phrase, pronouns, refer
from dicobench.editors.scene.decoys import Looks
from dicobench.kit.scene.audit import glance_doubles
from dicobench.kit.scene.catalogue import by_name, load_catalogue, read_as
from dicobench.kit.scene.geometry import bounding
from dicobench.kit.scene.model import PlacedObject, Scene
from dicobench.kit.scene.palette import COLOURS, clearly_different, stands_out
from dicobench.kit.scene.random_scenes import (
    SceneConfig,
    drawable,
    legible_look,
    occupied_boxes,
    place,
    random_object,
    surface_colour,
)
from dicobench.kit.scene.render import footprint
from dicobench.looks import look


def _absent_entries(scene: Scene, cfg: SceneConfig, exclude_category: str | None = None,
                    taken: frozenset[str] = frozenset()):
    present = {o.name for o in scene.objects} | taken
    return [e for e in load_catalogue(cfg.difficulty.catalogue)
            if e.name not in present and e.category != exclude_category]


def replace(rng: np.random.Generator, scene: Scene, obj: PlacedObject, taken: frozenset[str] = frozenset(),
            cfg: SceneConfig = SceneConfig()) -> SceneEdit | None:
    """Swap in an object of a different category at the same place, about the same size."""
    pool = _absent_entries(scene, cfg, by_name()[obj.name].category, taken)
    occupied = occupied_boxes(scene, skip=obj.uid)
    for idx in rng.permutation(len(pool))[:12]:
        fresh = random_object(rng, obj.uid, pool[idx], surface_colour(scene), cfg, scene.palette)
        fresh = legible_look(dataclasses.replace(fresh, size=obj.size, cx=obj.cx, cy=obj.cy), surface_colour(scene),
                             cfg)
        new = place(rng, scene, fresh, occupied, cfg, tries=1, near=(obj.cx, obj.cy, 0))
        if new is not None:
            return _replaced(scene, obj, new, cfg, "replace")
    return None


def replace_alike(rng: np.random.Generator, scene: Scene, obj: PlacedObject, taken: frozenset[str] = frozenset(),
                  cfg: SceneConfig = SceneConfig()) -> SceneEdit | None:
    """Swap in, at the same place, size, pose and colour, a plain object of another category whose
    outline shrunk to a glance's resolution is much like `obj`'s, but that a person does not take
    for it (not one of its look-alikes), and that its colour lets a person read (`drawable`): the
    change a shrunk pair hides and zoom shows."""
    if obj.style != "plain" or obj.marking:
        return None
    doubles = glance_doubles(obj.name, cfg.difficulty.catalogue)
    surface = surface_colour(scene)
    pool = [e for e in _absent_entries(scene, cfg, by_name()[obj.name].category, taken)
            if e.name in doubles and drawable(dataclasses.replace(obj, name=e.name), surface, cfg)]
    occupied = occupied_boxes(scene, skip=obj.uid)
    for idx in rng.permutation(len(pool))[:6]:
        new = place(rng, scene, dataclasses.replace(obj, name=pool[idx].name), occupied, cfg, tries=1,
                    near=(obj.cx, obj.cy, 0))
        if new is not None:
            return _replaced(scene, obj, new, cfg, "replace_alike")
    return None


def _replaced(scene: Scene, obj: PlacedObject, new: PlacedObject, cfg: SceneConfig, kind: str) -> SceneEdit:
    a, b = footprint(obj), footprint(new)
    return SceneEdit(
        scene=scene.replace_object(obj.uid, new),
        text=capitalised(f"{refer(look(obj), cfg)} {pronouns(obj.name)['was']} replaced by "
                         f"{kind_phrase(look(new))}."),
        subject=obj.name,
        dirty=(bounding((a, b)),),
        cues=(Cue(0, a, obj.name), Cue(1, b, new.name)),
        touched=(obj.name, new.name),
        kind=kind,
        about=obj.uid,
        states=(Looks(obj), Looks(new, beside=obj.name)),
    )


def remove(rng: np.random.Generator, scene: Scene, obj: PlacedObject, taken: frozenset[str] = frozenset(),
           cfg: SceneConfig = SceneConfig()) -> SceneEdit:
    box = footprint(obj)
    return SceneEdit(
        scene=scene.replace_object(obj.uid, None),
        text=capitalised(f"{refer(look(obj), cfg)} disappeared."),
        subject=obj.name,
        dirty=(box,),
        cues=(Cue(0, box, obj.name), Cue(1, box, f"{obj.name} (gone)")),
        touched=(obj.name,),
        kind="remove",
        about=obj.uid,
        states=(Looks(obj), Looks(obj)),
    )


def add(rng: np.random.Generator, scene: Scene, taken: frozenset[str] = frozenset(),
        cfg: SceneConfig = SceneConfig()) -> SceneEdit | None:
    """A new object, absent from the scene, appears in free space."""
    pool = _absent_entries(scene, cfg, taken=taken)
    occupied = occupied_boxes(scene)
    for idx in rng.permutation(len(pool))[:8]:
        fresh = random_object(rng, scene.next_uid(), pool[idx], surface_colour(scene), cfg, scene.palette, cue=True)
        new = place(rng, scene, fresh, occupied, cfg)
        if new is None:
            continue
        box = footprint(new)
        return SceneEdit(
            scene=scene.add(obj=new),
            text=capitalised(f"{kind_phrase(look(new))} appeared."),
            subject=new.name,
            dirty=(box,),
            cues=(Cue(1, box, f"{new.name} (new)"),),
            touched=(new.name,),
            kind="add",
            about=new.uid,
            states=(Looks(new), Looks(new)),
        )
    return None


PAIRS = ("swap", "vanish", "appear")  # two replacements; a replacement and a removal; one new object in two looks


def two_changes(rng: np.random.Generator, scene: Scene, obj: PlacedObject, pair: str,
                taken: frozenset[str] = frozenset(),
                cfg: SceneConfig = SceneConfig()) -> tuple[SceneEdit, SceneEdit] | None:
    """Two entity edits about one object that a person tells apart: `swap`, `obj` replaced by one
    object or by another that does not look like it; `vanish`, replaced or gone; `appear`, a new
    object (not `obj`) appears, in one look or in another clearly different colour."""
    if pair == "appear":
        first = add(rng, scene, taken=taken | {obj.name}, cfg=cfg)
        return first and _other_colour(rng, scene, first, cfg)
    first = replace(rng, scene, obj, taken=taken, cfg=cfg)
    if first is None:
        return None
    if pair == "vanish":
        # beside "... was replaced by ...", a bare "disappeared" is also true of the replaced object
        gone = remove(rng, scene, obj, taken, cfg)
        return first, dataclasses.replace(gone, text=f"{gone.text[:-1]}, and nothing took its place.")
    unlike = read_as(first.scene.object(obj.uid).name, cfg.difficulty.catalogue)
    second = replace(rng, scene, obj, taken=taken | unlike, cfg=cfg)
    return (first, second) if second else None


def _other_colour(rng: np.random.Generator, scene: Scene, edit: SceneEdit,
                  cfg: SceneConfig) -> tuple[SceneEdit, SceneEdit] | None:
    """`edit` (a new object appeared) and the same object appearing there in a clearly different colour."""
    new = edit.scene.objects[-1]
    surface = surface_colour(scene)
    colours = [c for c in COLOURS if c != new.colour and clearly_different(c, new.colour) and stands_out(c, surface)
               and (new.style == "plain" or clearly_different(c, new.accent))
               and drawable(dataclasses.replace(new, colour=c), surface, cfg)]
    if not colours:
        return None
    twin = dataclasses.replace(new, colour=colours[rng.integers(len(colours))])
    return edit, dataclasses.replace(edit, scene=scene.add(obj=twin),
                                     text=capitalised(f"{kind_phrase(look(twin))} appeared."),
                                     states=(Looks(twin), Looks(twin)))
