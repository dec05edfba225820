"""Attribute: one object's colour or surface style changes, or the colour of one of its parts;
its identity and place do not."""

from __future__ import annotations

from dicobench.editors.scene.attribute import change_part, has_part, part_objects, recolour, restyle, two_changes
from dicobench.kit.scene.random_scenes import SceneConfig
from dicobench.sources.procedural import cue_objects, scene_difference
from dicobench.tasks import edits_for


def propose(rng, scene, cfg=SceneConfig()):
    small = cue_objects(scene, cfg)
    # objects beyond the cue scale take part edits only (only the part changes)
    larger = [o for o in part_objects(scene, cfg) if o not in small]
    part_only = {o.uid for o in larger}
    # the difficulty's share of rows change the first object they take in one of its parts: objects
    # without a part are passed over until one with a part comes (patterned objects are few)
    share = cfg.difficulty.parts
    owed = [bool(share) and rng.random() < share and any(has_part(o) for o in small + larger)]

    def part_edit(obj) -> bool | None:
        """Whether `obj` takes a part edit; None where it is passed over."""
        if owed[0] and not has_part(obj):
            return None
        return owed[0] or obj.uid in part_only

    def made(edits, part: bool):
        if edits and part:
            owed[0] = False
        return edits

    def make(obj, used):
        part = part_edit(obj)
        if part is None:
            return None
        edit = (change_part(rng, scene, obj, cfg) if part
                else (recolour if rng.random() < 0.6 else restyle)(rng, scene, obj, cfg))
        return made(edit, part)

    def make_pair(obj, used):
        part = part_edit(obj)
        return None if part is None else made(two_changes(rng, scene, obj, cfg, part=part), part)

    return edits_for(rng, scene, cfg, make, make_pair, small + larger)


proposal = scene_difference(propose)
