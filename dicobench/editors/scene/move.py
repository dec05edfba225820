"""Spatial edits: an object moves so that its relation to a named reference object changes."""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

import numpy as np

from dicobench.editors.scene import Cue, SceneEdit, capitalised, indefinite, kind_phrase, pronouns
from dicobench.editors.scene.decoys import look_key, place_twin, twin
from dicobench.kit.scene.geometry import Box, centre
from dicobench.kit.scene.model import PlacedObject, Scene
from dicobench.kit.scene.random_scenes import SceneConfig, occupied_boxes, place
from dicobench.kit.scene.render import footprint
from dicobench.looks import called, look

RELATIONS = ("left of", "right of", "above", "below")
NEAR = 380  # a reference farther than this is not a meaningful landmark


def relation(mover: Box, ref: Box, clear: float = 2.0) -> str | None:
    """The mover's relation to the reference, or None when it is not clear-cut
    (the dominant axis must exceed the other by `clear`, so a person would agree)."""
    (mx, my), (rx, ry) = centre(mover), centre(ref)
    dx, dy = mx - rx, my - ry
    if abs(dx) >= clear * abs(dy) and abs(dx) > (mover[2] + ref[2]) / 2:
        return "right of" if dx > 0 else "left of"
    if abs(dy) >= clear * abs(dx) and abs(dy) > (mover[3] + ref[3]) / 2:
        return "below" if dy > 0 else "above"
    return None


def _centre(box: Box) -> tuple[float, float]:
    return box[0] + box[2] / 2, box[1] + box[3] / 2


def landmark_reach(cfg: SceneConfig) -> int:
    """How far (centre to centre, px) a move's landmark may stand from the mover before the move.
    Where options call objects as one of several ("moved from below a blender"), the landmark is
    one of the mover's near neighbours, as near as where the move lands (`move_reach`): a blender
    300 px off, with other objects between, is not what a person reads as the one it stood below."""
    return min(NEAR, cfg.difficulty.move_reach) if indefinite(cfg) else NEAR


def landmarks(scene: Scene, obj: PlacedObject, exclude_refs: frozenset[str] = frozenset(),
              reach: int = NEAR) -> list[tuple[PlacedObject, Box]]:
    """Objects within `reach` of `obj` to which it stands in a clear relation (possible references of a move)."""
    a = footprint(obj)
    ca = _centre(a)
    refs = []
    for other in scene.objects:
        if other.uid == obj.uid or other.name in exclude_refs:
            continue
        box = footprint(other)
        if math.dist(ca, _centre(box)) <= reach and relation(a, box):
            refs.append((other, box))
    return refs


def move(rng: np.random.Generator, scene: Scene, obj: PlacedObject, exclude_refs: frozenset[str] = frozenset(),
         cfg: SceneConfig = SceneConfig()) -> SceneEdit | None:
    """Move `obj` from one clear relation to a nearby reference into another clear relation."""
    refs = landmarks(scene, obj, exclude_refs, landmark_reach(cfg))
    if not refs:
        return None
    ref, rbox = refs[rng.integers(len(refs))]
    return move_beside(rng, scene, obj, ref, rbox, cfg)


def move_beside(rng: np.random.Generator, scene: Scene, obj: PlacedObject, ref: PlacedObject, rbox: Box,
                cfg: SceneConfig = SceneConfig(), not_into: tuple[str, ...] = ()) -> SceneEdit | None:
    """Move `obj` into another clear relation to `ref` (none of `not_into`)."""
    a = footprint(obj)
    ca = _centre(a)
    before = relation(a, rbox)
    occupied = occupied_boxes(scene, skip=obj.uid)
    cx, cy = _centre(rbox)
    for _ in range(8):
        cand = place(rng, scene, obj, occupied, cfg, tries=25, near=(int(cx), int(cy), cfg.difficulty.move_reach))
        if cand is None:
            continue
        b = footprint(cand)
        after = relation(b, rbox)
        moved = math.dist(ca, _centre(b))
        if after and after != before and after not in not_into and moved >= max(a[2], a[3]):
            if indefinite(cfg):
                it = pronouns(ref.name)["them"]
                text = capitalised(f"{kind_phrase(look(obj))} moved from {before} {kind_phrase(look(ref))} "
                                   f"to {after} {it}.")
            else:
                mover, landmark = called(obj, scene), called(ref, scene)
                text = f"The {mover} moved from {before} the {landmark} to {after} the {landmark}."
            return SceneEdit(
                scene=scene.replace_object(obj.uid, dataclasses.replace(obj, cx=cand.cx, cy=cand.cy)),
                text=text,
                subject=obj.name,
                dirty=(a, b),
                cues=(Cue(0, a, f"{obj.name} ({before} {ref.name})"), Cue(1, b, f"{obj.name} ({after} {ref.name})")),
                touched=(obj.name, ref.name),
                kind="move",
                about=obj.uid,
                states=(Beside(obj, ref, before), Beside(obj, ref, after)),
            )
    return None


