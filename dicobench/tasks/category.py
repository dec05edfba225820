"""Category: one kind of object (a mug, a key...) is in both scenes, as two different instances.

"Category" is the kind a person names, the catalogue object name: the catalogue's coarse
groups ("kitchenware") would make every scene pair share something. Four kinds present in
image a are the options; image b holds none of image a's kinds, nor any kind whose name
means nearly the same (by the shipped name embeddings: no "beer mug" beside a "mug"). A
candidate adds its kind to image b with another colour, style and size, so the options never
depend on the answer. `propose(rng, cfg)` and `commonalities(a, b)` follow
`dicobench.sources.procedural`.

Found by a glance, such a row asks only whether each option's kind shows in image b, which a
model reads off a shrunk image. In the difficulty's share of rows (`doubles`) image b holds, for
every option, a stand-in: another kind whose outline, shrunk, is much like the option's
(`dicobench.kit.scene.audit.glance_doubles`: an apple and a cardboard box, an egg and a vinyl
record), drawn as the option's other instance would be; a candidate draws its own stand-in as its
kind. At a glance every option then seems to be in both images; with zoom only the answer's is.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from dicobench.checks import Rejected, same_instance
from dicobench.editors.scene import kind_phrase
from dicobench.kit.scene.audit import glance_doubles
from dicobench.kit.scene.embeddings import shipped
from dicobench.kit.scene.model import PlacedObject, Scene
from dicobench.kit.scene.random_scenes import (
    SceneConfig,
    drawable,
    legible_look,
    object_colour,
    pick_colour,
    random_scene,
    surface_colour,
)
from dicobench.kit.scene.render import footprint
from dicobench.sources.procedural import (
    SceneCandidate,
    ScenePair,
    cue_pair,
    fits,
    names,
    new_object,
    other_scene,
    read_names,
    reserve,
    scene_commonality,
    unreadable,
)
from dicobench.tasks import NUM_EDITS, drawn

NEAR = 0.55  # cosine similarity above which two names count as the same kind (mug / cup and saucer)
MIN_SCALE_GAP = 0.25  # the two instances' sizes differ by at least this fraction


def near_kinds(kinds: frozenset[str]) -> frozenset[str]:
    table = shipped()
    return frozenset().union(*(table.near(k, NEAR) for k in kinds)) if kinds else frozenset()


def kept_apart(scene_a: Scene, version: str) -> frozenset[str]:
    """The kinds another image leaves out beside image a's: every kind that may be read as one that
    may be read as one of image a's (so that no name a person may call objects of both images by is
    left) and their near-synonyms by name."""
    return unreadable(unreadable(names(scene_a), version), version) | near_kinds(names(scene_a))


def _other_instance(rng: np.random.Generator, scene_b: Scene, obj: PlacedObject, cfg: SceneConfig,
                    uid: int) -> PlacedObject | None:
    """The same kind of object, clearly another instance: colour and size differ, and the style
    wherever the other one can be seen at that size."""
    fresh = new_object(rng, scene_b, obj.name, cfg, uid)
    sizes = [s for s in range(cfg.min_size, cfg.max_size + 1) if abs(s / obj.size - 1) >= MIN_SCALE_GAP]
    styles = [s for s in ("plain", "outline", "striped", "dotted", "two_tone") if s != obj.style]
    if not sizes:
        return None
    colour = object_colour(rng, obj.name, surface_colour(scene_b), cfg, exclude=(obj.colour,))
    accent = pick_colour(rng, surface_colour(scene_b), exclude=(colour,))
    other = dataclasses.replace(fresh, colour=colour, accent=accent, style=styles[rng.integers(len(styles))],
                                size=sizes[rng.integers(len(sizes))])
    return legible_look(other, surface_colour(scene_b), cfg)  # plain where the style would not be seen


def _stand_ins(rng: np.random.Generator, kinds: list[PlacedObject], others: list[PlacedObject], scene_b: Scene,
               apart: frozenset[str], cfg: SceneConfig) -> list[PlacedObject] | None:
    """For each option's kind, its other instance (`others`) drawn as another kind that image b may
    hold and a glance takes for it (`glance_doubles`), one kind each; None where a kind has no such
    double, or its look would not be seen on the double."""
    version, surface, uid = cfg.difficulty.catalogue, surface_colour(scene_b), scene_b.next_uid()
    taken, out = set(), []
    for i, (obj, other) in enumerate(zip(kinds, others)):
        pool = sorted(glance_doubles(obj.name, version) - apart - taken)
        if not pool:
            return None
        stand_in = dataclasses.replace(other, name=pool[rng.integers(len(pool))], uid=uid + i)
        if not drawable(stand_in, surface, cfg):
            return None
        taken.add(stand_in.name)
        out.append(stand_in)
    return out


def propose(rng: np.random.Generator, cfg: SceneConfig) -> ScenePair | None:
    doubled = drawn(rng, cfg.difficulty.doubles)
    scene_a = random_scene(rng, cfg)
    version = cfg.difficulty.catalogue
    apart = kept_apart(scene_a, version) if doubled else frozenset()  # what a stand-in may not be
    # only kinds with no near-synonym or look-alike in image a, so that sharing one shares nothing else,
    # and in the doubles' share of rows only kinds a glance may take another kind of image b for
    pool = [o for o in scene_a.objects
            if not ((shipped().near(o.name, NEAR) | unreadable(frozenset({o.name}), version) - {o.name})
                    & names(scene_a))
            and not (doubled and glance_doubles(o.name, version) <= apart)]
    if len(pool) < NUM_EDITS:
        return None
    kinds = [pool[i] for i in rng.permutation(len(pool))[:NUM_EDITS]]
    scene_b = other_scene(rng, cfg, scene_a, exclude=near_kinds(names(scene_a)))
    uid = scene_b.next_uid()
    others = [_other_instance(rng, scene_b, obj, cfg, uid) for obj in kinds]
    if None in others:
        return None
    if doubled:
        others = _stand_ins(rng, kinds, others, scene_b, apart, cfg)
        if others is None:
            return None
    placed = reserve(rng, scene_b, others, cfg)
    if placed is None:
        return None
    if doubled:  # image b holds every option's stand-in; a candidate draws its own as its kind
        for stand_in in placed:
            scene_b = scene_b.add(obj=stand_in)
        changes = [(stand_in, dataclasses.replace(stand_in, name=obj.name)) for obj, stand_in in zip(kinds, placed)]
        if not all(fits(rng, scene_b, other, cfg) for _, other in changes):
            return None
        made = [(scene_b.replace_object(other.uid, other), (footprint(stand_in), footprint(other)), other)
                for stand_in, other in changes]
    else:
        made = [(scene_b.add(obj=other), (footprint(other),), other) for other in placed]
    candidates = tuple(
        SceneCandidate(
            text=f"Both images contain {kind_phrase(obj.name)}.",
            subject=obj.name,
            scene_b=shown_b,
            dirty=dirty,
            cues=cue_pair(obj, other, f"{obj.name}: same kind, another instance"),
        )
        for obj, (shown_b, dirty, other) in zip(kinds, made)
    )
    return ScenePair(scene_a, scene_b, candidates, note=f"near kinds by {shipped().model}")


def commonalities(scene_a: Scene, scene_b: Scene, version: str = "first-release") -> frozenset[str]:
    """Kinds a person may see in both scenes: every name an object of each may be called by
    (look-alikes included). A near-synonym across the images, or a shared kind drawn as the same
    instance (that would be the instance task), makes the pair unusable."""
    if near_kinds(names(scene_a)) & names(scene_b):
        raise Rejected("near_kind_shared")
    shared = names(scene_a) & names(scene_b)
    in_b = {o.name: o for o in scene_b.objects}
    if any(o.name in shared and same_instance(o, in_b[o.name]) for o in scene_a.objects):
        raise Rejected("category_same_instance")
    return read_names(scene_a, version) & read_names(scene_b, version)


proposal = scene_commonality(propose, commonalities)
