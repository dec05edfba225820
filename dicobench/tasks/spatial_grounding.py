"""Spatial grounding: one object of each image stands at the same relative place.

Both images are split into a 6x6 grid; every object lies wholly inside one cell. Image a
fills half the cells and image b the other half, so no cell is occupied in both. The four
options pair an object of image a that is alone in its cell with an object of image b two or
more cells away, choosing pairs whose names are semantically far apart (lowest text-embedding
similarity, as the paper ranks grid captions) so meaning gives no hint. A candidate moves its
image-b object into its partner's cell: with the audited catalogue's rules to the partner's own
place (relative to the canvas), with the first release's anywhere in the cell.

Two or more cells apart, a wrong pair is plainly out of place. In the difficulty's share of rows
(`near_misses`) each option's image-b object stands instead one cell (a sixth of the side) off its
partner's place, along a row or a column, in a cell image a leaves empty: plainly elsewhere when
measured, close enough that a glance has to judge positions. A glance still finds which partner's
place holds an object; so in the share of rows with glance doubles (`doubles`, as for category)
image b holds, where each other option's object would stand, a stand-in of another kind whose
outline shrunk is much like it, in its look (and the answer's own stand-in where its object stood),
the options' objects drawn at the cue scale: at a glance every option then seems true, while with
zoom only the answer's object is the kind named. The E pair holds no stand-in, so it shares nothing.
`propose(rng, cfg)` and `commonalities(a, b)` follow `dicobench.sources.procedural`.
"""

from __future__ import annotations

import dataclasses
from collections import defaultdict
from collections.abc import Iterable

import numpy as np

from dicobench.checks import Rejected
from dicobench.kit.scene.audit import glance_doubles
from dicobench.kit.scene.catalogue import load_catalogue, read_as
from dicobench.kit.scene.embeddings import shipped
from dicobench.kit.scene.geometry import Box, centre
from dicobench.kit.scene.model import PlacedObject, Scene
from dicobench.kit.scene.random_scenes import (
    SceneConfig,
    cue_sized,
    drawable,
    inside,
    legible_look,
    overlaps,
    random_scene,
    surface_colour,
)
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
from dicobench.tasks import NUM_EDITS, drawn
from dicobench.tasks.category import kept_apart

GRID = 6
MARGIN = 0.06  # of a cell: objects keep this far from grid lines, so their cell is unambiguous
FAR_QUANTILE = 0.25  # options come from the least similar quarter of the possible pairs
TRIES = 12
STEPS = ((0, 1), (0, -1), (1, 0), (-1, 0))  # one cell along a row or a column: a near miss's offset

Cell = tuple[int, int]
Pairs = list[tuple[PlacedObject, PlacedObject]]  # (image a's object, image b's) for options A-D


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
          occupied: list[Box], shift: Cell = (0, 0)) -> PlacedObject | None:
    """`template` centred where `partner` stands in its scene, relative to the canvas, moved `shift`
    cells (rows, columns; no draw taken), at its own size or shrunk to the partner's where that is
    what fits `cell`. Within a cell a match could stand a sixth of the width off, which a careful
    reader argued; at the same relative place "the same relative position" is what is drawn."""
    largest = _fitted_size(template, *cell_box(cell, scene.width, scene.height)[2:])
    centre_x = round((partner.cx / partner_scene.width + shift[1] / GRID) * scene.width)
    centre_y = round((partner.cy / partner_scene.height + shift[0] / GRID) * scene.height)
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


