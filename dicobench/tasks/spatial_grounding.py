"""Spatial grounding: one object of each image stands at the same relative place.

Both images are split into a 6x6 grid; every object lies wholly inside one cell. Image a
fills half the cells and image b the other half, so no cell is occupied in both. The four
options pair an object of image a that is alone in its cell with an object of image b two or
more cells away, choosing pairs whose names are semantically far apart (lowest text-embedding
similarity, as the paper ranks grid captions) so meaning gives no hint. A candidate moves its
image-b object into its partner's cell: with the audited catalogue's rules to the partner's own
place (relative to the canvas), with the first release's anywhere in the cell.
`propose(rng, cfg)` and `commonalities(a, b)` follow `dicobench.sources.procedural`.
"""

from __future__ import annotations

import dataclasses
from collections import defaultdict

import numpy as np

from dicobench.checks import Rejected
from dicobench.kit.scene.catalogue import load_catalogue, read_as
from dicobench.kit.scene.embeddings import shipped
from dicobench.kit.scene.geometry import Box, centre
from dicobench.kit.scene.model import PlacedObject, Scene
from dicobench.kit.scene.random_scenes import SceneConfig, inside, overlaps, random_scene
from dicobench.kit.scene.render import footprint
from dicobench.sources.procedural import (
    SceneCandidate,
    ScenePair,
    cue_pair,
    names,
    new_object,
    other_scene,
    scene_commonality,
    unreadable,
)
from dicobench.tasks import NUM_EDITS

GRID = 6
MARGIN = 0.06  # of a cell: objects keep this far from grid lines, so their cell is unambiguous
FAR_QUANTILE = 0.25  # options come from the least similar quarter of the possible pairs
TRIES = 12

Cell = tuple[int, int]


def cell_box(cell: Cell, width: int, height: int) -> Box:
    r, c = cell
    x0, x1 = c * width // GRID, (c + 1) * width // GRID
    y0, y1 = r * height // GRID, (r + 1) * height // GRID
    return (x0, y0, x1 - x0, y1 - y0)


