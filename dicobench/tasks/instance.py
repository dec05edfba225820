"""Instance: the very same physical object lies in both scenes, elsewhere, scaled and turned.

An instance is a glyph with its colours, surface pattern and marking (a sticker, a band,
spots). Four objects of image a get distinctive looks and each is matched in image b by a
decoy at another place, 10-30% larger or smaller and turned by 20-60 degrees (with the audited
catalogue, never past `UPRIGHT` degrees from upright, as any object of a scene). A candidate
makes its decoy image a's very object, so the option texts (which describe image a's
objects) never depend on the answer. `propose(rng, cfg)` and `commonalities(a, b)` follow
`dicobench.sources.procedural`.

The first release's decoys (`easy`) are the same objects with another marking. A careful review
disputed them: a marking is small, so "the same teal server rack with purple spots" was read as
true of its decoy with a sticker, and an E pair in which all four objects stand in both images,
in the same colours, does share something visible. With the audited catalogue a decoy is
another kind of object (never one a person may take for it, nor a near-synonym) in the very
look of image a's object, colours and marking alike, its silhouette not close to the object's:
the option's object is absent from image b unless it is the answer, the E pair shares no kind,
and finding the answer still takes telling the object's kind at cue size, not its colour or
marking alone. Markings are fitted to the body (`dicobench.kit.scene.markings`), so each reads
as what the option says.

Such objects, the biggest of a scene so that their markings show, let a glance tell the kinds
apart: it reads off a shrunk image which option's kind stands in image b. In the difficulty's
share of rows with glance doubles (`doubles`, as for category) the four objects are image a's own at
the cue scale, unmarked, and each decoy is a kind whose outline, shrunk, is much like the object's
(`dicobench.kit.scene.audit.glance_doubles`), in its look: at a glance every option seems to stand
in both images, while with zoom only the answer's kind does.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from dicobench.checks import Rejected, same_instance
from dicobench.kit.scene.audit import alike, glance_doubles
from dicobench.kit.scene.catalogue import by_name, load_catalogue, lookalikes, read_as
from dicobench.kit.scene.model import PlacedObject, Scene
from dicobench.kit.scene.palette import stands_out
from dicobench.kit.scene.random_scenes import UPRIGHT, SceneConfig, cue_sized, drawable, random_scene, surface_colour
from dicobench.kit.scene.render import footprint
from dicobench.looks import with_marking
from dicobench.sources.procedural import (
    SceneCandidate,
    ScenePair,
    cue_pair,
    fits,
    names,
    other_scene,
    read_names,
    reserve,
    scene_commonality,
    unreadable,
)
from dicobench.tasks import NUM_EDITS, drawn
from dicobench.tasks.category import kept_apart, near_kinds

STYLES = ("plain", "striped", "dotted", "two_tone")  # not outline: a hollow glyph hides its marking
MARKINGS = ("sticker", "band", "spots")
MIN_SIZE = 48  # markings on smaller glyphs are too small to tell apart
# a decoy's silhouette at cue size is at most this alike its object's (`audit.alike`; 0.59 is the
# 90th percentile of all pairs): no grey horse for the grey dog (0.64), no bone for the drumstick
DECOY_ALIKE = 0.55


def _sizes(cfg: SceneConfig, doubled: bool) -> tuple[int, int]:
    """The sizes a row's objects and their copies take: the cue scale in rows with glance doubles,
    else at least `MIN_SIZE`, where markings are told apart."""
    return (cfg.min_size, cfg.difficulty.cue_max_size or cfg.max_size) if doubled else (MIN_SIZE, cfg.max_size)


def _turn(rng: np.random.Generator, rotation: int, upright: int | None) -> int:
    """20-60 degrees either way from `rotation`, ending at most `upright` degrees from upright where
    given (the audited rows: a careful reader took a brown fish turned 50 degrees, pointing up, for
    a rocket); the first release's copies turn freely."""
    if upright is None:
        return int(rng.integers(20, 61)) * (1 if rng.random() < 0.5 else -1)
    turns = [t for t in range(-60, 61) if abs(t) >= 20 and abs(rotation + t) <= upright]
    return turns[rng.integers(len(turns))]


