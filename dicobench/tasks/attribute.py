"""Attribute: one object's colour or surface style changes, or the colour of one of its parts;
its identity and place do not."""

from __future__ import annotations

from dicobench.editors.scene.attribute import has_part, part_objects, recolour, recolour_part, restyle, two_changes
from dicobench.tasks import edits_for
from dicobench.kit.scene.random_scenes import SceneConfig
from dicobench.sources.procedural import cue_objects, scene_difference


def propose(rng, scene, cfg=SceneConfig()):
    small = cue_objects(scene, cfg)
    # objects beyond the cue scale take part edits only; the difficulty's share of the others' edits are part edits too
    larger = [o for o in part_objects(scene, cfg) if o not in small]
    part_only = {o.uid for o in larger}
    share = cfg.difficulty.parts

    def part_edit(obj) -> bool:
        return obj.uid in part_only or bool(share) and has_part(obj) and rng.random() < share

    def make(obj, used):
        if part_edit(obj):
            return recolour_part(rng, scene, obj, cfg)
        return (recolour if rng.random() < 0.6 else restyle)(rng, scene, obj, cfg)

    return edits_for(rng, scene, cfg, make, lambda obj, used: two_changes(rng, scene, obj, cfg, part=part_edit(obj)),
                     small + larger)


proposal = scene_difference(propose)
