"""Proposals from the procedural scene engine, for the tasks of both tracks.

A difference task offers `propose(rng, scene, cfg) -> list[SceneEdit] | Staged | None`: four edits
of one base scene on four different objects, the options A-D (`Staged`: of the base with what the
task drew into it first). A commonality task offers
`propose(rng, cfg) -> ScenePair | None` and `commonalities(scene_a, scene_b) -> frozenset[str]`:
two different scenes that share nothing the task asks about (the E pair) plus four candidates,
each a version of image b in which exactly that candidate is shared; what is shared is
recomputed from the scenes to check every pair. `scene_difference` and `scene_commonality`
turn those into the task's registered proposer (`dicobench.tasks.registry`), which renders the
images into a `dicobench.rows.Proposal`.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from functools import partial

import numpy as np

from dicobench import descriptors
from dicobench.checks import Rejected, check_difference_pixels
from dicobench.editors.scene import Cue, SceneEdit, Staged
from dicobench.editors.scene.decoys import count, with_decoys
from dicobench.kit.scene.catalogue import by_name, read_as
from dicobench.kit.scene.difficulty import EASY
from dicobench.kit.scene.geometry import Box, bounding, intersect
from dicobench.kit.scene.model import PlacedObject, Scene
from dicobench.kit.scene.random_scenes import (
    SceneConfig,
    cue_objects,
    occupied_boxes,
    place,
    random_object,
    random_scene,
    surface_colour,
    with_same_kind,
)
from dicobench.kit.scene.render import footprint, render, render_edit
from dicobench.kit.scene.textures import TINTS
from dicobench.rows import AgainstImageA, Candidate, CuesDrawn, Proposal, checked_options, cue_dicts, generator
from dicobench.schema import LETTERS
from dicobench.shots import SceneShots

ENGINE = "procedural scene engine"


def scene_difference(propose):
    """The proposer of a difference task whose scene edits `propose(rng, scene, cfg)` makes."""

    def proposer(task, seed: int, opts, inputs=None) -> Proposal:
        base, edits, decoy_boxes = edited_scenes(propose, np.random.default_rng(seed), opts.scene)
        check_edits_first(task, base, edits)
        pixels_a = render(base)
        candidates = tuple(
            Candidate(partial(render_edit, pixels_a, e.scene, list(e.dirty)), e.text, e.subject, cue_dicts(e.cues),
                      bounding(e.dirty))
            for e in edits
        )

        def describe(letter: str, cues: list[dict]) -> dict:
            if letter == "E":  # the E pair changes nothing: what every option's text would have to overcome
                return (descriptors.decoys([decoy_counts(base, e) for e in edits]) if opts.scene.difficulty.decoys
                        else {})
            edit = edits[LETTERS.index(letter)]
            return {**descriptors.clutter(base, edit.subject), "edit": edit.kind,
                    **(descriptors.decoys([decoy_counts(base, edit)]) if opts.scene.difficulty.decoys else {})}

        return Proposal(pixels_a, pixels_a, candidates, AgainstImageA(decoy_boxes), f"procedural:{seed}",
                        generator(ENGINE, f"{task.name} edits" + difficulty_note(opts.scene)),
                        max(base.width, base.height), describe,
                        SceneShots(base, base, tuple(e.scene for e in edits)))

    return proposer


def edited_scenes(propose, rng: np.random.Generator,
                  cfg: SceneConfig) -> tuple[Scene, list[SceneEdit], tuple[Box, ...]]:
    """The scenes of a difference row, before anything is drawn: the base scene with the difficulty's
    same-kind objects, the task's four edits of it, and the decoys added to all of them (with their
    boxes); `Rejected` where the task finds no four edits or the decoys no room."""
    base = random_scene(rng, cfg)
    base = with_same_kind(rng, base, cfg, cue_objects(base, cfg))
    edits = propose(rng, base, cfg)
    if edits is None:
        raise Rejected("too_few_edits")
    if isinstance(edits, Staged):
        base, edits = edits.scene, edits.edits
    decoyed = with_decoys(rng, base, edits, cfg)
    if decoyed is None:
        raise Rejected("no_room_for_decoys")
    return decoyed


def decoy_counts(base: Scene, edit: SceneEdit) -> tuple[int, int]:
    """How many places, besides the object the option is about, show what the option says was
    there before (in image 1) and is there after (in image 2)."""
    before, after = edit.states
    return count(before, base, edit.about), count(after, edit.scene, edit.about)


def check_edits_first(task, base: Scene, edits) -> None:
    """The checks `dicobench.rows.make_row` starts with (the options, then each candidate's
    pixels), in its order, run on the edits' boxes alone, which render by themselves to the very
    pixels the whole scene has there: a proposal rejected there (most often `change_not_visible`)
    is rejected for the same reason before its whole scene is drawn. `make_row` runs them all
    again on the whole images."""
    checked_options(task, edits)
    for e in edits:
        check_edit(base, e)


def check_edit(base: Scene, e: SceneEdit) -> None:
    """`make_row`'s pixel checks of one edit, on its boxes alone; `Rejected` where one fails."""
    x, y, w, h = bounding(e.dirty)
    x0, y0 = max(x, 0), max(y, 0)
    box = (x0, y0, max(min(x + w, base.width) - x0, 0), max(min(y + h, base.height) - y0, 0))
    before = render(base, box)
    after = before.copy()
    for d in e.dirty:
        met = intersect(d, box)
        if met is not None:
            dx, dy, dw, dh = met
            after[dy - y0 : dy - y0 + dh, dx - x0 : dx - x0 + dw] = render(e.scene, met)
    check_difference_pixels(before, after, False, cue_dicts(e.cues), within=box, size=(base.height, base.width))


