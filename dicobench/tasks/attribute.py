"""Attribute: one object's colour or surface style changes; its identity and place do not."""

from __future__ import annotations

from dicobench.scene_edits.attribute import recolour, restyle
from dicobench.tasks import collect
from dicobench.procedural import scene_difference


def propose(rng, scene):
    def make(obj, used):
        return (recolour if rng.random() < 0.6 else restyle)(rng, scene, obj)

    return collect(rng, scene, make)


proposal = scene_difference(propose)
