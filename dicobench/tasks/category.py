"""Category: one kind of object (a mug, a key...) is in both scenes, as two different instances.

"Category" is the kind a person names, the catalogue object name: the catalogue's coarse
groups ("kitchenware") would make every scene pair share something. Four kinds present in
image a are the options; image b holds none of image a's kinds, nor any kind whose name
means nearly the same (by the shipped name embeddings: no "beer mug" beside a "mug"). A
candidate adds its kind to image b with another colour, style and size, so the options never
depend on the answer. `propose(rng, cfg)` and `commonalities(a, b)` follow
`dicobench.sources.procedural`.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from benchkit.scene.embeddings import shipped
from benchkit.scene.render import footprint
from benchkit.scene.model import PlacedObject, Scene
from benchkit.scene.random_scenes import SceneConfig, pick_colour, random_scene, surface_colour
from dicobench.checks import Rejected, same_instance
from dicobench.sources.procedural import SceneCandidate, ScenePair, cue_pair, names, new_object, other_scene, reserve, scene_commonality
from dicobench.editors.scene import kind_phrase
from dicobench.tasks import NUM_EDITS

NEAR = 0.55  # cosine similarity above which two names count as the same kind (mug / cup and saucer)
MIN_SCALE_GAP = 0.25  # the two instances' sizes differ by at least this fraction


def near_kinds(kinds: frozenset[str]) -> frozenset[str]:
    table = shipped()
    return frozenset().union(*(table.near(k, NEAR) for k in kinds)) if kinds else frozenset()


def _other_instance(rng: np.random.Generator, scene_b: Scene, obj: PlacedObject, cfg: SceneConfig, uid: int) -> PlacedObject | None:
    """The same kind of object, clearly another instance: colour, style and size all differ."""
    fresh = new_object(rng, scene_b, obj.name, cfg, uid)
    sizes = [s for s in range(cfg.min_size, cfg.max_size + 1) if abs(s / obj.size - 1) >= MIN_SCALE_GAP]
    styles = [s for s in ("plain", "outline", "striped", "dotted", "two_tone") if s != obj.style]
    if not sizes:
        return None
    colour = pick_colour(rng, surface_colour(scene_b), exclude=(obj.colour,))
    accent = pick_colour(rng, surface_colour(scene_b), exclude=(colour,))
    return dataclasses.replace(fresh, colour=colour, accent=accent, style=styles[rng.integers(len(styles))], size=sizes[rng.integers(len(sizes))])


def propose(rng: np.random.Generator, cfg: SceneConfig) -> ScenePair | None:
    scene_a = random_scene(rng, cfg)
    # only kinds with no near-synonym in image a, so that sharing one shares nothing else
    pool = [o for o in scene_a.objects if not shipped().near(o.name, NEAR) & names(scene_a)]
    if len(pool) < NUM_EDITS:
        return None
    kinds = [pool[i] for i in rng.permutation(len(pool))[:NUM_EDITS]]
    scene_b = other_scene(rng, cfg, scene_a, exclude=near_kinds(names(scene_a)))
    uid = scene_b.next_uid()
    others = [_other_instance(rng, scene_b, obj, cfg, uid) for obj in kinds]
    if None in others:
        return None
    placed = reserve(rng, scene_b, others, cfg)
    if placed is None:
        return None
    candidates = tuple(
        SceneCandidate(
            text=f"Both images contain {kind_phrase(obj.name)}.",
            subject=obj.name,
            scene_b=scene_b.add(obj=other),
            dirty=(footprint(other),),
            cues=cue_pair(obj, other, f"{obj.name}: same kind, another instance"),
        )
        for obj, other in zip(kinds, placed)
    )
    return ScenePair(scene_a, scene_b, candidates, note=f"near kinds by {shipped().model}")


def commonalities(scene_a: Scene, scene_b: Scene) -> frozenset[str]:
    """Kinds in both scenes. A near-synonym across the images, or a shared kind drawn as the
    same instance (that would be the instance task), makes the pair unusable."""
    shared = names(scene_a) & names(scene_b)
    if near_kinds(names(scene_a)) & names(scene_b):
        raise Rejected("near_kind_shared")
    in_b = {o.name: o for o in scene_b.objects}
    if any(o.name in shared and same_instance(o, in_b[o.name]) for o in scene_a.objects):
        raise Rejected("category_same_instance")
    return frozenset(shared)


proposal = scene_commonality(propose, commonalities)
