"""Row assembly for the commonality track, shared by its four tasks.

A task module offers `propose(rng, cfg) -> Proposal | None` and
`commonalities(scene_a, scene_b) -> frozenset[str]`. A proposal is two different scenes
that share nothing the task asks about (the E pair) plus four candidates, each a version of
image b in which exactly that candidate is shared. The option texts come from the
candidates, so they exist before the correct letter is used, and all four are verified
(what is shared is recomputed from the scenes, the cue objects are checked on the pixels)
whatever the letter, so that no rejection depends on which option is the answer.
"""

from __future__ import annotations

import dataclasses
import importlib
from dataclasses import dataclass

import numpy as np

from benchkit.catalogue import by_name
from benchkit.imageio import decode, encode_png
from benchkit.render import Box, background, footprint, render, render_edit
from benchkit.scene import PlacedObject, Scene
from benchkit.scenegen import SceneConfig, occupied_boxes, place, random_object, random_scene, surface_colour
from benchkit.textures import TINTS
from dicobench.checks import Rejected, check_cues_drawn, check_options
from dicobench.edits import Cue
from dicobench.rows import assemble, cue_dicts
from dicobench.schema import LETTERS, NONE_OPTIONS

TRACK = "commonality"


@dataclass(frozen=True)
class Candidate:
    text: str  # the option
    subject: str  # what `commonalities` reports when this candidate is the shared thing
    scene_b: Scene  # image b with this candidate shared
    dirty: tuple[Box, ...]  # where this image b differs from the E pair's
    cues: tuple[Cue, ...]  # the shared object(s): one box per object per image


@dataclass(frozen=True)
class Proposal:
    scene_a: Scene
    scene_b: Scene  # the E pair's image b: nothing shared
    candidates: tuple[Candidate, ...]
    note: str = ""  # extra provenance for the row's `generator`


def names(scene: Scene) -> frozenset[str]:
    return frozenset(o.name for o in scene.objects)


def other_scene(rng: np.random.Generator, cfg: SceneConfig, first: Scene, exclude: frozenset[str] = frozenset()) -> Scene:
    """A scene unlike `first`: another surface, another tint and none of its objects' names."""
    kinds = tuple(k for k in cfg.backgrounds if k != first.background) or cfg.backgrounds
    scene = random_scene(rng, dataclasses.replace(cfg, backgrounds=kinds), exclude_names=exclude | names(first))
    tints = [t for t in TINTS if t != first.tint]
    return dataclasses.replace(scene, tint=tints[rng.integers(len(tints))])


def new_object(rng: np.random.Generator, scene: Scene, name: str, cfg: SceneConfig, uid: int | None = None) -> PlacedObject:
    """A randomly styled `name` for `scene` (not yet placed)."""
    uid = scene.next_uid() if uid is None else uid
    return random_object(rng, uid, by_name()[name], surface_colour(scene), cfg)


def reserve(rng: np.random.Generator, scene: Scene, templates: list[PlacedObject], cfg: SceneConfig) -> list[PlacedObject] | None:
    """Free, mutually apart spots in `scene` for each template (the scene itself is unchanged)."""
    occupied, out = occupied_boxes(scene), []
    for template in templates:
        obj = place(rng, scene, template, occupied, cfg)
        if obj is None:
            return None
        occupied.append(footprint(obj))
        out.append(obj)
    return out


def fits(rng: np.random.Generator, scene: Scene, obj: PlacedObject, cfg: SceneConfig) -> bool:
    """Whether `obj`, redrawn where it stands, still keeps clear of the others and the edges."""
    return place(rng, scene, obj, occupied_boxes(scene, skip=obj.uid), cfg, tries=1, near=(obj.cx, obj.cy, 0)) is not None


def cue_pair(obj_a: PlacedObject, obj_b: PlacedObject, label_a: str, label_b: str | None = None) -> tuple[Cue, Cue]:
    return Cue(0, footprint(obj_a), label_a), Cue(1, footprint(obj_b), label_b or label_a)


def commonality_row(task: str, seed: int, letter: str, opts) -> tuple[dict, int]:
    """One checked row of a commonality task (opts: `dicobench.generate.BuildOptions`)."""
    module = importlib.import_module(f"dicobench.tasks.{task}")
    rng = np.random.default_rng(seed)
    prop = module.propose(rng, opts.scene)
    if prop is None:
        raise Rejected("too_few_candidates")
    none_option = NONE_OPTIONS[TRACK]
    options = [c.text for c in prop.candidates] + [none_option]
    check_options(options, [c.subject for c in prop.candidates], none_option)
    if module.commonalities(prop.scene_a, prop.scene_b):
        raise Rejected("none_pair_shares")
    for cand in prop.candidates:
        if module.commonalities(prop.scene_a, cand.scene_b) != {cand.subject}:
            raise Rejected("not_exactly_one_shared", cand.subject)
    pixels_a, pixels_b = render(prop.scene_a), render(prop.scene_b)
    bare = (background(prop.scene_a), background(prop.scene_b))
    variants = []
    for cand in prop.candidates:
        pixels = render_edit(pixels_b, cand.scene_b, list(cand.dirty))
        check_cues_drawn((pixels_a, pixels), bare, cue_dicts(cand.cues))
        variants.append(pixels)
    if letter == "E":
        chosen, cues = pixels_b, []
    else:
        k = LETTERS.index(letter)
        chosen, cues = variants[k], cue_dicts(prop.candidates[k].cues)
    png_a, png_b = encode_png(pixels_a, opts.compress_level), encode_png(chosen, opts.compress_level)
    check_cues_drawn((decode(png_a, "image_a"), decode(png_b, "image_b")), bare, cues)  # the bytes as written
    made_by = f"{task} commonalities" + (f"; {prop.note}" if prop.note else "")
    # the images are different scenes: nothing is "changed"
    row = assemble(task, seed, png_a, png_b, options, letter, cues, 0.0, made_by)
    long_side = max(prop.scene_a.width, prop.scene_a.height, prop.scene_b.width, prop.scene_b.height)
    return row, long_side
