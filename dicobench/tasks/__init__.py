"""Task generators, one module per task, each registered in `dicobench.tasks.registry`.

Each module's `proposal` is its procedural proposer (see `dicobench.sources.procedural`): difference
tasks build it from `propose(rng, scene, cfg) -> list[SceneEdit] | Staged | None`, four edits of one
base scene on four different objects (options A-D); commonality tasks from
`propose(rng, cfg) -> ScenePair | None` and `commonalities(scene_a, scene_b)`, what two scenes
really share, used to check every row."""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable, Iterable

if TYPE_CHECKING:  # annotations only: the registry (and `dicobench --help`) load this package without numpy
    import numpy as np

    from dicobench.editors.scene import SceneEdit, Staged
    from dicobench.kit.scene.model import PlacedObject, Scene

NUM_EDITS = 4


def collect(
    rng: np.random.Generator,
    scene: Scene,
    make: Callable[[PlacedObject, frozenset[str]], SceneEdit | None],
    candidates: Iterable[PlacedObject] | None = None,
) -> list[SceneEdit] | None:
    """Four edits whose objects (subjects and any references) are all different, or None."""
    def one(obj: PlacedObject, used: frozenset[str]) -> tuple[SceneEdit] | None:
        edit = make(obj, used)
        return None if edit is None else (edit,)

    return _gather(rng, scene, one, candidates)


def collect_pairs(
    rng: np.random.Generator,
    scene: Scene,
    make_pair: Callable[[PlacedObject, frozenset[str]], tuple[SceneEdit, SceneEdit] | None],
    candidates: Iterable[PlacedObject] | None = None,
) -> list[SceneEdit] | None:
    """Four edits as two pairs, each two mutually exclusive edits of one object (no object of one
    pair in the other), in a seeded order; or None. Seeing which object changed then leaves two
    options, and the text names each object twice, so it says nothing about which one changed."""
    edits = _gather(rng, scene, make_pair, candidates)
    return None if edits is None else [edits[i] for i in rng.permutation(NUM_EDITS)]


def _gather(rng, scene, make_group, candidates) -> list[SceneEdit] | None:
    """The objects in a seeded order, each offered to `make_group` (its edits, or None) until four
    edits touch no object twice; None if the objects run out first."""
    objects = list(candidates if candidates is not None else scene.objects)
    used: set[str] = set()
    edits: list[SceneEdit] = []
    for idx in rng.permutation(len(objects)):
        obj = objects[idx]
        if obj.name in used:
            continue
        group = make_group(obj, frozenset(used))
        if group is None:
            continue
        touched = set().union(*(e.touched for e in group))
        if used & touched:
            continue
        edits.extend(group)
        used |= touched
        if len(edits) == NUM_EDITS:
            return edits
    return None


def drawn(rng: np.random.Generator, share: float) -> bool:
    """Whether this row is one of the difficulty's `share` of rows; no draw is taken where the share
    is 0, so presets without the dial keep their rows."""
    return bool(share) and rng.random() < share


def in_share(rng: np.random.Generator, share: float, special: Callable[[], list[SceneEdit] | Staged | None],
             usual: Callable[[], list[SceneEdit] | None]) -> list[SceneEdit] | Staged | None:
    """A row's edits: in the difficulty's `share` of rows `special` where it finds them (four stripes
    turned, four objects flipped, four look-alike replacements, four trails turned back), else
    `usual`."""
    if drawn(rng, share):
        edits = special()
        if edits is not None:
            return edits
    return usual()


def edits_for(rng: np.random.Generator, scene: Scene, cfg, make, make_pair, candidates=None) -> list[SceneEdit] | None:
    """The row's four edits as the difficulty's `distractors` dial asks: one edit each of four
    objects (`make`), or two edits each of two (`make_pair`, in a seeded order)."""
    if cfg.difficulty.distractors == "pairs":
        return collect_pairs(rng, scene, make_pair, candidates)
    return collect(rng, scene, make, candidates)
