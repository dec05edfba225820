"""Row assembly for the difference track, shared by its four tasks.

A task module offers `propose(rng, scene) -> list[Edit] | None`: four edits of one base
scene on four different objects, the options A-D. Every edit is pixel-checked whatever the
letter, so that no rejection depends on which option is the answer; then the pair as
written is decoded and checked again.
"""

from __future__ import annotations

import importlib

import numpy as np

from benchkit.imageio import encode_png
from benchkit.render import bounding, render, render_edit
from benchkit.scenegen import random_scene
from dicobench.checks import Rejected, check_difference_pair, check_difference_pixels, check_options
from dicobench.rows import assemble, cue_dicts
from dicobench.schema import LETTERS, NONE_OPTIONS

TRACK = "difference"


def difference_row(task: str, seed: int, letter: str, opts) -> tuple[dict, int]:
    """One checked row of a difference task (opts: `dicobench.generate.BuildOptions`)."""
    rng = np.random.default_rng(seed)
    base = random_scene(rng, opts.scene)
    edits = importlib.import_module(f"dicobench.tasks.{task}").propose(rng, base)
    if edits is None:
        raise Rejected("too_few_edits")
    none_option = NONE_OPTIONS[TRACK]
    options = [e.text for e in edits] + [none_option]
    check_options(options, [e.subject for e in edits], none_option)
    pixels_a = render(base)
    # Every option's edit must pass the pixel checks, not only the answer's: a check that
    # rejected some kinds of edit only when they are the answer would leak it to the text.
    edited, cues = [], []
    for edit in edits:
        pixels = render_edit(pixels_a, edit.scene, list(edit.dirty))
        check_difference_pixels(pixels_a, pixels, False, cue_dicts(edit.cues), within=bounding(edit.dirty))
        edited.append(pixels)
        cues.append(cue_dicts(edit.cues))
    row = write_pair(task, seed, letter, opts, pixels_a, edited, cues, options, f"{task} edits")
    return row, max(base.width, base.height)


def write_pair(task: str, seed: int, letter: str, opts, pixels_a: np.ndarray, edited: list[np.ndarray],
               cues: list[list[dict]], options: list[str], made_by: str) -> dict:
    """The row once all four edits passed their checks: image b is the answer's edit (or image a
    for E), and the pair is checked again as encoded."""
    png_a = encode_png(pixels_a, opts.compress_level)
    if letter == "E":
        png_b, answer_cues = png_a, []
    else:
        k = LETTERS.index(letter)
        png_b, answer_cues = encode_png(edited[k], opts.compress_level), cues[k]
    area = check_difference_pair(png_a, png_b, letter == "E", answer_cues)
    return assemble(task, seed, png_a, png_b, options, letter, answer_cues, area, made_by)
