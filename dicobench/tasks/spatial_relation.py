"""Spatial relation: one object moves and its relation to a named reference object changes."""

from __future__ import annotations

from dicobench.editors.scene.move import move
from dicobench.tasks import collect
from benchkit.scene.random_scenes import SceneConfig
from dicobench.sources.procedural import cue_objects, scene_difference


def propose(rng, scene, cfg=SceneConfig()):
    return collect(rng, scene, lambda obj, used: move(rng, scene, obj, exclude_refs=used, cfg=cfg), cue_objects(scene, cfg))


proposal = scene_difference(propose)
