"""The difference track from real photos, edited by the classical ops or by a model.

A row's seed picks its photo and four regions (annotated objects first, then small salient
region proposals), each far from the others. One op per task edits each region: recolour
(attribute), removal (entity), a move (spatial relation), a crack or stain (reasoning); with
an editor (`dicobench.photo_models`) every task but the move is an instructed inpainting
edit instead. The option names the region by its annotation, or, without one, by size,
shape, colour and where it lies in image a ("the small round red object near the top
left"). As in the procedural track, all four edits pass the pixel checks (and the VLM's,
when asked) before the letter is used, and the written pair is checked again.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterator

import cv2
import numpy as np

from benchkit import __version__
from benchkit.palette import COLOURS, to_lab
from benchkit.photos import Photo, PhotoObject, PhotoSkipped, PhotoSource, propose_regions
from benchkit.render import Box
from dicobench.checks import Rejected, check_difference_pixels, check_options
from dicobench.difference import write_pair
from dicobench.editors.classical import (Edited, Mask, Move, Recolour, Remove, Trace, crack_pattern, crop,
                                         object_mask, pattern_mask, stain_pattern)
from dicobench.editors.instructed import context, model_edit, plan, verify
from dicobench.photo_models import Backends
from dicobench.schema import NONE_OPTIONS

MIN_OBJECT_PIXELS = 400  # smaller regions cannot show MIN_VISIBLE_PIXELS clearly changed pixels
MAX_OBJECT_AREA = 0.01  # the edit's window, about twice the object's size, stays under the 5% bound


@dataclass(frozen=True)
class Region:
    box: Box
    subject: str  # how the options name it
    mask: Mask
    colour: str  # its colour words


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


PLACES = {("top", "left"): "near the top left", ("top", "centre"): "near the top", ("top", "right"): "near the top right",
          ("middle", "left"): "on the left", ("middle", "centre"): "near the centre", ("middle", "right"): "on the right",
          ("bottom", "left"): "near the bottom left", ("bottom", "centre"): "near the bottom",
          ("bottom", "right"): "near the bottom right"}


def place_words(box: Box, width: int, height: int) -> str:
    """Where the box's centre lies, by thirds of the image."""
    col = ("left", "centre", "right")[min(2, 3 * (box[0] + box[2] // 2) // width)]
    row = ("top", "middle", "bottom")[min(2, 3 * (box[1] + box[3] // 2) // height)]
    return PLACES[row, col]


def describe(obj: PhotoObject, pixels: np.ndarray, colour: str, mask: Mask) -> str:
    """The annotated name; else size, shape, colour and place ("tiny round dark red object
    near the top left"), so that a person can find it in image a."""
    if obj.name:
        return obj.name
    h, w = pixels.shape[:2]
    size = "tiny" if obj.box[2] * obj.box[3] < 0.001 * h * w else "small"
    words = [size, shape_word(mask), colour, "object", place_words(obj.box, w, h)]
    return " ".join(word for word in words if word)


def footprint(mask: Mask) -> Box:
    """The tight box of the mask's support: every pixel an op on it may change."""
    ys, xs = np.nonzero(mask.alpha > 0)
    x, y = mask.window[0] + int(xs.min()), mask.window[1] + int(ys.min())
    return (x, y, int(xs.max() - xs.min() + 1), int(ys.max() - ys.min() + 1))


def apart(a: Box, b: Box, gap: int) -> bool:
    return (a[0] + a[2] + gap <= b[0] or b[0] + b[2] + gap <= a[0]
            or a[1] + a[3] + gap <= b[1] or b[1] + b[3] + gap <= a[1])


def candidates(rng: np.random.Generator, pixels: np.ndarray, objects: tuple[PhotoObject, ...],
               accept: Callable[[str], bool]) -> Iterator[Region]:
    """Regions to edit, annotated objects first (in seeded order), then region proposals; only
    those whose colour the task can use (`accept`)."""
    h, w = pixels.shape[:2]
    usable = [o for o in objects if MIN_OBJECT_PIXELS <= o.box[2] * o.box[3] <= MAX_OBJECT_AREA * h * w]
    proposals = [p for p in propose_regions(pixels) if p.box[2] * p.box[3] >= MIN_OBJECT_PIXELS]
    for obj in [usable[i] for i in rng.permutation(len(usable))] + [proposals[i] for i in rng.permutation(len(proposals))]:
        mask = object_mask(pixels, obj.box)
        colour = object_colour(pixels, mask)
        if accept(colour):
            yield Region(obj.box, describe(obj, pixels, colour, mask), mask, colour)


@dataclass(frozen=True)
class PhotoEdit:
    edited: Edited
    text: str
    cues: list[dict]
    subject: str


def cue(image: int, box: Box, label: str) -> dict:
    return {"image": image, "bbox": [int(v) for v in box], "label": label}


def _changed(edited: Edited, region: Region) -> Box:
    if edited.changed is None:
        raise Rejected("no_change", region.subject)
    return edited.changed


def recolour(rng, pixels, region, taken) -> PhotoEdit:
    before = region.colour
    edited = Recolour(float(rng.uniform(100, 260)), chroma_scale=1.4, min_chroma=35.0)(pixels, region.mask)
    box = _changed(edited, region)
    after = object_colour(edited.pixels, region.mask)
    if after == before:
        raise Rejected("recolour_not_nameable", f"{before} -> {after}")
    return PhotoEdit(edited, f"The {region.subject} turned {after}.",
                     [cue(0, box, region.subject), cue(1, box, f"{region.subject} ({after})")], region.subject)


def remove(rng, pixels, region, taken) -> PhotoEdit:
    edited = Remove()(pixels, region.mask)
    box = _changed(edited, region)
    return PhotoEdit(edited, f"The {region.subject} disappeared.",
                     [cue(0, box, region.subject), cue(1, box, f"{region.subject} (gone)")], region.subject)


DIRECTIONS = {"left": (-1, 0), "right": (1, 0), "up": (0, -1), "down": (0, 1)}


def move(rng, pixels, region, taken) -> PhotoEdit:
    """Move the object by 1.5-2.5 times its size in a random direction where it lands in the
    image, clear of the boxes other edits `taken`."""
    h, w = pixels.shape[:2]
    source = footprint(region.mask)
    x, y, ww, wh = region.mask.window
    for name in rng.permutation(list(DIRECTIONS)):
        ux, uy = DIRECTIONS[name]
        factor = rng.uniform(1.5, 2.5)
        dx, dy = int(ux * factor * max(source[2], 8)), int(uy * factor * max(source[3], 8))
        target = (source[0] + dx, source[1] + dy, source[2], source[3])
        inside = 0 < x + dx and x + dx + ww < w and 0 < y + dy and y + dy + wh < h
        if inside and apart(target, source, 0) and all(apart(target, box, 4) for box in taken):
            edited = Move(dx, dy)(pixels, region.mask)
            _changed(edited, region)
            return PhotoEdit(edited, f"The {region.subject} moved {name}.",
                             [cue(0, source, f"{region.subject} (before)"), cue(1, target, f"{region.subject} (after)")],
                             region.subject)
    raise Rejected("no_room_to_move", region.subject)


TRACES = {"crack": (crack_pattern, "A crack appeared on the {subject}."),
          "stain": (stain_pattern, "A dark stain appeared on the {subject}.")}


def trace(rng, pixels, region, taken) -> PhotoEdit:
    """A crack or stain over the object, at least 40 px across so that it is visible."""
    kind = str(rng.choice(list(TRACES)))
    make, sentence = TRACES[kind]
    x, y, bw, bh = region.box
    tw, th = max(bw, 40), max(bh, 40)
    at = (x + bw // 2 - tw // 2, y + bh // 2 - th // 2)
    edited = Trace()(pixels, pattern_mask(make(rng, th, tw), at, pixels.shape))
    box = _changed(edited, region)
    return PhotoEdit(edited, sentence.format(subject=region.subject), [cue(1, box, f"{kind} on {region.subject}")], region.subject)


def instructed(task: str, backends: Backends):
    """The model op for `task`: an instructed inpainting edit of the region, whose option is
    the plan's sentence; a template colour is checked on the result."""

    def op(rng, pixels, region, taken) -> PhotoEdit:
        chosen = plan(rng, task, region.subject, region.colour, context(pixels, region.box), backends)
        edited = model_edit(rng, pixels, region.mask, chosen, backends)
        box = _changed(edited, region)
        if chosen.colour is not None:
            after = object_colour(edited.pixels, region.mask)
            if chosen.colour not in after.split():
                raise Rejected("edit_not_as_instructed", f"asked {chosen.colour}, got {after}")
        after_cue = cue(1, box, f"{region.subject} (edited)")
        cues = [after_cue] if task == "difference_reasoning" else [cue(0, box, region.subject), after_cue]
        return PhotoEdit(edited, chosen.option, cues, region.subject)

    return op


OPS = {"attribute": recolour, "entity": remove, "spatial_relation": move, "difference_reasoning": trace}
# a hue shift cannot make black or white objects another nameable colour
ACCEPT = {"attribute": lambda colour: colour not in ("black", "white")}


def edited_by_model(task: str, backends: Backends) -> bool:
    return backends.editor is not None and task != "spatial_relation"  # an inpainting mask cannot move things


def op_for(task: str, backends: Backends):
    return instructed(task, backends) if edited_by_model(task, backends) else OPS[task]


def choose_edits(rng: np.random.Generator, task: str, pixels: np.ndarray, objects: tuple[PhotoObject, ...],
                 count: int = 4, backends: Backends = Backends()) -> list[PhotoEdit]:
    """`count` edits on regions with distinct subjects, apart from each other, each passing the
    pixel checks (and the verifier, when there is one); a region whose edit fails is passed
    over for the next one."""
    gap = max(8, min(pixels.shape[:2]) // 50)
    op = op_for(task, backends)
    accept = ACCEPT.get(task, lambda colour: True) if backends.editor is None else (lambda colour: True)
    edits: list[PhotoEdit] = []
    taken: list[Box] = []  # every cue box of the edits so far
    for region in candidates(rng, pixels, objects, accept):
        if region.subject in {e.subject for e in edits} or not all(apart(footprint(region.mask), box, gap) for box in taken):
            continue
        try:
            edit = op(rng, pixels, region, taken)
            check_difference_pixels(pixels, edit.edited.pixels, False, edit.cues, within=edit.edited.changed)
            verify(pixels, edit.edited.pixels, edit.edited.changed, edit.text, backends)
        except Rejected:
            continue
        edits.append(edit)
        taken.extend(tuple(c["bbox"]) for c in edit.cues)
        if len(edits) == count:
            return edits
    raise Rejected("too_few_regions", f"{len(edits)} of {count}")


def load_photo(source: PhotoSource, index: int) -> Photo:
    """The photo, or the rejection that lets the build count it as skipped and draw again."""
    try:
        return source.load(index)
    except PhotoSkipped as exc:
        raise Rejected(f"photo_{exc.reason}", str(exc)) from None


def photo_difference_row(task: str, seed: int, letter: str, opts, source: PhotoSource,
                         backends: Backends = Backends()) -> tuple[dict, int]:
    """One checked row of a difference task from a photo of `source` (chosen by the seed);
    same contract as `dicobench.difference.difference_row`."""
    rng = np.random.default_rng(seed)
    photo = load_photo(source, int(rng.integers(len(source))))
    pixels = photo.pixels
    edits = choose_edits(rng, task, pixels, photo.objects, backends=backends)
    none_option = NONE_OPTIONS["difference"]
    options = [e.text for e in edits] + [none_option]
    check_options(options, [e.subject for e in edits], none_option)
    made_by = backends.made_by(task) if edited_by_model(task, backends) else f"classical {task} edits (OpenCV)"
    made_by += backends.verified_by()
    row = write_pair(task, seed, letter, opts, pixels, [e.edited.pixels for e in edits], [e.cues for e in edits],
                     options, made_by)
    row["source"] = photo.id
    row["generator"] = f"dicobench {__version__}; photos; {made_by}"
    return row, max(pixels.shape[:2])
