"""The one row pipeline of DiCoBench: a proposal in, one checked row out.

Every task and source proposes the same thing (`Proposal`): image a, the E pair's image b and
four candidates, each an image b with its option text, subject and cues, plus the row's
provenance and how its images look through a camera (`views`). `make_row` then runs the core
rule for all of them alike: the options are checked, all four candidates are checked whatever the
letter (a check that rejected some candidates only when they are the answer would leak the answer
to the text), the letter picks one, the pair is encoded and checked again as written, and the row
is assembled. With cameras (`dicobench.shots`) the checks run on the clean renders, every
candidate's cues are checked again through both cameras, and the pair is written as the cameras
take it. Nothing after the proposer changes what it decided (options, provenance); the cameras'
parameters are appended to the `generator` column.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable, Protocol

import numpy as np

from dicobench import shots
from dicobench.checks import (
    Rejected,
    check_change_within,
    check_cues_drawn,
    check_difference_pair,
    check_difference_pixels,
    check_options,
    check_shots_written,
    check_unchanged,
)
from dicobench.editors.models import Backends
from dicobench.kit import __version__
from dicobench.kit.io.imageio import decode, encode_png
from dicobench.kit.scene.camera import Camera, CameraBounds, draw_cameras
from dicobench.kit.scene.geometry import Box
from dicobench.kit.scene.model import Scene
from dicobench.kit.scene.render import background
from dicobench.schema import LETTERS
from dicobench.tasks.registry import get_task

if TYPE_CHECKING:
    from dicobench.kit.photos.sources import PhotoSource


def cue(image: int, box: Box, label: str) -> dict:
    """A row's cue: which image (0 = a, 1 = b), the box there and what it shows."""
    return {"image": image, "bbox": [int(v) for v in box], "label": label}


def cue_dicts(cues) -> list[dict]:
    """`dicobench.editors.scene.Cue`s as row cues."""
    return [cue(c.image, c.bbox, c.label) for c in cues]


def generator(engine: str, made_by: str) -> str:
    """The `generator` column: the package version, what drew the images and what edited them."""
    return f"dicobench {__version__}; {engine}; {made_by}"


@dataclass(frozen=True)
class Inputs:
    """What a proposer draws from besides its seed and the build options: the photos a split
    may use (photo sources) and the opened models (`dicobench.editors.models.Backends`)."""

    source: PhotoSource | None = None
    backends: Backends = field(default_factory=Backends)


@dataclass(frozen=True)
class Candidate:
    """One option A-D: the image b in which exactly this option holds. `draw` gives that image
    afresh each time `image_b` is read, so a row holds one candidate image at a time, not four
    (a scene's candidate is image a with the edit drawn again; at 8K each image is 180 MiB)."""

    draw: Callable[[], np.ndarray]
    text: str  # the option
    subject: str  # what it is about: the four subjects of a row differ
    cues: list[dict]
    changed: Box | None = None  # a box holding every pixel this image b may differ in (checks look only there)

    @property
    def image_b(self) -> np.ndarray:
        return self.draw()


def made(image: np.ndarray) -> Callable[[], np.ndarray]:
    """`Candidate.draw` for an image b that is already made (a photo edit): it is handed back as it is."""
    return lambda: image


class PairCheck(Protocol):
    """How a track's pairs are verified: each candidate before the letter is used, then the
    pair as written (decoded; with cameras, the clean pair). `written` returns the row's
    `changed_area`. `shot` checks candidate `index` again as `cameras` (image a's, image b's)
    take it: its cue boxes, mapped, still hold what they held."""

    def proposal(self, prop: "Proposal") -> None: ...

    def candidate(self, prop: "Proposal", cand: Candidate) -> None: ...

    def shot(self, prop: "Proposal", index: int, cameras: tuple[Camera, Camera]) -> None: ...

    def written(self, prop: "Proposal", a: np.ndarray, b: np.ndarray, is_none: bool, cues: list[dict]) -> float: ...