def _pose(rng: np.random.Generator, obj: PlacedObject, uid: int, sizes: tuple[int, int],
          upright: int | None = UPRIGHT) -> PlacedObject:
    """The same object as it would lie elsewhere: 10-30% larger or smaller (whichever stays
    within `sizes`), turned (`_turn`), lit a little differently."""
    low, high = sizes
    grow = obj.size * 1.1 <= high and (obj.size * 0.9 < low or rng.random() < 0.5)
    scale = float(rng.uniform(1.1, 1.3)) if grow else 1 / float(rng.uniform(1.1, 1.3))
    turn = _turn(rng, obj.rotation, upright)
    return dataclasses.replace(
        obj, uid=uid, size=min(high, max(low, round(obj.size * scale))), rotation=obj.rotation + turn,
        shading=round(float(rng.uniform(0.15, 0.45)), 2), shadow=round(float(rng.uniform(0.25, 0.45)), 2),
    )


def _shown(obj: PlacedObject, style: str, marking: str | None, surface, cfg: SceneConfig,
           sizes: tuple[int, int] | None = None) -> bool:
    """Whether `obj` in `style` with `marking` may be drawn at every size a pose gives it (`_pose`
    within `sizes`, those of marked objects by default), so that its copy in image b shows its look as well."""
    low, high = sizes or _sizes(cfg, doubled=False)
    return all(drawable(dataclasses.replace(obj, style=style, marking=marking, size=size), surface, cfg)
               for size in range(min(low, obj.size), max(high, obj.size) + 1))


def _marked(rng: np.random.Generator, obj: PlacedObject, surface, cfg: SceneConfig,
            markings: tuple[str, ...] = MARKINGS, there=None) -> PlacedObject | None:
    """`obj` with a drawn style and one of `markings`, each chosen among those a person sees on it
    (None when no marking can be seen on it); fitted to its body in the audited catalogue, and seen
    on the surface `there` too (image b's, where its copy and decoy go) when given."""
    obj = dataclasses.replace(obj, marking_fit=_audited(cfg))
    if there is not None and not stands_out(obj.colour, there):
        return None

    def seen(style: str, marking: str) -> bool:
        return _shown(obj, style, marking, surface, cfg) and (there is None or _shown(obj, style, marking, there, cfg))

    styles = [s for s in STYLES if any(seen(s, m) for m in markings)]
    if not styles:
        return None
    style = styles[rng.integers(len(styles))]
    marks = [m for m in markings if seen(style, m)]
    return dataclasses.replace(obj, style=style, marking=marks[rng.integers(len(marks))])


def _distinctive(rng: np.random.Generator, scene: Scene, cfg: SceneConfig, there=None) -> list[PlacedObject] | None:
    """Four objects of `scene`, restyled with a pattern and a marking where they stand (seen on the
    surface `there` as well, when given)."""
    out: list[PlacedObject] = []
    surface = surface_colour(scene)
    for idx in rng.permutation(len(scene.objects)):
        obj = scene.objects[idx]
        if obj.size < MIN_SIZE:
            continue
        marked = _marked(rng, obj, surface, cfg, there=there)
        # a marking a decoy can wear instead is needed too (the first release's decoys)
        if marked is not None and (_audited(cfg) or any(_shown(obj, marked.style, m, surface, cfg) for m in MARKINGS
                                                        if m != marked.marking)) and fits(rng, scene, marked, cfg):
            out.append(marked)
            if len(out) == NUM_EDITS:
                return out
    return None