def _pairs(rng: np.random.Generator, scene_a: Scene, scene_b: Scene, near: bool,
           kinds_b: frozenset[str] | None) -> tuple[Pairs, Scene] | None:
    """Four (a, b) pairs, a alone in its cell, b among `kinds_b` (None: any), names far apart, and the
    image b they stand in: b two or more cells away, or (`near`) moved to a near miss of a's place
    (`_one_cell_off`)."""
    cells_a = _cells(scene_a)
    lone = [objs[0] for objs in cells_a.values() if len(objs) == 1]
    objs_b = [o for o in scene_b.objects if kinds_b is None or o.name in kinds_b]
    if len(lone) < NUM_EDITS or len(objs_b) < NUM_EDITS:
        return None
    sims = shipped().similarity([o.name for o in lone], [o.name for o in objs_b])
    where_a = {o.uid: cell_of(footprint(o), scene_a.width, scene_a.height) for o in lone}
    where_b = {o.uid: cell_of(footprint(o), scene_b.width, scene_b.height) for o in objs_b}
    valid = [
        (i, j) for i, a in enumerate(lone) for j, b in enumerate(objs_b)
        if near or max(abs(where_a[a.uid][0] - where_b[b.uid][0]), abs(where_a[a.uid][1] - where_b[b.uid][1])) >= 2
    ]
    if not valid:
        return None
    cut = np.quantile([sims[i, j] for i, j in valid], FAR_QUANTILE)
    far = [valid[k] for k in rng.permutation(len(valid)) if sims[valid[k]] <= cut]
    chosen, used_a, used_b = [], set(), set()
    for i, j in far:
        if i in used_a or j in used_b:
            continue
        b = _one_cell_off(rng, scene_a, scene_b, lone[i], objs_b[j], cells_a.keys()) if near else objs_b[j]
        if b is None:
            continue
        scene_b = scene_b.replace_object(b.uid, b)
        chosen.append((lone[i], b))
        used_a.add(i)
        used_b.add(j)
        if len(chosen) == NUM_EDITS:
            return chosen, scene_b
    return None


def _one_cell_off(rng: np.random.Generator, scene_a: Scene, scene_b: Scene, a: PlacedObject, b: PlacedObject,
                  taken: Iterable[Cell]) -> PlacedObject | None:
    """`b` where `a` stands, relative to the canvas, moved one cell along a row or a column (a sixth
    of the side: plainly elsewhere when measured, close enough that a glance has to judge it) into a
    cell image a leaves empty (not in `taken`), so that no pair shares a cell; None where no such spot
    is free. Nor does it stand where `a` does in pixels (`_apart_in_pixels`)."""
    row, col = cell_of(footprint(a), scene_a.width, scene_a.height)
    others = [footprint(o) for o in scene_b.objects if o.uid != b.uid]
    for k in rng.permutation(len(STEPS)):
        shift = STEPS[k]
        cell = (row + shift[0], col + shift[1])
        if 0 <= min(cell) and max(cell) < GRID and cell not in taken:
            moved = _onto(scene_b, b, a, scene_a, cell, others, shift)
            if moved is not None and _apart_in_pixels(a, moved, scene_b.width, scene_b.height):
                return moved
    return None


def _apart_in_pixels(a: PlacedObject, b: PlacedObject, width: int, height: int) -> bool:
    """Whether `b` stands at least half a cell of image b (`width` x `height`) from `a`'s pixel
    position along some axis: where the images' shapes differ, a cell off in relative terms can land
    on the same pixels (a careful reader laid a 1536 px tall image over a 2035 px one and found a
    wrong pair in place)."""
    return max(abs(b.cx - a.cx) / width, abs(b.cy - a.cy) / height) >= 0.5 / GRID


def _stand_ins(rng: np.random.Generator, pairs: Pairs, placed: list[PlacedObject], places: list[Cell],
               scene_b: Scene, apart: frozenset[str], cfg: SceneConfig
               ) -> tuple[list[PlacedObject], list[PlacedObject]] | None:
    """For each option's image-b object, a stand-in of another kind that a glance takes for it
    (`glance_doubles`) and no object of either image may be read as (not in `apart`), in its look:
    drawn where the candidate would put the object (`placed`, in its partner's cell of `places`) and,
    for a candidate's own, where the object stood. None where a pair has no such kind that fits both
    spots with its look seen there."""
    version, surface, uid = cfg.difficulty.catalogue, surface_colour(scene_b), scene_b.next_uid()
    taken: set[str] = set()
    at_place, away = [], []
    for k, ((_, b), moved, place) in enumerate(zip(pairs, placed, places)):
        others = [footprint(o) for o in scene_b.objects if o.uid != b.uid]
        cells = (place, cell_of(footprint(b), scene_b.width, scene_b.height))
        pool = sorted(glance_doubles(b.name, version) - apart - taken)
        for idx in rng.permutation(len(pool)):
            spots = [dataclasses.replace(obj, name=pool[idx], uid=uid + k) for obj in (moved, b)]
            if all(drawable(o, surface, cfg) and _fits(scene_b, o, cell, others)
                   for o, cell in zip(spots, cells)):
                taken.add(pool[idx])
                at_place.append(spots[0])
                away.append(spots[1])
                break
        else:
            return None
    return at_place, away


