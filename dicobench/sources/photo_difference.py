"""The difference track from real photos, edited by the classical ops or by a model.

A row's seed picks its photo and four regions (annotated objects first, then, for photos whose
source segments nothing, small salient region proposals), each far from the others. An
object's mask is its segmentation where the source has one (COCO), else GrabCut's in its box. One op per task edits
each region: recolour (attribute), removal (entity), a move (spatial relation), a crack or stain (reasoning); with
an editor (`dicobench.editors.models`) every task but the move is an instructed inpainting
edit instead. The option names the region by its annotation (with its colour where another
object of the photo has the same name: "the red cup"), or, without one, by size, shape, colour
and where it lies in image a ("the small round red object near the top left"). As in the procedural track, all four
edits pass the pixel checks (and the VLM's, when asked) before the letter is used, and the written pair is checked
again.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterator

import cv2
import numpy as np

from dicobench.checks import Rejected, check_difference_pixels
from dicobench.editors.models import Backends
from dicobench.editors.photo.classical import (
    Mask,
    Move,
    PixelEdit,
    Recolour,
    Remove,
    Trace,
    crack_pattern,
    crop,
    pattern_mask,
    stain_pattern,
)
from dicobench.editors.photo.instructed import context, model_edit, plan, verify
from dicobench.kit.photos.model import PhotoObject
from dicobench.kit.photos.proposals import propose_regions
from dicobench.kit.scene.geometry import Box, apart, centre_px
from dicobench.kit.scene.palette import COLOURS, to_lab
from dicobench.rows import AgainstImageA, Candidate, Inputs, Proposal, cue, generator, made
from dicobench.sources.photo_objects import MAX_OBJECT_AREA, MIN_OBJECT_PIXELS, load_photo, normalised, region_mask
from dicobench.tasks.registry import Task

ENGINE = "photos"


@dataclass(frozen=True)
class Region:
    box: Box
    subject: str  # how the options name it
    mask: Mask
    colour: str  # its colour words
    segmented: bool = False  # the mask is the source's segmentation (not GrabCut's guess)


def colour_words(pixels: np.ndarray) -> str:
    """The palette colour nearest (in Lab) to the mean of `pixels` (N x 3), with "dark" or
    "light" when its lightness says so: words a person checking the option would agree on."""
    lab = np.array(to_lab(tuple(int(v) for v in pixels.reshape(-1, 3).mean(axis=0))))
    name = min(COLOURS, key=lambda c: float(np.linalg.norm(lab - np.array(to_lab(COLOURS[c])))))
    if name in ("black", "white"):
        return name
    return {True: "dark ", False: ""}[lab[0] < 35] + {True: "light ", False: ""}[lab[0] > 75] + name


def object_colour(pixels: np.ndarray, mask: Mask) -> str:
    return colour_words(crop(pixels, mask.window)[mask.hard()])


def shape_word(mask: Mask) -> str:
    """"round" or "long" where the object's outline clearly is, else nothing."""
    hard = mask.hard().astype(np.uint8)
    contours, _ = cv2.findContours(hard, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    if not contours:
        return ""
    outline = max(contours, key=cv2.contourArea)
    (_, _), (a, b), _ = cv2.minAreaRect(outline)
    if min(a, b) > 0 and max(a, b) / min(a, b) >= 2.5:
        return "long"
    perimeter = cv2.arcLength(outline, True)
    return "round" if perimeter > 0 and 4 * np.pi * cv2.contourArea(outline) / perimeter**2 >= 0.8 else ""


PLACES = {("top", "left"): "near the top left", ("top", "centre"): "near the top",
          ("top", "right"): "near the top right",
          ("middle", "left"): "on the left", ("middle", "centre"): "near the centre",
          ("middle", "right"): "on the right",
          ("bottom", "left"): "near the bottom left", ("bottom", "centre"): "near the bottom",
          ("bottom", "right"): "near the bottom right"}


def place_words(box: Box, width: int, height: int) -> str:
    """Where the box's centre lies, by thirds of the image."""
    x, y = centre_px(box)
    col = ("left", "centre", "right")[min(2, 3 * x // width)]
    row = ("top", "middle", "bottom")[min(2, 3 * y // height)]
    return PLACES[row, col]


def hue(colour: str) -> str:
    """A colour's palette name without "dark"/"light": namesakes of one hue are not told apart."""
    return colour.split()[-1]


def region_subject(obj: PhotoObject, pixels: np.ndarray, colour: str, mask: Mask,
                   objects: tuple[PhotoObject, ...] = ()) -> str | None:
    """The annotated name, with its colour where other `objects` have the same name ("red cup"),
    None where that still leaves it ambiguous (a namesake of the same colour, or one that cannot
    be told by colour: a crowd, a large object); else size, shape, colour and place ("tiny round
    dark red object near the top left"), so that a person can find it in image a."""
    if obj.name:
        namesakes = [o for o in objects if o is not obj and normalised(o.name) == normalised(obj.name)]
        if not namesakes:
            return obj.name
        if any(not o.editable or hue(colour) == hue(object_colour(pixels, region_mask(pixels, o))) for o in namesakes):
            return None
        return f"{colour} {obj.name}"
    h, w = pixels.shape[:2]
    size = "tiny" if obj.box[2] * obj.box[3] < 0.001 * h * w else "small"
    words = [size, shape_word(mask), colour, "object", place_words(obj.box, w, h)]
    return " ".join(word for word in words if word)


def candidates(rng: np.random.Generator, pixels: np.ndarray, objects: tuple[PhotoObject, ...],
               accept: Callable[[str], bool]) -> Iterator[Region]:
    """Regions to edit, annotated editable objects first (in seeded order), then, unless the
    photo's source segments its objects (which names what there is to edit), region proposals;
    only those whose colour the task can use (`accept`) and that an option can name."""
    h, w = pixels.shape[:2]
    usable = [o for o in objects if o.editable and MIN_OBJECT_PIXELS <= o.box[2] * o.box[3] <= MAX_OBJECT_AREA * h * w]
    segmented = any(o.mask is not None for o in objects)
    proposals = [] if segmented else [p for p in propose_regions(pixels) if p.box[2] * p.box[3] >= MIN_OBJECT_PIXELS]
    for obj in ([usable[i] for i in rng.permutation(len(usable))]
                + [proposals[i] for i in rng.permutation(len(proposals))]):
        mask = region_mask(pixels, obj)
        colour = object_colour(pixels, mask)
        subject = region_subject(obj, pixels, colour, mask, objects) if accept(colour) else None
        if subject is not None:
            yield Region(obj.box, subject, mask, colour, obj.mask is not None)


def _changed(edited: PixelEdit, region: Region) -> Box:
    if edited.changed is None:
        raise Rejected("no_change", region.subject)
    return edited.changed


def _candidate(edited: PixelEdit, text: str, cues: list[dict], region: Region) -> Candidate:
    return Candidate(made(edited.pixels), text, region.subject, cues, _changed(edited, region))


def recolour(rng, pixels, region, taken) -> Candidate:
    before = region.colour
    edited = Recolour(float(rng.uniform(100, 260)), chroma_scale=1.4, min_chroma=35.0)(pixels, region.mask)
    box = _changed(edited, region)
    after = object_colour(edited.pixels, region.mask)
    if after == before:
        raise Rejected("recolour_not_nameable", f"{before} -> {after}")
    return _candidate(edited, f"The {region.subject} turned {after}.",
                      [cue(0, box, region.subject), cue(1, box, f"{region.subject} ({after})")], region)


def remove(rng, pixels, region, taken) -> Candidate:
    edited = Remove()(pixels, region.mask)
    box = _changed(edited, region)
    return _candidate(edited, f"The {region.subject} disappeared.",
                      [cue(0, box, region.subject), cue(1, box, f"{region.subject} (gone)")], region)


DIRECTIONS = {"left": (-1, 0), "right": (1, 0), "up": (0, -1), "down": (0, 1)}


def move(rng, pixels, region, taken) -> Candidate:
    """Move the object by 1.5-2.5 times its size in a random direction where it lands in the
    image, clear of the boxes other edits `taken`."""
    h, w = pixels.shape[:2]
    source = region.mask.support()
    x, y, ww, wh = region.mask.window
    for name in rng.permutation(list(DIRECTIONS)):
        ux, uy = DIRECTIONS[name]
        factor = rng.uniform(1.5, 2.5)
        dx, dy = int(ux * factor * max(source[2], 8)), int(uy * factor * max(source[3], 8))
        target = (source[0] + dx, source[1] + dy, source[2], source[3])
        inside = 0 < x + dx and x + dx + ww < w and 0 < y + dy and y + dy + wh < h
        if inside and apart(target, source, 0) and all(apart(target, box, 4) for box in taken):
            edited = Move(dx, dy, poisson=not region.segmented)(pixels, region.mask)
            return _candidate(edited, f"The {region.subject} moved {name}.",
                              [cue(0, source, f"{region.subject} (before)"),
                               cue(1, target, f"{region.subject} (after)")],
                              region)
    raise Rejected("no_room_to_move", region.subject)


TRACES = {"crack": (crack_pattern, "A crack appeared on the {subject}."),
          "stain": (stain_pattern, "A dark stain appeared on the {subject}.")}


def trace(rng, pixels, region, taken) -> Candidate:
    """A crack or stain over the object, at least 40 px across so that it is visible; on a
    segmented object, only on it (the pattern cut by its mask)."""
    kind = str(rng.choice(list(TRACES)))
    make, sentence = TRACES[kind]
    x, y, bw, bh = region.box
    tw, th = max(bw, 40), max(bh, 40)
    at = (x + bw // 2 - tw // 2, y + bh // 2 - th // 2)
    pattern = pattern_mask(make(rng, th, tw), at, pixels.shape)
    edited = Trace()(pixels, pattern.within(region.mask) if region.segmented else pattern)
    box = _changed(edited, region)
    return _candidate(edited, sentence.format(subject=region.subject), [cue(1, box, f"{kind} on {region.subject}")],
                      region)


def instructed(task: Task, backends: Backends):
    """The model op for `task`: an instructed inpainting edit of the region, whose option is
    the plan's sentence; a template colour is checked on the result."""

    def op(rng, pixels, region, taken) -> Candidate:
        chosen = plan(rng, task, region.subject, region.colour, context(pixels, region.box), backends)
        edited = model_edit(rng, pixels, region.mask, chosen, backends)
        box = _changed(edited, region)
        if chosen.colour is not None:
            after = object_colour(edited.pixels, region.mask)
            if chosen.colour not in after.split():
                raise Rejected("edit_not_as_instructed", f"asked {chosen.colour}, got {after}")
        after_cue = cue(1, box, f"{region.subject} (edited)")
        cues = [cue(0, box, region.subject), after_cue] if task.model_edit.cue_in_a else [after_cue]
        return _candidate(edited, chosen.option, cues, region)

    return op


def any_colour(colour: str) -> bool:
    return True


def hue_shiftable(colour: str) -> bool:
    """A hue shift cannot make black or white objects another nameable colour."""
    return colour not in ("black", "white")


def edited_by_model(task: Task, backends: Backends) -> bool:
    return backends.editor is not None and task.model_edit is not None


def choose_edits(rng: np.random.Generator, op, pixels: np.ndarray, objects: tuple[PhotoObject, ...],
                 count: int = 4, backends: Backends = Backends(), accept=any_colour) -> list[Candidate]:
    """`count` edits by `op` on regions with distinct subjects (whose colour `accept`s), apart
    from each other, each passing the pixel checks (and the verifier, when there is one); a
    region whose edit fails is passed over for the next one."""
    gap = max(8, min(pixels.shape[:2]) // 50)
    edits: list[Candidate] = []
    taken: list[Box] = []  # every cue box of the edits so far
    for region in candidates(rng, pixels, objects, accept):
        if region.subject in {e.subject for e in edits} or not all(apart(region.mask.support(), box, gap)
                                                                   for box in taken):
            continue
        try:
            edit = op(rng, pixels, region, taken)
            check_difference_pixels(pixels, edit.image_b, False, edit.cues, within=edit.changed)
            verify(pixels, edit.image_b, edit.changed, edit.text, backends)
        except Rejected:
            continue
        edits.append(edit)
        taken.extend(tuple(c["bbox"]) for c in edit.cues)
        if len(edits) == count:
            return edits
    raise Rejected("too_few_regions", f"{len(edits)} of {count}")


def photo_proposer(classical_op, accept=any_colour):
    """The photo proposer of a difference task edited by `classical_op` (regions whose colour it
    `accept`s), or, in an editor build, by the task's instructed model edit."""

    def proposer(task: Task, seed: int, opts, inputs: Inputs) -> Proposal:
        rng = np.random.default_rng(seed)
        photo = load_photo(inputs.source, int(rng.integers(len(inputs.source))))
        backends = inputs.backends
        if edited_by_model(task, backends):
            op, made_by = instructed(task, backends), backends.made_by(task.name)
            accept_colour = any_colour
        else:
            op, made_by, accept_colour = classical_op, f"classical {task.name} edits (OpenCV)", accept
        edits = choose_edits(rng, op, photo.pixels, photo.objects, backends=backends, accept=accept_colour)
        return Proposal(photo.pixels, photo.pixels, tuple(edits), AgainstImageA(), photo.id,
                        generator(ENGINE, made_by + backends.verified_by()), max(photo.pixels.shape[:2]))

    return proposer


recolour_proposal = photo_proposer(recolour, accept=hue_shiftable)
removal_proposal = photo_proposer(remove)
move_proposal = photo_proposer(move)
trace_proposal = photo_proposer(trace)
