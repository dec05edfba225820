"""Spatial relation: one object moves and its relation to a named reference object changes."""

from __future__ import annotations

from dicobench.editors.scene.move import move, two_moves
from dicobench.kit.scene.random_scenes import SceneConfig
from dicobench.sources.procedural import cue_objects, scene_difference
from dicobench.tasks import edits_for


def propose(rng, scene, cfg=SceneConfig()):
    return edits_for(rng, scene, cfg, lambda obj, used: move(rng, scene, obj, exclude_refs=used, cfg=cfg),
                     lambda obj, used: two_moves(rng, scene, obj, exclude_refs=used, cfg=cfg), cue_objects(scene, cfg))


proposal = scene_difference(propose)
