"""Entity: an object is replaced by one of another category, disappears, or a new one appears; in
the difficulty's share of rows (`swaps`), replaced by one that looks much like it at a glance."""

from __future__ import annotations

from dicobench.editors.scene import entity
from dicobench.kit.scene.random_scenes import SceneConfig
from dicobench.sources.procedural import cue_objects, scene_difference, shown
from dicobench.tasks import collect, edits_for, in_share


def propose(rng, scene, cfg=SceneConfig()):
    return in_share(rng, cfg.difficulty.swaps, lambda: swap_rows(rng, scene, cfg),
                    lambda: entity_edits(rng, scene, cfg))


def swap_rows(rng, scene, cfg):
    """The options of the difficulty's share of rows (`swaps`): four objects, each replaced, in place
    and in its colour, by one much like it at a glance; None where the scene has too few objects
    such a replacement fits. Shrunk, such a replacement shows nothing, so a reader who sees no
    change at a glance is left with all five letters."""
    def make(obj, used):
        return shown(scene, entity.replace_alike(rng, scene, obj, taken=used, cfg=cfg))

    return collect(rng, scene, make, cue_objects(scene, cfg))


def entity_edits(rng, scene, cfg):
    """The options of every other row: replacements, removals and additions."""
    # every kind of entity change appears among a row's options
    ops = list(rng.permutation(["replace", "remove", "add", ("replace", "remove", "add")[rng.integers(3)]]))

    def make(obj, used):
        op = ops[0]
        if op == "replace":
            edit = entity.replace(rng, scene, obj, taken=used, cfg=cfg)
        elif op == "remove":
            edit = entity.remove(rng, scene, obj, taken=used, cfg=cfg)
        else:
            edit = entity.add(rng, scene, taken=used | {obj.name}, cfg=cfg)
        if edit is not None:
            ops.pop(0)
        return edit

    pairs = ([entity.PAIRS[i] for i in rng.permutation(len(entity.PAIRS))[:2]]
             if cfg.difficulty.distractors == "pairs" else [])

    def make_pair(obj, used):
        made = entity.two_changes(rng, scene, obj, pairs[0], taken=used, cfg=cfg)
        if made is not None:
            pairs.pop(0)
        return made

    return edits_for(rng, scene, cfg, make, make_pair, cue_objects(scene, cfg))


proposal = scene_difference(propose)
