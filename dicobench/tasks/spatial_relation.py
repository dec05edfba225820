"""Spatial relation: one object moves and its relation to a named reference object changes."""

from __future__ import annotations

from dicobench.scene_edits.move import move
from dicobench.tasks import collect
from dicobench.procedural import scene_difference


def propose(rng, scene):
    return collect(rng, scene, lambda obj, used: move(rng, scene, obj, exclude_refs=used))


proposal = scene_difference(propose)