@dataclass(frozen=True)
class Proposal:
    image_a: np.ndarray
    image_b: np.ndarray  # the E pair's image b
    candidates: tuple[Candidate, ...]
    check: PairCheck
    source: str  # the base scene or photo(s), for the `source` column
    generator: str  # the `generator` column (see `generator`)
    long_side: int  # the longest side of the images the row was drawn from, for the build report
    # (letter, cues) -> descriptors of the scenes behind the pair (dicobench.descriptors)
    describe: Callable[[str, list], dict] | None = None
    views: shots.Views = shots.PHOTOGRAPHS  # how its images look through a camera (scenes: `shots.SceneShots`)


@dataclass(frozen=True)
class AgainstImageA:
    """Difference pairs: image b is image a with one visible change, inside the cue boxes, under
    5% of the image; the E pair is image a twice. The `decoys` (the states options name, drawn
    again elsewhere: `dicobench.editors.scene.decoys`) are the same pixels in image a and in
    every candidate's image b."""

    decoys: tuple[Box, ...] = ()

    def proposal(self, prop: Proposal) -> None:
        pass

    def candidate(self, prop: Proposal, cand: Candidate) -> None:
        image_b = cand.image_b
        check_difference_pixels(prop.image_a, image_b, False, cand.cues, within=cand.changed)
        check_unchanged(prop.image_a, image_b, self.decoys)

    def shot(self, prop: Proposal, index: int, cameras: tuple[Camera, Camera]) -> None:
        # each camera sees all of the change (where the object was and where it is): that camera's
        # shots of image a and of the edit differ only inside all the cues as it maps them
        cues, shape = prop.candidates[index].cues, prop.image_a.shape
        for camera in cameras:
            box, before, after = prop.views.change(prop, index, camera)
            check_change_within(before, after, shots.mapped(cues, (camera, camera), (shape, shape)), box)

    def written(self, prop: Proposal, a: np.ndarray, b: np.ndarray, is_none: bool, cues: list[dict]) -> float:
        return check_difference_pair(a, b, is_none, cues)


@dataclass(frozen=True)
class CuesDrawn:
    """Commonality pairs of two scenes: every cue box really shows its object against the bare
    surfaces of `scenes` (image a's, the E pair's image b's), also as the cameras take them.
    `consistent` re-derives from the scenes what the pairs share and rejects a proposal whose E
    pair shares something or whose candidates do not share exactly their subject."""

    scenes: tuple[Scene, Scene]
    consistent: Callable[[], None]  # raises Rejected

    def bare(self, cameras: tuple[Camera, Camera] | tuple[None, None] = (None, None)) -> tuple[np.ndarray, np.ndarray]:
        return tuple(background(scene, camera) for scene, camera in zip(self.scenes, cameras))

    def proposal(self, prop: Proposal) -> None:
        self.consistent()

    def candidate(self, prop: Proposal, cand: Candidate) -> None:
        check_cues_drawn((prop.image_a, cand.image_b), self.bare(), cand.cues)

    def shot(self, prop: Proposal, index: int, cameras: tuple[Camera, Camera]) -> None:
        images = (prop.views.image_a(prop, cameras[0]), prop.views.image_b(prop, index, cameras[1]))
        cues = shots.mapped(prop.candidates[index].cues, cameras, (prop.image_a.shape, prop.image_b.shape))
        check_cues_drawn(images, self.bare(cameras), cues)

    def written(self, prop: Proposal, a: np.ndarray, b: np.ndarray, is_none: bool, cues: list[dict]) -> float:
        check_cues_drawn((a, b), self.bare(), cues)
        return 0.0  # the images are different scenes: nothing is "changed"


class AgainstNoneImageB:
    """Commonality pairs of two photos: a candidate's image b differs from the E pair's only at
    its shared object, visibly; image a is written as it is."""

    def proposal(self, prop: Proposal) -> None:
        pass

    def candidate(self, prop: Proposal, cand: Candidate) -> None:
        check_difference_pixels(prop.image_b, cand.image_b, False, _in_b(cand.cues))

    def shot(self, prop: Proposal, index: int, cameras: tuple[Camera, Camera]) -> None:
        cues = shots.mapped(prop.candidates[index].cues, cameras, (prop.image_a.shape, prop.image_b.shape))
        box, before, after = prop.views.change(prop, index, cameras[1])
        check_change_within(before, after, _in_b(cues), box)

    def written(self, prop: Proposal, a: np.ndarray, b: np.ndarray, is_none: bool, cues: list[dict]) -> float:
        if not np.array_equal(a, prop.image_a):
            raise Rejected("image_a_not_written")
        check_difference_pixels(prop.image_b, b, is_none, _in_b(cues))
        return 0.0  # the images are different photos: nothing is "changed"


