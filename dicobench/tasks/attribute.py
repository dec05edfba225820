"""Attribute: one object's colour or surface style changes, or one of its parts (its colour, or
which way its stripes run); its identity and place do not."""

from __future__ import annotations

from dicobench.editors.scene import Staged
from dicobench.editors.scene.attribute import (
    has_part,
    part_objects,
    recolour,
    recolour_part,
    restyle,
    turn_stripes,
    turnable,
    two_changes,
    with_stripes,
)
from dicobench.kit.scene.random_scenes import SceneConfig
from dicobench.sources.procedural import cue_objects, scene_difference, shown
from dicobench.tasks import NUM_EDITS, collect, edits_for, in_share

# names with a striped object a turn may take that a turn row draws: the four options' and two more,
# so that the options are not every striped object of that size in the scene
STRIPED_NAMES = NUM_EDITS + 2


def propose(rng, scene, cfg=SceneConfig()):
    return in_share(rng, cfg.difficulty.turns, lambda: stripe_rows(rng, scene, cfg),
                    lambda: object_edits(rng, scene, cfg))


def stripe_rows(rng, scene, cfg) -> Staged | None:
    """The options of the difficulty's share of rows (`turns`): four striped objects, each with its
    stripes turned the other way, where the scene has four objects a turn may take once some are
    drawn striped in both images (`with_stripes`); None where it has not. Shrunk, a turn shows
    nothing, so a reader who sees no change at a glance is left with all five letters (the letters
    are balanced), and only comparing the stripes of every object of each named look across the two
    images says which (or that none) turned."""
    staged = with_stripes(rng, scene, cfg, STRIPED_NAMES)
    striped = [o for o in part_objects(staged, cfg) if turnable(o)]
    edits = collect(rng, staged, lambda obj, used: shown(staged, turn_stripes(staged, obj, cfg)), striped)
    return None if edits is None else Staged(staged, edits)


def object_edits(rng, scene, cfg):
    """The options of every other row: recolours and restyles of whole objects up to the cue scale,
    and, in the difficulty's share of rows (`parts`), the colour of one part of a patterned object."""
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
        edit = (recolour_part(rng, scene, obj, cfg) if part
                else (recolour if rng.random() < 0.6 else restyle)(rng, scene, obj, cfg))
        return made(edit, part)

    def make_pair(obj, used):
        part = part_edit(obj)
        return None if part is None else made(two_changes(rng, scene, obj, cfg, part=part), part)

    return edits_for(rng, scene, cfg, make, make_pair, small + larger)


proposal = scene_difference(propose)
