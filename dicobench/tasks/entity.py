"""Entity: an object is replaced by one of another category, disappears, or a new one appears; in
the difficulty's share of rows (`swaps`), replaced by one that looks much like it at a glance."""

from __future__ import annotations

from dicobench.editors.scene import entity
from dicobench.kit.scene.random_scenes import SceneConfig
from dicobench.sources.procedural import cue_objects, scene_difference
from dicobench.tasks import edits_for, in_share


def propose(rng, scene, cfg=SceneConfig()):
    return in_share(rng, cfg.difficulty.swaps, lambda: swap_rows(rng, scene, cfg),
                    lambda: entity_edits(rng, scene, cfg))


def swap_rows(rng, scene, cfg):
    """The options of the difficulty's share of rows (`swaps`): objects replaced by one much like
    them at a glance, in their colour, or by one drawn as any other, two of each (two objects with one
    of each, or with `objects` distractors four objects), in a seeded order; None where the scene has
    too few objects such a replacement fits. Shrunk, the first kind shows nothing, so a reader who
    sees no change is left with those two and E."""
    candidates = cue_objects(scene, cfg)

    def make(obj, used):  # `used` holds the names taken: two of either kind (each touches two names)
        alike = len(used) < 4
        return (entity.replace_alike if alike else entity.replace)(rng, scene, obj, taken=used, cfg=cfg)

    def make_pair(obj, used):
        return entity.alike_and_unlike(rng, scene, obj, used, cfg)

    return edits_for(rng, scene, cfg, make, make_pair, candidates, shuffled=True)


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
