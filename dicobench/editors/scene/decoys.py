"""Decoys: every state an option names, drawn again elsewhere in both images, unchanged.

An option such as "A black box became white" names two states: a black box before the edit and
a white box after it. Where image 2 holds the only white box, finding it answers the row from one
image, and the second image only confirms. With other black boxes and other white boxes standing
unchanged in both images (and likewise other pairs in a moved object's relations, other objects
with the same trace), the text says what kind of change to look for, never where: only comparing
the two images place by place finds it.

A `State` (declared beside `SceneEdit`) is what one side of an option says, as any scene may show it: `Looks` (an
object of this look; the relation and trace states live with their editors, `move.Beside` and
`traces.Traced`). `with_decoys` gives the states of each object the options are about
`Difficulty.decoys` copies each on average (`split`), placed clear of every edit and added alike to
the base scene and to each edited scene.

Counts matter too: the true option's change moves its object from its before-state to its
after-state, so in image 2 that option's after-state shows once more, and its before-state once
less, than its decoys alone; a reader of image 2 alone who counts each option's states finds the
option whose after-state outnumbers its before-state. Each object's states therefore share a fixed
number of decoys, split among them at random (every split alike): moving one object from one state
to another then gives a split that is as likely as the one it came from, but at the ends of the
range, so counting tells the options apart only there.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

from dicobench.editors.scene import SceneEdit, State
from dicobench.kit.scene.geometry import Box, grown
from dicobench.kit.scene.model import PlacedObject, Scene, Trace
from dicobench.kit.scene.random_scenes import TWIN_REACH, UPRIGHT, SceneConfig, place
from dicobench.kit.scene.render import footprint

CLEARANCE = 24  # px every decoy keeps from every edit's changed rectangles


def look_key(obj: PlacedObject) -> tuple:
    """What a person reads off an object: name, colours as drawn, pattern (and which way its stripes
    run), marking, damage and which way it faces (not where it stands, its size or how far it is
    turned). The accent counts only where it is drawn."""
    accent = obj.accent if obj.style in ("striped", "dotted", "two_tone") or obj.marking else None
    return (obj.name, obj.colour, obj.style, accent, obj.marking, obj.damage, obj.style == "striped" and obj.turned,
            obj.mirrored)


@dataclass(frozen=True)
class Looks:
    """An object of this look (attribute, entity and trace options' objects); its decoys stand
    beside objects named `beside` (default: its own name), as the option's object does: a
    replacement stands among its old name's same-kind objects, and a lone copy of the new look
    there, with every decoy among its own name, would say "this one was swapped in"."""

    obj: PlacedObject
    reach: int = 2 * CLEARANCE
    beside: str | None = None

    @property
    def key(self) -> tuple:
        return ("looks", look_key(self.obj))

    @property
    def names(self) -> frozenset[str]:
        return frozenset({self.obj.name})

    def instances(self, scene: Scene) -> list[frozenset[int]]:
        key = look_key(self.obj)
        return [frozenset({o.uid}) for o in scene.objects if look_key(o) == key]

    def decoy(self, rng, scene, cfg, blocked, uid):
        obj = place_among(rng, scene, self.obj, cfg, blocked, uid, beside=self.beside)
        return None if obj is None else ((obj,), ())


def twin(rng: np.random.Generator, obj: PlacedObject, uid: int) -> PlacedObject:
    """Another object of `obj`'s look (its size too, so that its look stays as legible), in its own pose."""
    return dataclasses.replace(obj, uid=uid, rotation=int(rng.integers(-UPRIGHT, UPRIGHT + 1)),
                               damage_seed=int(rng.integers(2**31)))


def place_twin(rng: np.random.Generator, scene: Scene, obj: PlacedObject, cfg: SceneConfig, blocked: list[Box],
               uid: int, near: tuple[int, int, int] | None = None, tries: int = 60) -> PlacedObject | None:
    """A twin of `obj` at a free spot of `scene` clear of `blocked` (optionally within `near`)."""
    return place(rng, scene, twin(rng, obj, uid), occupied(scene) + blocked, cfg, tries=tries, near=near)


def place_among(rng: np.random.Generator, scene: Scene, obj: PlacedObject, cfg: SceneConfig, blocked: list[Box],
                uid: int, beside: str | None = None) -> PlacedObject | None:
    """A twin of `obj` beside another object of its name (or of the name `beside`) where there is
    room (the difficulty's same-kind objects stand in small groups around the objects an edit may
    change, so a lone copy would say "not the changed one"), else anywhere free; clear of `blocked`
    either way."""
    others = [o for o in scene.objects if o.name == (beside or obj.name)]
    for k in rng.permutation(len(others))[:3]:
        near = others[k]
        placed = place_twin(rng, scene, obj, cfg, blocked, uid, near=(near.cx, near.cy, TWIN_REACH * near.size),
                            tries=30)
        if placed is not None:
            return placed
    return place_twin(rng, scene, obj, cfg, blocked, uid)


def occupied(scene: Scene) -> list[Box]:
    """Every box a scene draws something in: its objects and its traces."""
    return [footprint(e) for e in (*scene.objects, *scene.traces)]


def with_decoys(rng: np.random.Generator, base: Scene, edits: list[SceneEdit], cfg: SceneConfig
                ) -> tuple[Scene, list[SceneEdit], tuple[Box, ...]] | None:
    """The base scene and the edits with every edit's states drawn again as decoys (the same in
    every scene), and the decoys' boxes; unchanged (no draw taken) where the difficulty asks for
    none; None where some state finds no room."""
    most = cfg.difficulty.decoys
    if not most or any(e.states is None for e in edits):
        return (base, edits, ()) if not most else None
    objects_states: dict[int | None, dict] = {}  # each object's states (its before, each option's after), in order
    for e in edits:
        objects_states.setdefault(e.about, {}).update({s.key: s for s in e.states})
    planned: dict[tuple, tuple[State, int]] = {}
    for states in objects_states.values():
        fresh = [s for key, s in states.items() if key not in planned]
        planned.update({s.key: (s, n) for s, n in zip(fresh, split(rng, most, len(fresh)))})
    # every scene's elements are in the way: an edit moves an object or adds one where the base has none
    scenes = [base, *(e.scene for e in edits)]
    uid = max(o.uid for s in scenes for o in s.objects) + 1
    changed = [(set(e.touched), e.dirty) for e in edits]
    world = dataclasses.replace(base, objects=_union(s.objects for s in scenes),
                                traces=_union(s.traces for s in scenes))
    objects: list[PlacedObject] = []
    traces: list[Trace] = []
    for state, copies in planned.values():
        blocked = [grown(box, state.reach if touched & state.names else CLEARANCE)
                   for touched, dirty in changed for box in dirty]
        for _ in range(copies):
            made = state.decoy(rng, world, cfg, blocked, uid)
            if made is None:
                return None
            objects += made[0]
            traces += made[1]
            world = dataclasses.replace(world, objects=world.objects + made[0], traces=world.traces + made[1])
            uid += len(made[0])
    add = tuple(objects), tuple(traces)
    boxes = tuple(footprint(e) for e in (*objects, *traces))
    return _added(base, *add), [dataclasses.replace(e, scene=_added(e.scene, *add)) for e in edits], boxes


def split(rng: np.random.Generator, most: int, n: int) -> list[int]:
    """How many decoys each of an object's `n` states gets: `most` times `n` in all, split among them
    at random with at least one each, every split alike (a lone state, such as a removed object's
    look: 1 to 2 * `most` - 1, alike)."""
    if n == 1:
        return [int(rng.integers(1, 2 * most))]
    total = most * n
    cuts = np.sort(rng.choice(total - 1, n - 1, replace=False) + 1)
    return np.diff([0, *cuts, total]).astype(int).tolist()


def _union(groups) -> tuple:
    return tuple(dict.fromkeys(e for group in groups for e in group))


def _added(scene: Scene, objects: tuple[PlacedObject, ...], traces: tuple[Trace, ...]) -> Scene:
    return dataclasses.replace(scene, objects=scene.objects + objects, traces=scene.traces + traces)


def count(state: State, scene: Scene, about: int | None) -> int:
    """How many places of `scene` show `state` without the object the option is about."""
    return sum(about not in uids for uids in state.instances(scene))
