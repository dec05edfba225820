"""Checks run on the decoded bytes that will be written, before a row is accepted.

A failed check rejects the sample (it is regenerated from the next seed) and is counted
by reason, so a build reports how often each guarantee had to be enforced.
"""

from __future__ import annotations

import numpy as np

from benchkit.imageio import decode

MAX_AREA = 0.05  # the paper's bound on a changed region
MIN_VISIBLE_PIXELS = 150  # at least this many pixels change clearly...
VISIBLE_STEP = 24  # ...by this many levels in some channel


class Rejected(Exception):
    """A sample that must not be written; `reason` is a short code for the build report."""

    def __init__(self, reason: str, detail: str = ""):
        super().__init__(f"{reason}: {detail}" if detail else reason)
        self.reason = reason


def check_options(options: list[str], subjects: list[str], none_option: str) -> None:
    if len(options) != 5 or options[4] != none_option:
        raise Rejected("options_shape")
    if len(set(options)) != 5:
        raise Rejected("options_not_distinct")
    if len(set(subjects)) != 4:
        raise Rejected("subjects_not_distinct")


def check_difference_pair(png_a: bytes, png_b: bytes, is_none: bool, cues: list[dict]) -> float:
    """Verify the encoded pair as it will be written; return the fraction of the image that differs."""
    return check_difference_pixels(decode(png_a, "image_a"), decode(png_b, "image_b"), is_none, cues)


def check_difference_pixels(a: np.ndarray, b: np.ndarray, is_none: bool, cues: list[dict]) -> float:
    if a.shape != b.shape:
        raise Rejected("size_mismatch", f"{a.shape} vs {b.shape}")
    step = np.abs(a.astype(np.int16) - b.astype(np.int16)).max(axis=2)
    diff = step > 0
    if is_none:
        if diff.any() or cues:
            raise Rejected("none_pair_not_identical")
        return 0.0
    if not diff.any():
        raise Rejected("no_change")
    allowed = np.zeros(diff.shape, bool)
    h, w = diff.shape
    for cue in cues:
        x, y, bw, bh = cue["bbox"]
        if bw * bh >= MAX_AREA * h * w:
            raise Rejected("cue_too_large")
        allowed[max(y, 0) : y + bh, max(x, 0) : x + bw] = True
    if (diff & ~allowed).any():
        raise Rejected("change_outside_cues")
    area = float(diff.mean())
    if area >= MAX_AREA:
        raise Rejected("change_too_large", f"{area:.3f}")
    if int((step >= VISIBLE_STEP).sum()) < MIN_VISIBLE_PIXELS:
        raise Rejected("change_not_visible")
    return area
