"""Pure generation: (task, row index, build options) -> one checked row, images included.

Seeds are derived from the root seed, split, task, row index and attempt, so any row can
be regenerated alone (by a worker process, a resumed build or another engine) and the same
options always give the same bytes. Each split owns its own range of seeds, so a train
split can never draw a base scene of the test split. `shard_rows` is the unit every engine
distributes: the rows of one shard, a pure function of the options.
"""

from __future__ import annotations

import functools
from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Iterator

import numpy as np

from dicobench import descriptors
from dicobench.checks import Rejected
from dicobench.editors.models import Backends, ModelOptions
from dicobench.kit.engines import driver
from dicobench.kit.errors import UserError
from dicobench.kit.io.row_digest import row_digest
from dicobench.kit.io.shards import shard_ranges
from dicobench.kit.people.decisions import REVIEW_REJECTION, rejects
from dicobench.kit.photos.model import SizePolicy
from dicobench.kit.scene.camera import CameraBounds
from dicobench.kit.scene.random_scenes import SceneConfig
from dicobench.kit.scene.render import clear_caches
from dicobench.rows import Inputs, Proposal, make_row, pick
from dicobench.schema import LETTERS, TASKS
from dicobench.tasks.registry import get_task

if TYPE_CHECKING:
    from dicobench.kit.photos.annotate import AnnotateOptions

SPLITS = driver.SPLITS
SEED_BITS = 62  # each split owns 2**62 seeds of the non-negative int64 `seed` column
# attempts a row gets before the build stops: a category row at `hard` is the hardest to draw (about 9%
# of its attempts pass every check since every such row holds glance doubles; the others share a
# look-alike across the E pair or find too few candidates), so at 200 one such row in about 3 x 10**8 fails
# where at 100 one in 17,000 did; the rows that draw keep their bytes, since each attempt's seed depends
# on its number alone
MAX_ATTEMPTS = 200


@dataclass(frozen=True)
class BuildOptions:
    per_task: int = 96
    seed: int = 0
    split: driver.Split = "test"
    compress_level: int = 1
    png_writer: str = "pillow"  # dicobench.kit.io.imageio.WRITERS; procedural builds take their difficulty's
    rows_per_shard: int = 48
    scene: SceneConfig = field(default_factory=SceneConfig)
    source: str = "procedural"  # or a photo source: folder:DIR, vstar:DIR, hf:REPO[:SPLIT]
    photos: SizePolicy = field(default_factory=SizePolicy)
    test_photos: float | None = None  # share of the source's photos held out for the test split
    models: ModelOptions = field(default_factory=ModelOptions)
    # each image shot through its own camera within these bounds (None: the clean renders)
    camera: CameraBounds | None = None
    detection: AnnotateOptions | None = None  # how the source's objects were detected


def seed_range(split: driver.Split) -> range:
    """The seeds of `split`: disjoint ranges by construction, recorded in the card."""
    return driver.code_range(SPLITS[split], SEED_BITS)


def sample_seed(root: int, split: driver.Split, task: str, index: int, attempt: int) -> int:
    ss = np.random.SeedSequence([root, SPLITS[split], TASKS.index(task), index, attempt])
    return seed_range(split).start + int(ss.generate_state(1, np.uint64)[0] >> np.uint64(64 - SEED_BITS))


def letter_schedule(task: str, n: int, root: int, split: driver.Split) -> list[str]:
    """Correct letters for rows 0..n-1: every letter n/5 times (+-1), in seeded order."""
    rng = np.random.default_rng([root, SPLITS[split], TASKS.index(task), 7919])
    cycles, rest = divmod(n, len(LETTERS))
    letters = list(LETTERS) * cycles + list(rng.permutation(LETTERS)[:rest])
    return [str(letters[i]) for i in rng.permutation(n)]


def row_id(task: str, split: driver.Split, root: int, index: int) -> str:
    return f"{task}-{split}-s{root}-{index:05d}"


@dataclass
class RowInfo:
    """What the build report needs about a row besides the row itself."""

    rejections: Counter
    long_side: int
    descriptors: dict = field(default_factory=dict)  # how hard the row is (dicobench.descriptors)


