"""Pure generation: (task, row index, build options) -> one checked row, images included.

Seeds are derived from the root seed, split, task, row index and attempt, so any row can
be regenerated alone (by a worker process, a resumed build or another engine) and the same
options always give the same bytes.
"""

from __future__ import annotations

import importlib
from collections import Counter
from dataclasses import dataclass, field

import numpy as np

from benchkit import __version__
from benchkit.imageio import encode_png
from benchkit.render import render, render_edit
from benchkit.scenegen import SceneConfig, random_scene
from dicobench.checks import Rejected, check_difference_pair, check_difference_pixels, check_options
from dicobench.schema import LETTERS, NONE_OPTIONS, QUESTIONS, TASKS, track_of

SPLITS = {"test": 0, "train": 1}
MAX_ATTEMPTS = 40


@dataclass(frozen=True)
class BuildOptions:
    per_task: int = 96
    seed: int = 0
    split: str = "test"
    compress_level: int = 1
    scene: SceneConfig = field(default_factory=SceneConfig)


def sample_seed(root: int, split: str, task: str, index: int, attempt: int) -> int:
    ss = np.random.SeedSequence([root, SPLITS[split], TASKS.index(task), index, attempt])
    return int(ss.generate_state(1, np.uint64)[0] >> np.uint64(1))


def letter_schedule(task: str, n: int, root: int, split: str) -> list[str]:
    """Correct letters for rows 0..n-1: every letter n/5 times (+-1), in seeded order."""
    rng = np.random.default_rng([root, SPLITS[split], TASKS.index(task), 7919])
    cycles, rest = divmod(n, len(LETTERS))
    letters = list(LETTERS) * cycles + list(rng.permutation(LETTERS)[:rest])
    return [str(letters[i]) for i in rng.permutation(n)]


def row_id(task: str, split: str, root: int, index: int) -> str:
    return f"{task}-{split}-s{root}-{index:05d}"


def _task_module(task: str):
    return importlib.import_module(f"dicobench.tasks.{task}")


def _cues(edit) -> list[dict]:
    return [{"image": c.image, "bbox": [int(v) for v in c.bbox], "label": c.label} for c in edit.cues]


def _difference_row(task: str, seed: int, letter: str, opts: BuildOptions) -> tuple[dict, int]:
    rng = np.random.default_rng(seed)
    base = random_scene(rng, opts.scene)
    edits = _task_module(task).propose(rng, base)
    if edits is None:
        raise Rejected("too_few_edits")
    track = track_of(task)
    options = [e.text for e in edits] + [NONE_OPTIONS[track]]
    check_options(options, [e.subject for e in edits], NONE_OPTIONS[track])
    pixels_a = render(base)
    # Every option's edit must pass the pixel checks, not only the answer's: a check that
    # rejected some kinds of edit only when they are the answer would leak it to the text.
    edited = []
    for edit in edits:
        pixels = render_edit(pixels_a, edit.scene, list(edit.dirty))
        check_difference_pixels(pixels_a, pixels, False, _cues(edit))
        edited.append(pixels)
    png_a = encode_png(pixels_a, opts.compress_level)
    if letter == "E":
        png_b, cues = png_a, []
    else:
        k = LETTERS.index(letter)
        png_b, cues = encode_png(edited[k], opts.compress_level), _cues(edits[k])
    area = check_difference_pair(png_a, png_b, letter == "E", cues)
    row = {
        "track": track,
        "task": task,
        "image_a": {"bytes": png_a, "path": None},
        "image_b": {"bytes": png_b, "path": None},
        "question": QUESTIONS[track],
        "options": options,
        "answer": letter,
        "cues": cues,
        "changed_area": area,
        "source": f"procedural:{seed}",
        "seed": seed,
        "generator": f"dicobench {__version__}; procedural scene engine; {task} edits",
    }
    return row, max(base.width, base.height)


@dataclass
class RowInfo:
    """What the build report needs about a row besides the row itself."""

    rejections: Counter
    long_side: int


def generate_row(task: str, index: int, letter: str, opts: BuildOptions) -> tuple[dict, RowInfo]:
    """The checked row for (task, index); rejected attempts move on to the next seed."""
    rejections: Counter = Counter()
    for attempt in range(MAX_ATTEMPTS):
        seed = sample_seed(opts.seed, opts.split, task, index, attempt)
        try:
            row, long_side = _difference_row(task, seed, letter, opts)
        except Rejected as rej:
            rejections[rej.reason] += 1
            continue
        row["id"] = row_id(task, opts.split, opts.seed, index)
        return row, RowInfo(rejections, long_side)
    raise RuntimeError(f"{task} row {index}: no valid sample in {MAX_ATTEMPTS} attempts ({dict(rejections)})")
