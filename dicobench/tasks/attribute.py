"""Attribute: one object's colour or surface style changes; its identity and place do not."""

from __future__ import annotations

from dicobench.editors.scene.attribute import recolour, restyle, two_changes
from dicobench.tasks import edits_for
from dicobench.kit.scene.random_scenes import SceneConfig
from dicobench.sources.procedural import cue_objects, scene_difference


def propose(rng, scene, cfg=SceneConfig()):
    def make(obj, used):
        return (recolour if rng.random() < 0.6 else restyle)(rng, scene, obj, cfg)

    return edits_for(rng, scene, cfg, make, lambda obj, used: two_changes(rng, scene, obj, cfg), cue_objects(scene, cfg))


proposal = scene_difference(propose)
