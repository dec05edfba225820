"""The one row pipeline of DiCoBench: a proposal in, one checked row out.

Every task and source proposes the same thing (`Proposal`): image a, the E pair's image b and
four candidates, each an image b with its option text, subject and cues, plus the row's
provenance. `make_row` then runs the core rule for all of them alike: the options are
checked, all four candidates are checked whatever the letter (a check that rejected some
candidates only when they are the answer would leak the answer to the text), the letter
picks one, the pair is encoded and checked again as written, and the row is assembled.
Nothing after the proposer changes what it decided (options, provenance).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Protocol

import numpy as np

from benchkit import __version__
from benchkit.io.imageio import decode, encode_png
from benchkit.scene.geometry import Box
from dicobench.checks import Rejected, check_cues_drawn, check_difference_pair, check_difference_pixels, check_options
from dicobench.editors.models import Backends
from dicobench.tasks.registry import get_task
from dicobench.schema import LETTERS


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

    source: object | None = None  # a benchkit.photos.sources.PhotoSource
    backends: Backends = field(default_factory=Backends)


@dataclass(frozen=True)
class Candidate:
    """One option A-D: the image b in which exactly this option holds."""

    image_b: np.ndarray
    text: str  # the option
    subject: str  # what it is about: the four subjects of a row differ
    cues: list[dict]
    changed: Box | None = None  # a box holding every pixel this image b may differ in (checks look only there)


class PairCheck(Protocol):
    """How a track's pairs are verified: each candidate before the letter is used, then the
    pair as written. `written` returns the row's `changed_area`."""

    def proposal(self, prop: "Proposal") -> None: ...

    def candidate(self, prop: "Proposal", cand: Candidate) -> None: ...

    def written(self, prop: "Proposal", png_a: bytes, png_b: bytes, is_none: bool, cues: list[dict]) -> float: ...


@dataclass(frozen=True)
class Proposal:
    image_a: np.ndarray
    image_b: np.ndarray  # the E pair's image b
    candidates: tuple[Candidate, ...]
    check: PairCheck
    source: str  # the base scene or photo(s), for the `source` column
    generator: str  # the `generator` column (see `generator`)
    long_side: int  # the longest side of the images the row was drawn from, for the build report
    describe: object = None  # (letter, cues) -> dict: descriptors of the scenes behind the pair (dicobench.descriptors)


class AgainstImageA:
    """Difference pairs: image b is image a with one visible change, inside the cue boxes, under
    5% of the image; the E pair is image a twice."""

    def proposal(self, prop: Proposal) -> None:
        pass

    def candidate(self, prop: Proposal, cand: Candidate) -> None:
        check_difference_pixels(prop.image_a, cand.image_b, False, cand.cues, within=cand.changed)

    def written(self, prop: Proposal, png_a: bytes, png_b: bytes, is_none: bool, cues: list[dict]) -> float:
        return check_difference_pair(png_a, png_b, is_none, cues)


@dataclass(frozen=True)
class CuesDrawn:
    """Commonality pairs of two scenes: every cue box really shows its object against the bare
    surfaces `bare` (image a's, image b's). `consistent` re-derives from the scenes what the
    pairs share and rejects a proposal whose E pair shares something or whose candidates do
    not share exactly their subject."""

    bare: tuple[np.ndarray, np.ndarray]
    consistent: Callable[[], None]  # raises Rejected

    def proposal(self, prop: Proposal) -> None:
        self.consistent()

    def candidate(self, prop: Proposal, cand: Candidate) -> None:
        check_cues_drawn((prop.image_a, cand.image_b), self.bare, cand.cues)

    def written(self, prop: Proposal, png_a: bytes, png_b: bytes, is_none: bool, cues: list[dict]) -> float:
        check_cues_drawn((decode(png_a, "image_a"), decode(png_b, "image_b")), self.bare, cues)
        return 0.0  # the images are different scenes: nothing is "changed"


class AgainstNoneImageB:
    """Commonality pairs of two photos: a candidate's image b differs from the E pair's only at
    its shared object, visibly; image a is written as it is."""

    def proposal(self, prop: Proposal) -> None:
        pass

    def candidate(self, prop: Proposal, cand: Candidate) -> None:
        check_difference_pixels(prop.image_b, cand.image_b, False, _in_b(cand.cues))

    def written(self, prop: Proposal, png_a: bytes, png_b: bytes, is_none: bool, cues: list[dict]) -> float:
        if not np.array_equal(decode(png_a, "image_a"), prop.image_a):
            raise Rejected("image_a_not_written")
        check_difference_pixels(prop.image_b, decode(png_b, "image_b"), is_none, _in_b(cues))
        return 0.0  # the images are different photos: nothing is "changed"


def _in_b(cues: list[dict]) -> list[dict]:
    return [c for c in cues if c["image"] == 1]


def pick(prop: Proposal, letter: str) -> tuple[np.ndarray, list[dict]]:
    """Image b and the cues of the answer `letter`: E is the pair sharing or changing nothing."""
    if letter == "E":
        return prop.image_b, []
    cand = prop.candidates[LETTERS.index(letter)]
    return cand.image_b, cand.cues


def make_row(task: str, seed: int, letter: str, prop: Proposal, compress_level: int) -> dict:
    """The checked schema row (without its id) of `prop` with answer `letter`."""
    spec = get_task(task)
    options = [c.text for c in prop.candidates] + [spec.none_option]
    check_options(options, [c.subject for c in prop.candidates], spec.none_option)
    prop.check.proposal(prop)
    for cand in prop.candidates:
        prop.check.candidate(prop, cand)
    image_b, cues = pick(prop, letter)
    png_a = encode_png(prop.image_a, compress_level)
    png_b = png_a if image_b is prop.image_a else encode_png(image_b, compress_level)
    changed_area = prop.check.written(prop, png_a, png_b, letter == "E", cues)
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
        "generator": prop.generator,
    }