def _cue_sized(rng: np.random.Generator, scene: Scene, banned: frozenset[str], there, cfg: SceneConfig
               ) -> list[PlacedObject] | None:
    """Four of `scene`'s objects in their looks, shrunk to the cue scale where they stand (`cue_sized`),
    each with a glance double image b may hold (none of `banned`), no look-alike in `scene` (shrunk, a
    clock may be read as the bowling ball beside it), and its look seen where it stands, shrunk (the
    scene checked it at its own size), and on image b's surface `there` at every size its copy may take."""
    sizes, version, surface, out = _sizes(cfg, doubled=True), cfg.difficulty.catalogue, surface_colour(scene), []
    for idx in rng.permutation(len(scene.objects)):
        obj = cue_sized(scene.objects[idx], cfg)
        if (glance_doubles(obj.name, version) - banned
                and not (unreadable(frozenset({obj.name}), version) - {obj.name}) & names(scene)
                and drawable(obj, surface, cfg)
                and stands_out(obj.colour, there) and _shown(obj, obj.style, obj.marking, there, cfg, sizes)):
            out.append(obj)
            if len(out) == NUM_EDITS:
                return out
    return None


def _audited(cfg: SceneConfig) -> bool:
    return cfg.difficulty.catalogue != "first-release"


def _other_kind(rng: np.random.Generator, obj: PlacedObject, uid: int, banned: frozenset[str], surface,
                cfg: SceneConfig) -> PlacedObject | None:
    """A decoy for `obj` (audited): another kind of object, of its coarse group where one can be drawn,
    in `obj`'s very look and posed as its copy would be; none of `banned`, and none whose silhouette
    is close to `obj`'s (`DECOY_ALIKE`: a grey horse is not the grey dog's decoy). None where `obj`'s colour does
    not stand out from image b's surface, as every object of a scene does: its copy there would hide."""
    if not stands_out(obj.colour, surface):
        return None
    posed = _pose(rng, obj, uid, _sizes(cfg, doubled=False))
    kinds = [e.name for e in load_catalogue(cfg.difficulty.catalogue) if e.name not in banned]
    group = by_name()[obj.name].category
    for pool in ([k for k in kinds if by_name()[k].category == group],
                 [k for k in kinds if by_name()[k].category != group]):
        for idx in rng.permutation(len(pool)):
            decoy = dataclasses.replace(posed, name=pool[idx])
            if alike(obj.name, decoy.name) <= DECOY_ALIKE and _shown(decoy, decoy.style, decoy.marking, surface, cfg):
                return decoy
    return None


def _double(rng: np.random.Generator, obj: PlacedObject, uid: int, banned: frozenset[str], surface,
            cfg: SceneConfig) -> PlacedObject | None:
    """A decoy for `obj` in a row with glance doubles: a kind a glance takes for it
    (`glance_doubles`), none of `banned`, in `obj`'s very look, posed at the cue scale as its copy
    would be; None where no such kind can be drawn so on image b's `surface`."""
    posed = _pose(rng, obj, uid, _sizes(cfg, doubled=True))
    pool = sorted(glance_doubles(obj.name, cfg.difficulty.catalogue) - banned)
    for idx in rng.permutation(len(pool)):
        decoy = dataclasses.replace(posed, name=pool[idx])
        if drawable(decoy, surface, cfg):
            return decoy
    return None


def _decoys(rng: np.random.Generator, objects: list[PlacedObject], banned: frozenset[str], scene_b: Scene,
            cfg: SceneConfig, doubled: bool = False) -> list[PlacedObject] | None:
    """One decoy per object, not yet placed: the first release's are the same objects with another
    marking; the audited ones are other kinds in the same look (`_double` in rows with glance doubles,
    else `_other_kind`), none of `banned` (the kinds kept apart from image a's, `kept_apart`), nor of
    another decoy's kind (a kind image b already holds may be one)."""
    surface_b = surface_colour(scene_b)
    version = cfg.difficulty.catalogue
    out = []
    for i, obj in enumerate(objects):
        uid = scene_b.next_uid() + i
        if _audited(cfg):
            decoy = (_double if doubled else _other_kind)(
                rng, obj, uid, banned | unreadable(frozenset(d.name for d in out), version), surface_b, cfg)
        else:
            decoy = _marked(rng, _pose(rng, obj, uid, _sizes(cfg, doubled=False), upright=None), surface_b, cfg,
                            tuple(m for m in MARKINGS if m != obj.marking))
        if decoy is None:
            return None
        out.append(decoy)
    return out