def shown(base: Scene, edit: SceneEdit | None) -> SceneEdit | None:
    """`edit` where it passes the row's pixel checks, else None: rows whose every option is a change
    a shrunk pair hides (turns, flips, look-alike replacements, turned-back trails) pass over an
    object whose change shows too few pixels, rather than losing the whole row to `change_not_visible`."""
    if edit is None:
        return None
    try:
        check_edit(base, edit)
    except Rejected:
        return None
    return edit


@dataclass(frozen=True)
class SceneCandidate:
    text: str  # the option
    subject: str  # what `commonalities` reports when this candidate is the shared thing
    scene_b: Scene  # image b with this candidate shared
    dirty: tuple[Box, ...]  # where this image b differs from the E pair's
    cues: tuple[Cue, ...]  # the shared object(s): one box per object per image


@dataclass(frozen=True)
class ScenePair:
    scene_a: Scene
    scene_b: Scene  # the E pair's image b: nothing shared
    candidates: tuple[SceneCandidate, ...]
    note: str = ""  # extra provenance for the row's `generator`


def scene_commonality(propose, commonalities):
    """The proposer of a commonality task from its `propose(rng, cfg)` and `commonalities`."""

    def proposer(task, seed: int, opts, inputs=None) -> Proposal:
        rng = np.random.default_rng(seed)
        cfg = opts.scene
        pair = propose(rng, cfg)
        if pair is None:
            raise Rejected("too_few_candidates")

        def consistent() -> None:
            # what a person may read as shared (look-alike names included): nothing in the E pair, and of
            # the options exactly the candidate's own in each candidate pair
            version = cfg.difficulty.catalogue
            subjects = {c.subject for c in pair.candidates}
            if commonalities(pair.scene_a, pair.scene_b, version):
                raise Rejected("none_pair_shares")
            for cand in pair.candidates:
                if commonalities(pair.scene_a, cand.scene_b, version) & subjects != {cand.subject}:
                    raise Rejected("not_exactly_one_shared", cand.subject)

        checked_options(task, pair.candidates)
        consistent()  # `make_row`'s first checks, in its order, before the scenes are drawn: most rejections are here
        pixels_a, pixels_b = render(pair.scene_a), render(pair.scene_b)
        candidates = tuple(
            Candidate(partial(render_edit, pixels_b, c.scene_b, list(c.dirty)), c.text, c.subject, cue_dicts(c.cues))
            for c in pair.candidates
        )
        check = CuesDrawn((pair.scene_a, pair.scene_b), consistent)
        made_by = f"{task.name} commonalities" + (f"; {pair.note}" if pair.note else "") + difficulty_note(cfg)
        long_side = max(pair.scene_a.width, pair.scene_a.height, pair.scene_b.width, pair.scene_b.height)

        def describe(letter: str, cues: list[dict]) -> dict:
            if letter == "E":
                return {}
            scene_b = pair.candidates[LETTERS.index(letter)].scene_b
            return descriptors.commonality((pair.scene_a, scene_b), cues, footprint)

        return Proposal(pixels_a, pixels_b, candidates, check, f"procedural:{seed}", generator(ENGINE, made_by),
                        long_side, describe,
                        SceneShots(pair.scene_a, pair.scene_b, tuple(c.scene_b for c in pair.candidates)))

    return proposer


