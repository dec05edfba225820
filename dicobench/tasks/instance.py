"""Instance: the very same physical object lies in both scenes, elsewhere, scaled and turned.

An instance is a glyph with its colours, surface pattern and marking (a sticker, a band,
spots). Four objects of image a get distinctive looks and each also appears in image b,
at another place, 10-30% larger or smaller and turned by 20-60 degrees, with the same colour
but another marking: same-named distractors. A candidate makes its image-b copy carry
image a's exact look, so the option texts (which describe image a's objects) never
depend on the answer. `propose(rng, cfg)` and `commonalities(a, b)` follow
`dicobench.sources.procedural`.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from benchkit.scene.render import footprint
from benchkit.scene.model import PlacedObject, Scene
from benchkit.scene.random_scenes import SceneConfig, random_scene
from dicobench.checks import same_instance
from dicobench.sources.procedural import SceneCandidate, ScenePair, cue_pair, fits, other_scene, reserve, scene_commonality
from dicobench.looks import with_marking as look
from dicobench.tasks import NUM_EDITS

STYLES = ("plain", "striped", "dotted", "two_tone")  # not outline: a hollow glyph hides its marking
MARKINGS = ("sticker", "band", "spots")
MIN_SIZE = 48  # markings on smaller glyphs are too small to tell apart


def _pose(rng: np.random.Generator, obj: PlacedObject, uid: int, cfg: SceneConfig) -> PlacedObject:
    """The same object as it would lie elsewhere: 10-30% larger or smaller (whichever stays
    within the scene's sizes), turned by 20-60 degrees, lit a little differently."""
    grow = obj.size * 1.1 <= cfg.max_size and (obj.size * 0.9 < MIN_SIZE or rng.random() < 0.5)
    scale = float(rng.uniform(1.1, 1.3)) if grow else 1 / float(rng.uniform(1.1, 1.3))
    turn = int(rng.integers(20, 61)) * (1 if rng.random() < 0.5 else -1)
    return dataclasses.replace(
        obj, uid=uid, size=min(cfg.max_size, max(MIN_SIZE, round(obj.size * scale))), rotation=obj.rotation + turn,
        shading=round(float(rng.uniform(0.15, 0.45)), 2), shadow=round(float(rng.uniform(0.25, 0.45)), 2),
    )


def _distinctive(rng: np.random.Generator, scene: Scene, cfg: SceneConfig) -> list[PlacedObject] | None:
    """Four objects of `scene`, restyled with a pattern and a marking where they stand."""
    out: list[PlacedObject] = []
    for idx in rng.permutation(len(scene.objects)):
        obj = scene.objects[idx]
        if obj.size < MIN_SIZE:
            continue
        marked = dataclasses.replace(obj, style=STYLES[rng.integers(len(STYLES))], marking=MARKINGS[rng.integers(len(MARKINGS))])
        if fits(rng, scene, marked, cfg):
            out.append(marked)
            if len(out) == NUM_EDITS:
                return out
    return None


def propose(rng: np.random.Generator, cfg: SceneConfig) -> ScenePair | None:
    scene_a = random_scene(rng, cfg)
    marked = _distinctive(rng, scene_a, cfg)
    if marked is None:
        return None
    for obj in marked:
        scene_a = scene_a.replace_object(obj.uid, obj)
    scene_b = other_scene(rng, cfg, scene_a)
    decoys = []
    for i, obj in enumerate(marked):
        other_marks = [m for m in MARKINGS if m != obj.marking]
        decoys.append(dataclasses.replace(
            _pose(rng, obj, scene_b.next_uid() + i, cfg),
            style=STYLES[rng.integers(len(STYLES))], marking=other_marks[rng.integers(len(other_marks))],
        ))
    decoys = reserve(rng, scene_b, decoys, cfg)
    if decoys is None:
        return None
    for decoy in decoys:
        scene_b = scene_b.add(obj=decoy)
    candidates = []
    for obj, decoy in zip(marked, decoys):
        same = dataclasses.replace(decoy, style=obj.style, marking=obj.marking, colour=obj.colour, accent=obj.accent)
        candidates.append(SceneCandidate(
            text=f"The same {look(obj)} is in both images.",
            subject=obj.name,
            scene_b=scene_b.replace_object(decoy.uid, same),
            dirty=(footprint(decoy), footprint(same)),
            cues=cue_pair(obj, same, f"{obj.name}: same instance ({look(obj)})"),
        ))
    return ScenePair(scene_a, scene_b, tuple(candidates))


def commonalities(scene_a: Scene, scene_b: Scene) -> frozenset[str]:
    """Names of objects drawn as the very same instance in both scenes."""
    in_b = {o.name: o for o in scene_b.objects}
    return frozenset(o.name for o in scene_a.objects if o.name in in_b and same_instance(o, in_b[o.name]))


proposal = scene_commonality(propose, commonalities)