def cell_of(box: Box, width: int, height: int) -> Cell | None:
    """The grid cell holding the whole box (with a margin), or None when it crosses a line."""
    x, y, w, h = box
    mid_x, mid_y = centre(box)
    r, c = min(int(mid_y * GRID // height), GRID - 1), min(int(mid_x * GRID // width), GRID - 1)
    cx, cy, cw, ch = cell_box((r, c), width, height)
    mx, my = MARGIN * cw, MARGIN * ch
    if x >= cx + mx and y >= cy + my and x + w <= cx + cw - mx and y + h <= cy + ch - my:
        return (r, c)
    return None


def _label(cell: Cell) -> str:
    return f"row {cell[0] + 1}, column {cell[1] + 1} of a {GRID}x{GRID} grid"


def _into_cell(rng: np.random.Generator, scene: Scene, template: PlacedObject, cell: Cell,
               occupied: list[Box]) -> PlacedObject | None:
    """`template` at a random free spot wholly inside `cell`, shrunk to fit the cell if need be."""
    cx, cy, cw, ch = cell_box(cell, scene.width, scene.height)
    size = _fitted_size(template, cw, ch)
    for _ in range(TRIES):
        obj = dataclasses.replace(template, size=size, cx=int(cx + rng.uniform(0.2, 0.8) * cw),
                                  cy=int(cy + rng.uniform(0.2, 0.8) * ch))
        if _fits(scene, obj, cell, occupied):
            return obj
    return None


def _fitted_size(template: PlacedObject, cell_w: int, cell_h: int) -> int:
    """`template`'s size, shrunk to half the cell's shorter side where it is larger."""
    return min(template.size, int(0.5 * min(cell_w, cell_h)))


def _fits(scene: Scene, obj: PlacedObject, cell: Cell, occupied: list[Box]) -> bool:
    box = footprint(obj)
    return (cell_of(box, scene.width, scene.height) == cell and inside(box, scene.width, scene.height)
            and not overlaps(box, occupied))


def _onto(scene: Scene, template: PlacedObject, partner: PlacedObject, partner_scene: Scene, cell: Cell,
          occupied: list[Box]) -> PlacedObject | None:
    """`template` centred where `partner` stands in its scene, relative to the canvas (no draw
    taken), at its own size or shrunk to the partner's where that is what fits the cell. Within a
    cell a match could stand a sixth of the width off, which a careful reader argued; at the same
    relative place "the same relative position" is what is drawn."""
    largest = _fitted_size(template, *cell_box(cell, scene.width, scene.height)[2:])
    centre_x = round(partner.cx * scene.width / partner_scene.width)
    centre_y = round(partner.cy * scene.height / partner_scene.height)
    for size in dict.fromkeys((largest, min(largest, partner.size))):
        obj = dataclasses.replace(template, size=size, cx=centre_x, cy=centre_y)
        if _fits(scene, obj, cell, occupied):
            return obj
    return None


def _fill(rng: np.random.Generator, scene: Scene, cells: list[Cell], cfg: SceneConfig,
          exclude: frozenset[str]) -> Scene:
    """One or two uniquely named objects in each of `cells`."""
    pool = [e.name for e in load_catalogue(cfg.difficulty.catalogue) if e.name not in exclude]
    queue = [pool[i] for i in rng.permutation(len(pool))]
    occupied: list[Box] = []
    for cell in cells:
        for _ in range(int(rng.integers(1, 3))):
            if not queue:
                return scene
            obj = _into_cell(rng, scene, new_object(rng, scene, queue[-1], cfg), cell, occupied)
            if obj is not None:
                queue.pop()
                scene = scene.add(obj=obj)
                occupied.append(footprint(obj))
    return scene


def _pairs(rng: np.random.Generator, scene_a: Scene, scene_b: Scene) -> list[tuple[PlacedObject, PlacedObject]] | None:
    """Four (a, b) pairs, a alone in its cell, b two or more cells away, names far apart."""
    cells_a = _cells(scene_a)
    lone = [objs[0] for objs in cells_a.values() if len(objs) == 1]
    objs_b = list(scene_b.objects)
    if len(lone) < NUM_EDITS or len(objs_b) < NUM_EDITS:
        return None
    sims = shipped().similarity([o.name for o in lone], [o.name for o in objs_b])
    where_a = {o.uid: cell_of(footprint(o), scene_a.width, scene_a.height) for o in lone}
    where_b = {o.uid: cell_of(footprint(o), scene_b.width, scene_b.height) for o in objs_b}
    valid = [
        (i, j) for i, a in enumerate(lone) for j, b in enumerate(objs_b)
        if max(abs(where_a[a.uid][0] - where_b[b.uid][0]), abs(where_a[a.uid][1] - where_b[b.uid][1])) >= 2
    ]
    if not valid:
        return None
    cut = np.quantile([sims[i, j] for i, j in valid], FAR_QUANTILE)
    far = [valid[k] for k in rng.permutation(len(valid)) if sims[valid[k]] <= cut]
    chosen, used_a, used_b = [], set(), set()
    for i, j in far:
        if i not in used_a and j not in used_b:
            chosen.append((lone[i], objs_b[j]))
            used_a.add(i)
            used_b.add(j)
            if len(chosen) == NUM_EDITS:
                return chosen
    return None


def propose(rng: np.random.Generator, cfg: SceneConfig) -> ScenePair | None:
    empty = dataclasses.replace(cfg, min_objects=0, max_objects=0)
    cells = [(int(k) // GRID, int(k) % GRID) for k in rng.permutation(GRID * GRID)]
    half = len(cells) // 2
    scene_a = _fill(rng, random_scene(rng, empty), cells[:half], cfg, frozenset())
    scene_b = _fill(rng, other_scene(rng, empty, scene_a), cells[half:], cfg,
                    unreadable(names(scene_a), cfg.difficulty.catalogue))
    pairs = _pairs(rng, scene_a, scene_b)
    if pairs is None:
        return None
    candidates = []
    for a, b in pairs:
        cell = cell_of(footprint(a), scene_a.width, scene_a.height)
        others = [footprint(o) for o in scene_b.objects if o.uid != b.uid]
        # the audited rules put the match at its partner's place; the first release anywhere in the cell
        moved = (_onto(scene_b, b, a, scene_a, cell, others) if cfg.difficulty.catalogue == "audited"
                 else _into_cell(rng, scene_b, b, cell, others))
        if moved is None:
            return None
        candidates.append(SceneCandidate(
            text=f"The {a.name} in image 1 and the {b.name} in image 2 are at the same relative position.",
            subject=f"{a.name} / {b.name}",
            scene_b=scene_b.replace_object(b.uid, moved),
            dirty=(footprint(b), footprint(moved)),
            cues=cue_pair(a, moved, f"{a.name}: {_label(cell)}", f"{b.name}: {_label(cell)}"),
        ))
    return ScenePair(scene_a, scene_b, tuple(candidates), note=f"pairs ranked by {shipped().model}")


def _cells(scene: Scene) -> dict[Cell, list[PlacedObject]]:
    out: dict[Cell, list[PlacedObject]] = defaultdict(list)
    for obj in scene.objects:
        cell = cell_of(footprint(obj), scene.width, scene.height)
        if cell is None:
            raise Rejected("object_across_grid_line", obj.name)
        out[cell].append(obj)
    return out


def commonalities(scene_a: Scene, scene_b: Scene, version: str = "first-release") -> frozenset[str]:
    """Every (a, b) pair a person may see in corresponding cells of the two grids: each object may be
    read as its name or as any look-alike's."""
    cells_a, cells_b = _cells(scene_a), _cells(scene_b)
    return frozenset(f"{x} / {y}" for cell in cells_a.keys() & cells_b.keys() for a in cells_a[cell]
                     for b in cells_b[cell] for x in read_as(a.name, version) for y in read_as(b.name, version))


proposal = scene_commonality(propose, commonalities)
