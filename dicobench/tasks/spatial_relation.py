"""Spatial relation: one object moves and its relation to a named reference object changes, or,
in the difficulty's share of rows (`flips`), an object is flipped left to right where it stands."""

from __future__ import annotations

from dicobench.editors.scene.flip import flip, flippable
from dicobench.editors.scene.move import move, two_moves
from dicobench.kit.scene.random_scenes import SceneConfig
from dicobench.sources.procedural import cue_objects, scene_difference, shown
from dicobench.tasks import collect, edits_for, in_share


def propose(rng, scene, cfg=SceneConfig()):
    return in_share(rng, cfg.difficulty.flips, lambda: flip_rows(rng, scene, cfg), lambda: move_edits(rng, scene, cfg))


def move_edits(rng, scene, cfg):
    """The options of every other row: moves of objects up to the cue scale."""
    return edits_for(rng, scene, cfg, lambda obj, used: move(rng, scene, obj, exclude_refs=used, cfg=cfg),
                     lambda obj, used: two_moves(rng, scene, obj, exclude_refs=used, cfg=cfg), cue_objects(scene, cfg))


def flip_rows(rng, scene, cfg):
    """The options of the difficulty's share of rows (`flips`): four objects, each flipped where it
    stands; None where the scene has too few objects a flip shows on. Shrunk, a flip shows nothing,
    so a reader who sees no change at a glance is left with all five letters, and only comparing
    every object of each named look across the two images says which (or that none) flipped."""
    # up to twice the cue scale, as part edits: only the outline's direction changes
    candidates = [o for o in cue_objects(scene, cfg, scale=2) if flippable(o)]
    return collect(rng, scene, lambda obj, used: shown(scene, flip(scene, obj, cfg)), candidates)


proposal = scene_difference(propose)