def propose(rng: np.random.Generator, cfg: SceneConfig) -> ScenePair | None:
    doubled = _audited(cfg) and drawn(rng, cfg.difficulty.doubles)
    scene_a = random_scene(rng, cfg)
    apart = kept_apart(scene_a, cfg.difficulty.catalogue) if _audited(cfg) else frozenset()
    if _audited(cfg):  # image b first: the objects must be seen on its surface too
        scene_b = other_scene(rng, cfg, scene_a, exclude=apart)
        chosen = (_cue_sized(rng, scene_a, apart, surface_colour(scene_b), cfg) if doubled
                  else _distinctive(rng, scene_a, cfg, there=surface_colour(scene_b)))
    else:
        chosen = _distinctive(rng, scene_a, cfg)
    if chosen is None:
        return None
    for obj in chosen:
        scene_a = scene_a.replace_object(obj.uid, obj)
    if not _audited(cfg):
        scene_b = other_scene(rng, cfg, scene_a)
    surface_b = surface_colour(scene_b)
    decoys = _decoys(rng, chosen, apart, scene_b, cfg, doubled)
    if decoys is None:
        return None
    decoys = reserve(rng, scene_b, decoys, cfg)
    if decoys is None:
        return None
    for decoy in decoys:
        scene_b = scene_b.add(obj=decoy)
    candidates = []
    for obj, decoy in zip(chosen, decoys):
        same = dataclasses.replace(decoy, name=obj.name, style=obj.style, marking=obj.marking, colour=obj.colour,
                                   accent=obj.accent)
        if not drawable(same, surface_b, cfg) or same.name != decoy.name and not fits(rng, scene_b, same, cfg):
            return None
        candidates.append(SceneCandidate(
            text=f"The same {with_marking(obj)} is in both images.",
            subject=obj.name,
            scene_b=scene_b.replace_object(decoy.uid, same),
            dirty=(footprint(decoy), footprint(same)),
            cues=cue_pair(obj, same, f"{obj.name}: same instance ({with_marking(obj)})"),
        ))
    return ScenePair(scene_a, scene_b, tuple(candidates))


def _same_look(a: PlacedObject, b: PlacedObject) -> bool:
    """Whether two objects of different names wear the same look (colours, pattern, marking)."""
    return ((a.colour, a.style, a.marking) == (b.colour, b.style, b.marking)
            and (a.style == "plain" and a.marking is None or a.accent == b.accent))


def commonalities(scene_a: Scene, scene_b: Scene, version: str = "first-release") -> frozenset[str]:
    """What a person may take for the very same instance in both scenes: objects of one name drawn
    as one instance, or look-alikes of each other in the same look; each counts under every name
    both may be called by. In the audited catalogue any kind a person may see in both images counts
    (a decoy there is another kind), and one drawn as another instance, or a near-synonym across
    the images, makes the pair unusable: "no visible commonality" must hold of the E pair as it reads."""
    if version != "first-release":
        if near_kinds(names(scene_a)) & names(scene_b) - names(scene_a):  # a shared kind itself counts below
            raise Rejected("near_kind_shared")
        for a in scene_a.objects:
            for b in scene_b.objects:
                if a.name == b.name and not same_instance(a, b):
                    raise Rejected("instance_kind_shared", a.name)
        return read_names(scene_a, version) & read_names(scene_b, version)
    out: set[str] = set()
    for a in scene_a.objects:
        for b in scene_b.objects:
            if a.name == b.name and same_instance(a, b) or a.name in lookalikes(b.name, version) and _same_look(a, b):
                out |= read_as(a.name, version) & read_as(b.name, version)
    return frozenset(out)


proposal = scene_commonality(propose, commonalities)