def _in_b(cues: list[dict]) -> list[dict]:
    return [c for c in cues if c["image"] == 1]


def pick(prop: Proposal, letter: str) -> tuple[np.ndarray, list[dict]]:
    """Image b and the cues of the answer `letter`: E is the pair sharing or changing nothing."""
    if letter == "E":
        return prop.image_b, []
    cand = prop.candidates[LETTERS.index(letter)]
    return cand.image_b, cand.cues


def checked_options(spec, offers) -> list[str]:
    """The row's five options from its four offers (anything with a `text` and a `subject`: candidates,
    scene edits) and `spec`'s none option, checked as `make_row` checks them first."""
    options = [o.text for o in offers] + [spec.none_option]
    check_options(options, [o.subject for o in offers], spec.none_option)
    return options


def make_row(task: str, seed: int, letter: str, prop: Proposal, compress_level: int,
             camera: CameraBounds | None = None, png_writer: str = "pillow") -> dict:
    """The checked schema row (without its id) of `prop` with answer `letter`; with `camera`,
    each image shot through its own camera drawn within those bounds from the row's seed."""
    spec = get_task(task)
    options = checked_options(spec, prop.candidates)
    prop.check.proposal(prop)
    for cand in prop.candidates:
        prop.check.candidate(prop, cand)
    cameras = None if camera is None else draw_cameras(seed, camera)
    if cameras is not None:
        for index in range(len(prop.candidates)):
            prop.check.shot(prop, index, cameras)
    image_b, cues = pick(prop, letter)
    if cameras is None:
        png_a = encode_png(prop.image_a, compress_level, png_writer)
        png_b = png_a if image_b is prop.image_a else encode_png(image_b, compress_level, png_writer)
        a = decode(png_a, "image_a")
        changed_area = prop.check.written(prop, a, a if png_b is png_a else decode(png_b, "image_b"), letter == "E",
                                          cues)
        generator = prop.generator
    else:
        changed_area = prop.check.written(prop, prop.image_a, image_b, letter == "E", cues)  # the clean pair
        png_a, png_b, cues = shoot(prop, letter, cameras, compress_level, png_writer)
        generator = prop.generator + shots.note(cameras)
    return {
        "track": spec.track.name,
        "task": task,
        "image_a": {"bytes": png_a, "path": None},
        "image_b": {"bytes": png_b, "path": None},
        "question": spec.question,
        "options": options,
        "answer": letter,
        "cues": cues,
        "changed_area": changed_area,
        "source": prop.source,
        "seed": seed,
        "generator": generator,
    }


def shot_pair(prop: Proposal, letter: str, cameras: tuple[Camera | None, Camera | None]
              ) -> tuple[tuple[np.ndarray, np.ndarray], list[dict]]:
    """The pair of answer `letter` as `cameras` take it (an image without a camera: its clean
    render), and its cues as those cameras map them."""
    index = None if letter == "E" else LETTERS.index(letter)
    cues = [] if index is None else prop.candidates[index].cues
    a = prop.image_a if cameras[0] is None else prop.views.image_a(prop, cameras[0])
    b = pick(prop, letter)[0] if cameras[1] is None else prop.views.image_b(prop, index, cameras[1])
    return (a, b), shots.mapped(cues, cameras, (a.shape, b.shape))


def shoot(prop: Proposal, letter: str, cameras: tuple[Camera, Camera], compress_level: int, png_writer: str = "pillow"
          ) -> tuple[bytes, bytes, list[dict]]:
    """The pair of answer `letter` as the cameras take it, encoded and checked as written, and its cues mapped."""
    images, cues = shot_pair(prop, letter, cameras)
    pngs = tuple(encode_png(image, compress_level, png_writer) for image in images)
    check_shots_written(pngs, images, cues)
    return pngs[0], pngs[1], cues
