"""Pure generation: (task, row index, build options) -> one checked row, images included.

Seeds are derived from the root seed, split, task, row index and attempt, so any row can
be regenerated alone (by a worker process, a resumed build or another engine) and the same
options always give the same bytes.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

import numpy as np

from benchkit.render import clear_caches
from benchkit.scenegen import SceneConfig
from dicobench.checks import Rejected
from dicobench.commonality import commonality_row
from dicobench.difference import difference_row
from dicobench.schema import LETTERS, TASKS, track_of

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


@dataclass
class RowInfo:
    """What the build report needs about a row besides the row itself."""

    rejections: Counter
    long_side: int


def generate_row(task: str, index: int, letter: str, opts: BuildOptions) -> tuple[dict, RowInfo]:
    """The checked row for (task, index); rejected attempts move on to the next seed."""
    make = difference_row if track_of(task) == "difference" else commonality_row
    rejections: Counter = Counter()
    clear_caches()  # drawn patches are reused within a row only: memory stays flat
    for attempt in range(MAX_ATTEMPTS):
        seed = sample_seed(opts.seed, opts.split, task, index, attempt)
        try:
            row, long_side = make(task, seed, letter, opts)
        except Rejected as rej:
            rejections[rej.reason] += 1
            continue
        row["id"] = row_id(task, opts.split, opts.seed, index)
        return row, RowInfo(rejections, long_side)
    raise RuntimeError(f"{task} row {index}: no valid sample in {MAX_ATTEMPTS} attempts ({dict(rejections)})")