@functools.lru_cache(maxsize=2)
def photo_source(spec: str, policy: SizePolicy, split: driver.Split = "test", test_share: float | None = None):
    """The photos a split may use, opened once per process (file lists are read on opening)."""
    from dicobench.kit.photos.registry import open_source  # deferred: photos need OpenCV, scenes do not
    from dicobench.kit.photos.sources import split_photos

    return split_photos(open_source(spec, policy), split, test_share)


def row_from_seed(task: str, seed: int, letter: str, opts: BuildOptions, source=None, backends: Backends | None = None
                  ) -> tuple[dict, int]:
    """One attempt: the checked row (without its id) of `task` drawn from `seed`, and the long
    side of the images it was drawn from; `Rejected` if a check fails. `source` is the photo
    source of a photo build (default: the one `opts.source` names)."""
    row, proposal = proposed_row(task, seed, letter, opts, source, backends)
    return row, proposal.long_side


def proposed_row(task: str, seed: int, letter: str, opts: BuildOptions, source=None, backends: Backends | None = None
                 ) -> tuple[dict, Proposal]:
    """`row_from_seed`, with the proposal the row was made from."""
    spec = get_task(task)
    if opts.source == "procedural" and source is None:
        inputs = Inputs()
    else:
        source = source if source is not None else photo_source(opts.source, opts.photos, opts.split, opts.test_photos)
        inputs = Inputs(source, backends or Backends())
    proposal = spec.proposer("procedural" if inputs.source is None else "photos")(spec, seed, opts, inputs)
    return make_row(task, seed, letter, proposal, opts.compress_level, opts.camera, opts.png_writer), proposal


def describe(proposal: Proposal, track: str, letter: str) -> dict:
    """The row's difficulty descriptors: of the pixels for a difference pair, and of the scenes
    where its proposer offers them (a difference scene's clutter and decoys, a commonality pair's
    shared object and decoys); an E row has no pixel descriptors, only what its proposer says."""
    if letter == "E":
        return proposal.describe(letter, []) if proposal.describe else {}
    image_b, cues = pick(proposal, letter)
    pixels = descriptors.difference(proposal.image_a, image_b, cues) if track == "difference" else {}
    return {**pixels, **(proposal.describe(letter, cues) if proposal.describe else {})}


def generate_row(task: str, index: int, letter: str, opts: BuildOptions, backends: Backends | None = None,
                 rejected: frozenset = frozenset()) -> tuple[dict, RowInfo]:
    """The checked row for (task, index); rejected attempts move on to the next seed.
    `backends` are the models a photo build edits with; `rejected` holds the (id, seed)
    versions reviewers rejected, skipped like a failed check when their content is the one judged."""
    rejections: Counter = Counter()
    clear_caches()  # drawn patches are reused within a row only: memory stays flat
    for attempt in range(MAX_ATTEMPTS):
        seed = sample_seed(opts.seed, opts.split, task, index, attempt)
        version = (row_id(task, opts.split, opts.seed, index), seed)
        if rejects(rejected, *version, None):
            rejections[REVIEW_REJECTION] += 1  # bound by id and seed alone: nothing to make
            continue
        try:
            row, proposal = proposed_row(task, seed, letter, opts, backends=backends)
        except Rejected as rej:
            rejections[rej.reason.key] += 1
            continue
        if version in rejected and rejects(rejected, *version, row_digest(row, [row["image_a"]["bytes"],
                                                                                row["image_b"]["bytes"]])):
            rejections[REVIEW_REJECTION] += 1  # the very content a reviewer rejected
            continue
        row["id"] = row_id(task, opts.split, opts.seed, index)
        return row, RowInfo(rejections, proposal.long_side, describe(proposal, row["track"], letter))
    reasons = ", ".join(f"{k} {v}" for k, v in rejections.most_common())
    raise UserError(f"{task} row {index}: no valid sample in {MAX_ATTEMPTS} attempts ({reasons}); "
                    + ("the photos give too few usable regions or photos for this task" if opts.source != "procedural"
                       else "the options leave too little room for this task"))


def shard_rows(opts: BuildOptions, task: str, shard: int, backends=None,
               rejected: frozenset = frozenset()) -> Iterator[tuple[dict, RowInfo]]:
    """The rows of shard `shard` of `task`, in order: what every engine maps over shards."""
    letters = letter_schedule(task, opts.per_task, opts.seed, opts.split)
    for index in shard_ranges(opts.per_task, opts.rows_per_shard)[shard]:
        yield generate_row(task, index, letters[index], opts, backends, rejected)
