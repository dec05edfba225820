"""Difference reasoning: a visual trace (prints, a spill, a crack...) implies an unseen event.

The kind of trace is drawn first and the object second, so each row shows four different
kinds, every kind is as likely as its objects allow, and traces that fit any object
(footprints) do not crowd out those that fit few (tyre tracks need a vehicle). In the
difficulty's share of rows (`turnbacks`), four trails of shoe prints lead up to four objects in both
images and one is turned to lead away: the walk went the other way."""

from __future__ import annotations

from dicobench.editors.scene import Staged
from dicobench.editors.scene.traces import KINDS, add_trace, kinds_for, told_apart, trail_to, turn_back
from dicobench.kit.scene.random_scenes import SceneConfig
from dicobench.sources.procedural import scene_difference, shown
from dicobench.tasks import NUM_EDITS, in_share

TRIES_PER_KIND = 5


def propose(rng, scene, cfg=SceneConfig()):
    return in_share(rng, cfg.difficulty.turnbacks, lambda: trail_rows(rng, scene, cfg),
                    lambda: trace_edits(rng, scene, cfg))


def trail_rows(rng, scene, cfg) -> Staged | None:
    """The options of the difficulty's share of rows (`turnbacks`): four objects, each given a trail
    of shoe prints leading up to it in both images, each trail turned to lead away from it; None
    where four objects find no room for one. Shrunk, a trail turned back shows the same trail, so a
    reader who sees no change at a glance is left with all five letters, and only comparing the
    prints of every trail by each named look across the two images says which (or that none) turned."""
    staged, trails, used = scene, [], set()
    for idx in rng.permutation(len(scene.objects)):
        obj = scene.objects[idx]
        if obj.name in used:
            continue
        trace = trail_to(rng, staged, obj, cfg)
        if trace is None:
            continue
        staged, used = staged.add(trace=trace), used | {obj.name}
        trails.append((obj, trace))
        if len(trails) == NUM_EDITS:
            edits = [shown(staged, turn_back(staged, obj, trace, cfg)) for obj, trace in trails]
            return None if None in edits else Staged(staged, edits)
    return None


def trace_edits(rng, scene, cfg):
    """The options of every other row: four new traces of four different kinds (or two of each of two
    objects)."""
    if cfg.difficulty.distractors == "pairs":
        return _pairs(rng, scene, cfg)
    used: set[str] = set()
    edits = []
    for k in rng.permutation(len(KINDS)):
        kind = KINDS[k]
        objects = [o for o in scene.objects if o.name not in used and kind in kinds_for(o, cfg.difficulty.catalogue)]
        for idx in rng.permutation(len(objects))[:TRIES_PER_KIND]:
            edit = add_trace(rng, scene, objects[idx], kind, cfg)
            if edit is not None:
                edits.append(edit)
                used.update(edit.touched)
                break
        if len(edits) == NUM_EDITS:
            return edits
    return None


def _pairs(rng, scene, cfg):
    """Two objects with two different traces each: the kind of the first trace is drawn first, the
    object second (as above), then the object's second kind."""
    used: set[str] = set()
    edits = []
    for k in rng.permutation(len(KINDS)):
        kind = KINDS[k]
        objects = [o for o in scene.objects if o.name not in used and kind in kinds_for(o, cfg.difficulty.catalogue)
                   and any(told_apart(k.name, kind.name) for k in kinds_for(o, cfg.difficulty.catalogue))]
        for idx in rng.permutation(len(objects))[:TRIES_PER_KIND]:
            pair = _two_traces(rng, scene, objects[idx], kind, cfg)
            if pair is not None:
                edits.extend(pair)
                used.add(objects[idx].name)
                break
        if len(edits) == NUM_EDITS:
            return [edits[i] for i in rng.permutation(NUM_EDITS)]
    return None


def _two_traces(rng, scene, obj, kind, cfg):
    first = add_trace(rng, scene, obj, kind, cfg)
    if first is None:
        return None
    others = [k for k in kinds_for(obj, cfg.difficulty.catalogue) if told_apart(k.name, kind.name)]
    for i in rng.permutation(len(others)):
        second = add_trace(rng, scene, obj, others[i], cfg)
        if second is not None:
            return first, second
    return None


proposal = scene_difference(propose)
