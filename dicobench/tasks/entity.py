"""Entity: an object is replaced by one of another category, disappears, or a new one appears."""

from __future__ import annotations

from dicobench.editors.scene import entity
from dicobench.kit.scene.random_scenes import SceneConfig
from dicobench.sources.procedural import cue_objects, scene_difference
from dicobench.tasks import edits_for


def propose(rng, scene, cfg=SceneConfig()):
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