def propose(rng: np.random.Generator, cfg: SceneConfig) -> ScenePair | None:
    version = cfg.difficulty.catalogue
    near = drawn(rng, cfg.difficulty.near_misses)
    doubled = drawn(rng, cfg.difficulty.doubles)
    # 1. two scenes on complementary halves of the grid
    empty = dataclasses.replace(cfg, min_objects=0, max_objects=0)
    cells = [(int(k) // GRID, int(k) % GRID) for k in rng.permutation(GRID * GRID)]
    half = len(cells) // 2
    scene_a = _fill(rng, random_scene(rng, empty), cells[:half], cfg, frozenset())
    scene_b = _fill(rng, other_scene(rng, empty, scene_a), cells[half:], cfg, unreadable(names(scene_a), version))
    # 2. the options' pairs: in the doubles' share of rows only objects a glance may take a kind neither
    # image holds for; near misses where the scene has room, else two or more cells apart
    apart = kept_apart(scene_a, version) | kept_apart(scene_b, version) if doubled else frozenset()
    kinds_b = (frozenset(o.name for o in scene_b.objects if glance_doubles(o.name, version) - apart)
               if doubled else None)
    paired = near and _pairs(rng, scene_a, scene_b, True, kinds_b)
    if not paired:
        paired = _pairs(rng, scene_a, scene_b, False, kinds_b)
    if paired is None:
        return None
    pairs, scene_b = paired
    if doubled:  # the options' image-b objects at the cue scale, where their stand-ins pass best at a glance
        pairs = [(a, legible_look(cue_sized(b, cfg), surface_colour(scene_b), cfg)) for a, b in pairs]
        for _, b in pairs:
            scene_b = scene_b.replace_object(b.uid, b)
    # 3. each option's object on its partner's place, and the stand-ins
    places = [cell_of(footprint(a), scene_a.width, scene_a.height) for a, _ in pairs]
    placed = []
    for (a, b), cell in zip(pairs, places):
        others = [footprint(o) for o in scene_b.objects if o.uid != b.uid]
        # the audited rules put the match at its partner's place; the first release anywhere in the cell
        placed.append(_onto(scene_b, b, a, scene_a, cell, others) if version == "audited"
                      else _into_cell(rng, scene_b, b, cell, others))
    if None in placed:
        return None
    stand_ins = _stand_ins(rng, pairs, placed, places, scene_b, apart, cfg) if doubled else None
    if doubled and stand_ins is None:
        return None
    # 4. a candidate per option: its object on the place
    candidates = []
    for i, ((a, b), moved, cell) in enumerate(zip(pairs, placed, places)):
        shown, dirty = scene_b.replace_object(b.uid, moved), [footprint(b), footprint(moved)]
        if stand_ins:  # every other option's stand-in where its object would stand, its own where it stood
            at_place, away = stand_ins
            for extra in [away[i]] + at_place[:i] + at_place[i + 1:]:
                shown, dirty = shown.add(obj=extra), dirty + [footprint(extra)]
        candidates.append(SceneCandidate(
            text=f"The {a.name} in image 1 and the {b.name} in image 2 are at the same relative position.",
            subject=f"{a.name} / {b.name}",
            scene_b=shown,
            dirty=tuple(dirty),
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
