"""Entity edits: an object is replaced by one of another category, removed, or added."""

from __future__ import annotations

import dataclasses

import numpy as np

from benchkit.scene.catalogue import load_catalogue
from benchkit.scene.geometry import bounding
from benchkit.scene.render import footprint
from benchkit.scene.model import PlacedObject, Scene
from benchkit.scene.random_scenes import SceneConfig, cue_sized, occupied_boxes, place, random_object, surface_colour
from dicobench.looks import look
from dicobench.editors.scene import Cue, SceneEdit, capitalised, kind_phrase, pronouns


def _absent_entries(scene: Scene, exclude_category: str | None = None, taken: frozenset[str] = frozenset()):
    present = {o.name for o in scene.objects} | taken
    return [e for e in load_catalogue() if e.name not in present and e.category != exclude_category]


def replace(rng: np.random.Generator, scene: Scene, obj: PlacedObject, taken: frozenset[str] = frozenset(),
            cfg: SceneConfig = SceneConfig()) -> SceneEdit | None:
    """Swap in an object of a different category at the same place, about the same size."""
    from benchkit.scene.catalogue import by_name

    pool = _absent_entries(scene, by_name()[obj.name].category, taken)
    occupied = occupied_boxes(scene, skip=obj.uid)
    for idx in rng.permutation(len(pool))[:12]:
        fresh = random_object(rng, obj.uid, pool[idx], surface_colour(scene), cfg, scene.palette)
        fresh = dataclasses.replace(fresh, size=obj.size, cx=obj.cx, cy=obj.cy)
        new = place(rng, scene, fresh, occupied, cfg, tries=1, near=(obj.cx, obj.cy, 0))
        if new is None:
            continue
        a, b = footprint(obj), footprint(new)
        return SceneEdit(
            scene=scene.replace_object(obj.uid, new),
            text=f"The {look(obj)} {pronouns(obj.name)['was']} replaced by {kind_phrase(look(new))}.",
            subject=obj.name,
            dirty=(bounding((a, b)),),
            cues=(Cue(0, a, obj.name), Cue(1, b, new.name)),
            touched=(obj.name, new.name),
        )
    return None


def remove(rng: np.random.Generator, scene: Scene, obj: PlacedObject, taken: frozenset[str] = frozenset()) -> SceneEdit:
    box = footprint(obj)
    return SceneEdit(
        scene=scene.replace_object(obj.uid, None),
        text=f"The {look(obj)} disappeared.",
        subject=obj.name,
        dirty=(box,),
        cues=(Cue(0, box, obj.name), Cue(1, box, f"{obj.name} (gone)")),
        touched=(obj.name,),
    )


def add(rng: np.random.Generator, scene: Scene, taken: frozenset[str] = frozenset(),
        cfg: SceneConfig = SceneConfig()) -> SceneEdit | None:
    """A new object, absent from the scene, appears in free space."""
    pool = _absent_entries(scene, taken=taken)
    occupied = occupied_boxes(scene)
    for idx in rng.permutation(len(pool))[:8]:
        fresh = cue_sized(random_object(rng, scene.next_uid(), pool[idx], surface_colour(scene), cfg, scene.palette), cfg)
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
        )
    return None
