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

from dicobench.kit.scene.render import footprint
from dicobench.kit.scene.model import PlacedObject, Scene
from dicobench.kit.scene.catalogue import lookalikes, read_as
from dicobench.kit.scene.random_scenes import SceneConfig, drawable, random_scene, surface_colour
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


def _shown(obj: PlacedObject, style: str, marking: str, surface, cfg: SceneConfig) -> bool:
    """Whether `obj` in `style` with `marking` may be drawn at every size a pose gives it (`_pose`),
    so that its copy in image b shows the marking as well."""
    sizes = range(min(MIN_SIZE, obj.size), max(cfg.max_size, obj.size) + 1)
    return all(drawable(dataclasses.replace(obj, style=style, marking=marking, size=size), surface, cfg) for size in sizes)


def _marked(rng: np.random.Generator, obj: PlacedObject, surface, cfg: SceneConfig,
            markings: tuple[str, ...] = MARKINGS) -> PlacedObject | None:
    """`obj` with a drawn style and one of `markings`, each chosen among those a person sees on it
    (None when no marking can be seen on it)."""
    styles = [s for s in STYLES if any(_shown(obj, s, m, surface, cfg) for m in markings)]
    if not styles:
        return None
    style = styles[rng.integers(len(styles))]
    marks = [m for m in markings if _shown(obj, style, m, surface, cfg)]
    return dataclasses.replace(obj, style=style, marking=marks[rng.integers(len(marks))])


def _distinctive(rng: np.random.Generator, scene: Scene, cfg: SceneConfig) -> list[PlacedObject] | None:
    """Four objects of `scene`, restyled with a pattern and a marking where they stand."""
    out: list[PlacedObject] = []
    surface = surface_colour(scene)
    for idx in rng.permutation(len(scene.objects)):
        obj = scene.objects[idx]
        if obj.size < MIN_SIZE:
            continue
        marked = _marked(rng, obj, surface, cfg)
        # a marking a decoy can wear instead is needed too
        if marked is not None and any(_shown(obj, marked.style, m, surface, cfg) for m in MARKINGS if m != marked.marking) \
                and fits(rng, scene, marked, cfg):
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
    surface_b = surface_colour(scene_b)
    decoys = []
    for i, obj in enumerate(marked):
        decoy = _marked(rng, _pose(rng, obj, scene_b.next_uid() + i, cfg), surface_b, cfg,
                        tuple(m for m in MARKINGS if m != obj.marking))
        if decoy is None:
            return None
        decoys.append(decoy)
    decoys = reserve(rng, scene_b, decoys, cfg)
    if decoys is None:
        return None
    for decoy in decoys:
        scene_b = scene_b.add(obj=decoy)
    candidates = []
    for obj, decoy in zip(marked, decoys):
        same = dataclasses.replace(decoy, style=obj.style, marking=obj.marking, colour=obj.colour, accent=obj.accent)
        if not drawable(same, surface_b, cfg):
            return None
        candidates.append(SceneCandidate(
            text=f"The same {look(obj)} is in both images.",
            subject=obj.name,
            scene_b=scene_b.replace_object(decoy.uid, same),
            dirty=(footprint(decoy), footprint(same)),
            cues=cue_pair(obj, same, f"{obj.name}: same instance ({look(obj)})"),
        ))
    return ScenePair(scene_a, scene_b, tuple(candidates))


def _same_look(a: PlacedObject, b: PlacedObject) -> bool:
    """Whether two objects of different names wear the same look (colours, pattern, marking)."""
    return (a.colour, a.style, a.marking) == (b.colour, b.style, b.marking) and (a.style == "plain" and a.marking is None
                                                                              or a.accent == b.accent)


def commonalities(scene_a: Scene, scene_b: Scene, version: str = "first-release") -> frozenset[str]:
    """What a person may take for the very same instance in both scenes: objects of one name drawn
    as one instance, or look-alikes of each other in the same look; each counts under every name
    both may be called by."""
    out: set[str] = set()
    for a in scene_a.objects:
        for b in scene_b.objects:
            if a.name == b.name and same_instance(a, b) or a.name in lookalikes(b.name, version) and _same_look(a, b):
                out |= read_as(a.name, version) & read_as(b.name, version)
    return frozenset(out)


proposal = scene_commonality(propose, commonalities)
