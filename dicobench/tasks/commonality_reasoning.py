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

from dicobench.kit.scene.model import Scene
from dicobench.kit.scene.random_scenes import SceneConfig, random_scene
from dicobench.kit.scene.render import footprint
from dicobench.sources.procedural import (
    SceneCandidate,
    ScenePair,
    cue_pair,
    names,
    new_object,
    other_scene,
    read_names,
    reserve,
    scene_commonality,
    unreadable,
)
from dicobench.sources.relations import KINDS, Relation, partners, related, relations, statement


def subject(rel: Relation) -> str:
    return f"{rel.x} / {rel.y}"


def _four_relations(rng: np.random.Generator, version: str) -> list[Relation] | None:
    """One relation per kind, sharing no object and unrelated to each other's objects (or to
    anything a person may take them for)."""
    chosen: list[Relation] = []
    table = relations(version)
    for kind in rng.permutation(KINDS):
        pool = [r for r in table if r.kind == kind]
        for idx in rng.permutation(len(pool)):
            rel = pool[idx]
            taken = {n for r in chosen for n in (r.x, r.y)}
            mine = unreadable(frozenset((rel.x, rel.y)), version)
            if (not any(related(a, b, version) for a, b in itertools.product(mine, taken))
                    and not mine & unreadable(frozenset(taken), version)):
                chosen.append(rel)
                break
        else:
            return None
    return chosen


def _partners_of(objects: frozenset[str] | set[str], version: str) -> frozenset[str]:
    """Every object related to one of `objects` or to a look-alike of one, and their look-alikes."""
    objects = unreadable(frozenset(objects), version)
    return unreadable(frozenset().union(*(partners(n, version) for n in objects)), version) if objects else frozenset()


def propose(rng: np.random.Generator, cfg: SceneConfig) -> ScenePair | None:
    version = cfg.difficulty.catalogue
    rels = _four_relations(rng, version)
    if rels is None:
        return None
    in_a = [1 + int(rng.random() < 0.5) for _ in rels]  # image (1 or 2) of each relation's x
    firsts = [r.x if i == 1 else r.y for r, i in zip(rels, in_a)]
    seconds = [r.y if i == 1 else r.x for r, i in zip(rels, in_a)]
    members = unreadable(frozenset(firsts + seconds), version)
    scene_a = random_scene(rng, cfg, exclude_names=members | _partners_of(set(seconds), version))
    placed_a = reserve(rng, scene_a, [new_object(rng, scene_a, n, cfg, scene_a.next_uid() + i)
                                      for i, n in enumerate(firsts)], cfg)
    if placed_a is None:
        return None
    for obj in placed_a:
        scene_a = scene_a.add(obj=obj)
    scene_b = other_scene(rng, cfg, scene_a, exclude=members | _partners_of(names(scene_a), version))
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


def commonalities(scene_a: Scene, scene_b: Scene, version: str = "first-release") -> frozenset[str]:
    """Every relation a person may see between an object of each image: each object may be read
    as its name or as any look-alike's, and a relation holds in either direction."""
    in_a, in_b = read_names(scene_a, version), read_names(scene_b, version)
    return frozenset(subject(rel) for rel in relations(version)
                     if (rel.x in in_a and rel.y in in_b) or (rel.y in in_a and rel.x in in_b))


proposal = scene_commonality(propose, commonalities)
