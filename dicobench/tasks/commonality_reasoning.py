"""Commonality reasoning: an object of each image forms a functional relation with the other.

Four relations from `dicobench.sources.relations`, one of each kind and with no relation between
any of their members, give the options ("The key in image 1 and the padlock in image 2
together form one whole."). Image a holds one member of every pair; a candidate adds the
other member to image b. Neither scene holds anything related to the other's objects
(checked against the relation table both ways), so exactly the candidate's pair is related.
The relation kind is recorded in the cue labels. `propose(rng, cfg)` and
`commonalities(a, b)` follow `dicobench.sources.procedural`.
"""

from __future__ import annotations

import itertools

import numpy as np

from benchkit.scene.render import footprint
from benchkit.scene.model import Scene
from benchkit.scene.random_scenes import SceneConfig, random_scene
from dicobench.sources.procedural import SceneCandidate, ScenePair, cue_pair, names, new_object, other_scene, reserve, scene_commonality
from dicobench.sources.relations import KINDS, RELATIONS, Relation, partners, related, statement


def subject(rel: Relation) -> str:
    return f"{rel.x} / {rel.y}"


def _four_relations(rng: np.random.Generator) -> list[Relation] | None:
    """One relation per kind, sharing no object and unrelated to each other's objects."""
    chosen: list[Relation] = []
    for kind in rng.permutation(KINDS):
        pool = [r for r in RELATIONS if r.kind == kind]
        for idx in rng.permutation(len(pool)):
            rel = pool[idx]
            taken = {n for r in chosen for n in (r.x, r.y)}
            if not any(related(a, b) for a, b in itertools.product((rel.x, rel.y), taken)) and not {rel.x, rel.y} & taken:
                chosen.append(rel)
                break
        else:
            return None
    return chosen


def _partners_of(objects: frozenset[str] | set[str]) -> frozenset[str]:
    return frozenset().union(*(partners(n) for n in objects)) if objects else frozenset()


def propose(rng: np.random.Generator, cfg: SceneConfig) -> ScenePair | None:
    rels = _four_relations(rng)
    if rels is None:
        return None
    in_a = [1 + int(rng.random() < 0.5) for _ in rels]  # image (1 or 2) of each relation's x
    firsts = [r.x if i == 1 else r.y for r, i in zip(rels, in_a)]
    seconds = [r.y if i == 1 else r.x for r, i in zip(rels, in_a)]
    members = frozenset(firsts + seconds)
    scene_a = random_scene(rng, cfg, exclude_names=members | _partners_of(set(seconds)))
    placed_a = reserve(rng, scene_a, [new_object(rng, scene_a, n, cfg, scene_a.next_uid() + i) for i, n in enumerate(firsts)], cfg)
    if placed_a is None:
        return None
    for obj in placed_a:
        scene_a = scene_a.add(obj=obj)
    scene_b = other_scene(rng, cfg, scene_a, exclude=members | _partners_of(names(scene_a)))
    placed_b = reserve(rng, scene_b, [new_object(rng, scene_b, n, cfg, scene_b.next_uid()) for n in seconds], cfg)
    if placed_b is None:
        return None
    candidates = []
    for rel, image_of_x, a, b in zip(rels, in_a, placed_a, placed_b):
        candidates.append(SceneCandidate(
            text=statement(rel, image_of_x),
            subject=subject(rel),
            scene_b=scene_b.add(obj=b),
            dirty=(footprint(b),),
            cues=cue_pair(a, b, f"{a.name}: {rel.kind} with the {b.name}", f"{b.name}: {rel.kind} with the {a.name}"),
        ))
    return ScenePair(scene_a, scene_b, tuple(candidates))


def commonalities(scene_a: Scene, scene_b: Scene) -> frozenset[str]:
    """Every related (a, b) pair across the images, looked up in both directions."""
    return frozenset(
        subject(rel) for a in names(scene_a) for b in names(scene_b) if (rel := related(a, b)) is not None
    )


proposal = scene_commonality(propose, commonalities)