@dataclass(frozen=True)
class Beside:
    """An object of the mover's look in `relation` to a nearby object of the reference's look (a
    spatial option's state: `dicobench.editors.scene.decoys`)."""

    mover: PlacedObject
    ref: PlacedObject
    relation: str
    reach: int = NEAR  # a decoy reference this near the moved object could be read as its landmark

    @property
    def key(self) -> tuple:
        return ("beside", look_key(self.mover), look_key(self.ref), self.relation)

    @property
    def names(self) -> frozenset[str]:
        return frozenset({self.mover.name, self.ref.name})

    def instances(self, scene: Scene) -> list[frozenset[int]]:
        movers = [o for o in scene.objects if look_key(o) == look_key(self.mover)]
        refs = [o for o in scene.objects if look_key(o) == look_key(self.ref)]
        return [frozenset({m.uid, r.uid}) for m in movers for r in refs
                if m.uid != r.uid and _in_relation(footprint(m), footprint(r), self.relation)]

    def decoy(self, rng, scene, cfg, blocked, uid):
        """A twin of the reference at a free spot and a twin of the mover beside it in the relation."""
        for _ in range(6):
            ref = place_twin(rng, scene, self.ref, cfg, blocked, uid)
            if ref is None:
                return None
            beside = scene.add(obj=ref)
            rbox, mbox = footprint(ref), footprint(twin(rng, self.mover, uid + 1))
            for _ in range(12):
                dx, dy = _offset(rng, self.relation, rbox, mbox, cfg.difficulty.move_reach)
                near = (int(centre(rbox)[0] + dx), int(centre(rbox)[1] + dy), 3)
                mover = place_twin(rng, beside, self.mover, cfg, blocked, uid + 1, near=near, tries=1)
                if mover is not None and _in_relation(footprint(mover), rbox, self.relation):
                    return (ref, mover), ()
        return None


def _in_relation(mover: Box, ref: Box, which: str) -> bool:
    return math.dist(_centre(mover), _centre(ref)) <= NEAR and relation(mover, ref) == which


def _offset(rng: np.random.Generator, which: str, ref: Box, mover: Box, reach: int) -> tuple[float, float]:
    """A seeded offset from the reference's centre that puts the mover clearly `which` of it, within `reach`."""
    horizontal = which in ("left of", "right of")
    least = ((ref[2] + mover[2]) if horizontal else (ref[3] + mover[3])) / 2 + 10
    along = rng.uniform(least, max(least + 1, reach))
    across = rng.uniform(-along / 3, along / 3)
    sign = -1 if which in ("left of", "above") else 1
    return (sign * along, across) if horizontal else (across, sign * along)


def two_moves(rng: np.random.Generator, scene: Scene, obj: PlacedObject, exclude_refs: frozenset[str] = frozenset(),
              cfg: SceneConfig = SceneConfig()) -> tuple[SceneEdit, SceneEdit] | None:
    """Two moves of `obj` that a person tells apart: into two different relations to one reference."""
    refs = landmarks(scene, obj, exclude_refs, landmark_reach(cfg))
    if not refs:
        return None
    ref, rbox = refs[rng.integers(len(refs))]
    first = move_beside(rng, scene, obj, ref, rbox, cfg)
    if first is None:
        return None
    after = relation(footprint(first.scene.object(obj.uid)), rbox)
    second = move_beside(rng, scene, obj, ref, rbox, cfg, not_into=(after,))
    return (first, second) if second else None
