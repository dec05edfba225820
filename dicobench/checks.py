"""Checks run on the decoded bytes that will be written, before a row is accepted.

A failed check rejects the sample (it is regenerated from the next seed) and is counted
by reason, so a build reports how often each guarantee had to be enforced.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from dataclasses import dataclass
from typing import ClassVar, Literal

import numpy as np

from dicobench.kit.io.imageio import decodes_to
from dicobench.kit.scene.render import object_patch

MAX_AREA = 0.05  # the paper's bound on a changed region
MIN_VISIBLE_PIXELS = 150  # at least this many pixels change clearly...
VISIBLE_STEP = 24  # ...by this many levels in some channel


@dataclass(frozen=True)
class Reason:
    """Why a sample was not written: a failed `check`, or a photo the source `skipped`
    (unreadable, too small). `key` is how shard stats count it; `parse` reads a key back."""

    kind: Literal["check", "skipped"]
    code: str

    SKIPPED_PREFIX: ClassVar[str] = "photo_"

    @property
    def key(self) -> str:
        return self.SKIPPED_PREFIX + self.code if self.kind == "skipped" else self.code

    @classmethod
    def parse(cls, key: str) -> "Reason":
        if key.startswith(cls.SKIPPED_PREFIX):
            return cls("skipped", key.removeprefix(cls.SKIPPED_PREFIX))
        return cls("check", key)


class Rejected(Exception):
    """A sample that must not be written; `reason` is a short code for the build report."""

    kind = "check"

    def __init__(self, reason: str, detail: str = ""):
        super().__init__(f"{reason}: {detail}" if detail else reason)
        self.reason = Reason(self.kind, reason)


class Skipped(Rejected):
    """A drawn photo its source could not give: the build counts it as skipped and draws again."""

    kind = "skipped"


def check_options(options: list[str], subjects: list[str], none_option: str) -> None:
    """Five distinct options, E last; A-D about four subjects, or about two subjects twice each
    (the paired distractors: no subject is the odd one out either way)."""
    if len(options) != 5 or options[4] != none_option:
        raise Rejected("options_shape")
    if len(set(options)) != 5:
        raise Rejected("options_not_distinct")
    if sorted(Counter(subjects).values()) not in ([1, 1, 1, 1], [2, 2]):
        raise Rejected("subjects_not_balanced")


def check_difference_pair(a: np.ndarray, b: np.ndarray, is_none: bool, cues: list[dict]) -> float:
    """Verify a whole pair (as decoded from what will be written, or the clean renders a camera
    takes again); return the fraction of the image that differs."""
    if is_none and a is b and not cues:
        return 0.0  # one image twice
    return check_difference_pixels(a, b, is_none, cues)


def check_difference_pixels(
    a: np.ndarray, b: np.ndarray, is_none: bool, cues: list[dict], within: tuple[int, int, int, int] | None = None,
    size: tuple[int, int] | None = None,
) -> float:
    """The pixel checks. `within` limits the comparison to a box the caller knows holds every
    possible change (an edit re-renders only its dirty boxes), which makes checking cheap. With
    `size`, the images' (height, width), `a` and `b` are only the part `within` of them (a box
    inside the image): the same verdict, before anyone draws the whole images."""
    if a.shape != b.shape:
        raise Rejected("size_mismatch", f"{a.shape} vs {b.shape}")
    if size is None:
        h, w = a.shape[:2]
        x0, y0, bw, bh = within or (0, 0, w, h)
        x0, y0 = max(x0, 0), max(y0, 0)
        a, b = a[y0 : y0 + bh, x0 : x0 + bw], b[y0 : y0 + bh, x0 : x0 + bw]
    else:
        (h, w), (x0, y0) = size, within[:2]
    found = differing(a, b)
    if is_none:
        if found is not None or cues:
            raise Rejected("none_pair_not_identical")
        return 0.0
    if found is None:
        raise Rejected("no_change")
    diff, top, left = found
    allowed = _in_cues(diff.shape, cues, (x0 + left, y0 + top), max_area=MAX_AREA * h * w)
    if (diff & ~allowed).any():
        raise Rejected("change_outside_cues")
    area = float(diff.sum()) / (h * w)
    if area >= MAX_AREA:
        raise Rejected("change_too_large", f"{area:.3f}")
    ys, xs = np.nonzero(diff)  # only changed pixels are compared in depth: memory stays small
    ys, xs = ys + top, xs + left
    step = np.abs(a[ys, xs].astype(np.int16) - b[ys, xs].astype(np.int16)).max(axis=1)
    if int((step >= VISIBLE_STEP).sum()) < MIN_VISIBLE_PIXELS:
        raise Rejected("change_not_visible")
    return area


def check_unchanged(a: np.ndarray, b: np.ndarray, boxes) -> None:
    """The pixels inside every box (clipped to the image) are the same in both images."""
    h, w = a.shape[:2]
    for x, y, bw, bh in boxes:
        x0, y0, x1, y1 = max(x, 0), max(y, 0), min(x + bw, w), min(y + bh, h)
        if x1 > x0 and y1 > y0 and not np.array_equal(a[y0:y1, x0:x1], b[y0:y1, x0:x1]):
            raise Rejected("decoy_changed")


def check_change_within(a: np.ndarray, b: np.ndarray, cues: list[dict], box: tuple[int, int, int, int]) -> None:
    """Two shots through one camera (`a`, `b`: the part `box` of each) differ only inside the
    cues as that camera maps them: the cue boxes still hold the change."""
    found = differing(a, b)
    if found is None:
        return
    diff, top, left = found
    if (diff & ~_in_cues(diff.shape, cues, (box[0] + left, box[1] + top))).any():
        raise Rejected("shot_change_outside_cues")


def differing(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, int, int] | None:
    """Where two HxWx3 images differ in some channel, as a mask over the smallest box that holds
    every difference, with that box's top and left; None where they are identical. The box is
    found from whole rows and columns first (numpy reduces a contiguous row far faster than a
    pixel's three channels), so the per-pixel work covers the change, not the image."""
    ne = a != b
    rows = np.flatnonzero(ne.any(axis=(1, 2)))
    if not len(rows):
        return None
    band = ne[rows[0] : rows[-1] + 1]
    cols = np.flatnonzero(band.any(axis=(0, 2)))
    box = band[:, cols[0] : cols[-1] + 1]
    return box[..., 0] | box[..., 1] | box[..., 2], int(rows[0]), int(cols[0])


def _in_cues(shape: tuple[int, int], cues: list[dict], origin: tuple[int, int],
             max_area: float | None = None) -> np.ndarray:
    """Which pixels of a mask of `shape` placed at `origin` (x, y, image coordinates) a cue box
    holds; with `max_area`, a cue box covering that many pixels or more is rejected first."""
    allowed = np.zeros(shape, bool)
    ox, oy = origin
    for cue in cues:
        x, y, w, h = cue["bbox"]
        if max_area is not None and w * h >= max_area:
            raise Rejected("cue_too_large")
        allowed[max(y - oy, 0) : max(y - oy + h, 0), max(x - ox, 0) : max(x - ox + w, 0)] = True
    return allowed


def check_shots_written(pngs: tuple[bytes, bytes], shots: tuple[np.ndarray, np.ndarray], cues: list[dict]) -> None:
    """The encoded pair decodes to what the cameras took, the two images are not one, and every
    cue box lies inside its image."""
    for png, shot, name in zip(pngs, shots, ("image_a", "image_b")):
        if not decodes_to(png, shot, name):
            raise Rejected("shot_not_written", name)
    if pngs[0] == pngs[1]:
        raise Rejected("shots_identical")
    for cue in cues:
        h, w = shots[cue["image"]].shape[:2]
        x, y, bw, bh = cue["bbox"]
        if x < 0 or y < 0 or bw <= 0 or bh <= 0 or x + bw > w or y + bh > h:
            raise Rejected("cue_outside_image", cue["label"])


# ---- commonality track -------------------------------------------------------------------

CANONICAL_SIZE = 64  # objects are compared at one size, upright, unlit, so only their looks count


def _canonical(obj) -> np.ndarray:
    patch = object_patch(dataclasses.replace(obj, uid=0, cx=0, cy=0, size=CANONICAL_SIZE, rotation=0, shading=0.3,
                                             shadow=0.0))
    return patch.rgb * patch.alpha[..., None]


def same_instance(a, b) -> bool:
    """True when two placed objects are drawn as one physical instance (identical looks at one
    size and pose), False when they visibly differ; a difference too small to see is rejected."""
    if a.name != b.name:
        return False
    pa, pb = _canonical(a), _canonical(b)
    if pa.shape != pb.shape:
        return False
    differing = int((np.abs(pa - pb).max(axis=2) >= VISIBLE_STEP).sum())
    if differing == 0:
        return True
    if differing < MIN_VISIBLE_PIXELS:
        raise Rejected("instances_too_alike", a.name)
    return False


def check_cues_drawn(images: tuple[np.ndarray, np.ndarray], bare: tuple[np.ndarray, np.ndarray],
                     cues: list[dict]) -> None:
    """Each cue box lies in its image, covers under 5% of it and really shows an object there:
    enough pixels stand clearly off the bare surface."""
    for cue in cues:
        pixels, surface = images[cue["image"]], bare[cue["image"]]
        h, w = pixels.shape[:2]
        x, y, bw, bh = cue["bbox"]
        if x < 0 or y < 0 or x + bw > w or y + bh > h or bw <= 0 or bh <= 0:
            raise Rejected("cue_outside_image")
        if bw * bh >= MAX_AREA * h * w:
            raise Rejected("cue_too_large")
        step = np.abs(pixels[y : y + bh, x : x + bw].astype(np.int16)
                      - surface[y : y + bh, x : x + bw].astype(np.int16)).max(axis=2)
        if int((step >= VISIBLE_STEP).sum()) < MIN_VISIBLE_PIXELS:
            raise Rejected("shared_object_not_visible", cue["label"])
