"""Difference reasoning: a visual trace (prints, a spill, a crack...) implies an unseen event.

The kind of trace is drawn first and the object second, so each row shows four different
kinds, every kind is as likely as its objects allow, and traces that fit any object
(footprints) do not crowd out those that fit few (tyre tracks need a vehicle)."""

from __future__ import annotations

from dicobench.editors.scene.traces import KINDS, add_trace, kinds_for
from dicobench.tasks import NUM_EDITS
from benchkit.scene.random_scenes import SceneConfig
from dicobench.sources.procedural import scene_difference

TRIES_PER_KIND = 5


def propose(rng, scene, cfg=SceneConfig()):
    used: set[str] = set()
    edits = []
    for k in rng.permutation(len(KINDS)):
        kind = KINDS[k]
        objects = [o for o in scene.objects if o.name not in used and kind in kinds_for(o)]
        for idx in rng.permutation(len(objects))[:TRIES_PER_KIND]:
            edit = add_trace(rng, scene, objects[idx], kind, cfg)
            if edit is not None:
                edits.append(edit)
                used.update(edit.touched)
                break
        if len(edits) == NUM_EDITS:
            return edits
    return None


proposal = scene_difference(propose)