def difficulty_note(cfg: SceneConfig) -> str:
    """What the `generator` column adds for a build harder than the first release's world (an
    `easy` row reads as it always did)."""
    return "" if cfg.difficulty == EASY else f"; difficulty {cfg.difficulty.describe()}"


# ---- scene helpers the commonality tasks share ---------------------------------------------

def names(scene: Scene) -> frozenset[str]:
    return frozenset(o.name for o in scene.objects)


def read_names(scene: Scene, version: str) -> frozenset[str]:
    """Every name a person may call an object of `scene` by: its own and its look-alikes'."""
    return frozenset().union(*(read_as(n, version) for n in names(scene))) if scene.objects else frozenset()


def unreadable(exclude: frozenset[str], version: str) -> frozenset[str]:
    """The names a scene must leave out so that none of its objects reads as one of `exclude`
    (the first release drew without this, and keeps its draws; its rows are still checked)."""
    if version == "first-release" or not exclude:
        return exclude
    return frozenset().union(*(read_as(n, version) for n in exclude))


def other_scene(rng: np.random.Generator, cfg: SceneConfig, first: Scene,
                exclude: frozenset[str] = frozenset()) -> Scene:
    """A scene unlike `first`: another surface, another tint and no object a person may take for
    one of `first`'s (or of `exclude`)."""
    kinds = tuple(k for k in cfg.backgrounds if k != first.background) or cfg.backgrounds
    leave_out = unreadable(exclude | names(first), cfg.difficulty.catalogue)
    scene = random_scene(rng, dataclasses.replace(cfg, backgrounds=kinds), exclude_names=leave_out)
    tints = [t for t in TINTS if t != first.tint]
    return dataclasses.replace(scene, tint=tints[rng.integers(len(tints))])


def new_object(rng: np.random.Generator, scene: Scene, name: str, cfg: SceneConfig,
               uid: int | None = None) -> PlacedObject:
    """A randomly styled `name` for `scene` (not yet placed), at the difficulty's cue scale."""
    uid = scene.next_uid() if uid is None else uid
    return random_object(rng, uid, by_name()[name], surface_colour(scene), cfg, scene.palette, cue=True)


def reserve(rng: np.random.Generator, scene: Scene, templates: list[PlacedObject],
            cfg: SceneConfig) -> list[PlacedObject] | None:
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
    return place(rng, scene, obj, occupied_boxes(scene, skip=obj.uid), cfg, tries=1,
                 near=(obj.cx, obj.cy, 0)) is not None


def cue_pair(obj_a: PlacedObject, obj_b: PlacedObject, label_a: str, label_b: str | None = None) -> tuple[Cue, Cue]:
    return Cue(0, footprint(obj_a), label_a), Cue(1, footprint(obj_b), label_b or label_a)
