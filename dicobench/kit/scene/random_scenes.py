"""Random scenes: canvas size, surface, lighting and non-overlapping objects, from a seed."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

from dicobench.kit.scene.catalogue import CatalogueEntry, by_name, load_catalogue
from dicobench.kit.scene.difficulty import EASY, Difficulty
from dicobench.kit.scene.geometry import Box, contains, inset
from dicobench.kit.scene.legibility import legible, misread_colours
from dicobench.kit.scene.model import PlacedObject, Scene
from dicobench.kit.scene.palette import COLOURS, clearly_different, stands_out
from dicobench.kit.scene.render import footprint
from dicobench.kit.scene.textures import KINDS, TINTS, base_colour

ASPECTS = (4 / 3, 3 / 2, 16 / 9, 1.0, 5 / 4, 16 / 10)
GAP = 8  # pixels kept free between objects' footprints, so each stays separately visible
UPRIGHT = 30  # most degrees an object turns from upright, an instance's copy too (a copy turned 50
# degrees, a fish pointing up, was read as a rocket)


@dataclass(frozen=True)
class SceneConfig:
    """What a random scene may look like. Defaults give ~2K micro-object scenes."""

    min_long_side: int = 1600
    max_long_side: int = 2048
    min_objects: int = 25
    max_objects: int = 80
    min_size: int = 34  # glyph em size: small enough to be micro, large enough to be seen
    max_size: int = 92
    max_object_area: float = 0.01  # each object's footprint, as a fraction of the image
    backgrounds: tuple[str, ...] = KINDS
    styled_fraction: float = 0.35  # objects drawn with a pattern instead of plain
    difficulty: Difficulty = EASY  # the dials beyond sizes and counts (overlap, palette, surface detail, edits)

    @classmethod
    def from_difficulty(cls, difficulty: Difficulty) -> "SceneConfig":
        """The scenes a difficulty asks for (its sizes and counts, and the dials themselves)."""
        return cls(min_long_side=difficulty.min_canvas, max_long_side=difficulty.max_canvas,
                   min_objects=difficulty.min_objects, max_objects=difficulty.max_objects,
                   min_size=difficulty.min_size, max_size=difficulty.max_size, difficulty=difficulty)


def canvas_size(rng: np.random.Generator, cfg: SceneConfig) -> tuple[int, int]:
    """Long side skewed towards the maximum (mean ~1920 for 1600-2048), varied aspect."""
    span = cfg.max_long_side - cfg.min_long_side
    long_side = cfg.max_long_side - int(rng.beta(1.2, 3.0) * span)
    short_side = int(round(long_side / ASPECTS[rng.integers(len(ASPECTS))] / 2) * 2)
    return (long_side, short_side) if rng.random() < 0.7 else (short_side, long_side)


def overlaps(box: Box, boxes, gap: int = GAP) -> bool:
    """Whether `box` comes within `gap` of any of `boxes` (a list of boxes or an N x 4 array)."""
    b = _as_boxes(boxes)
    x, y, w, h = box
    return bool(np.any((x < b[:, 0] + b[:, 2] + gap) & (b[:, 0] < x + w + gap)
                       & (y < b[:, 1] + b[:, 3] + gap) & (b[:, 1] < y + h + gap)))


def intrudes(box: Box, boxes, share: float) -> bool:
    """Whether `box` and some other box cover more than `share` of either one's width or height
    where they meet: neighbours may overlap a little, never hide each other."""
    b = _as_boxes(boxes)
    x, y, w, h = box
    ow = np.minimum(x + w, b[:, 0] + b[:, 2]) - np.maximum(x, b[:, 0])
    oh = np.minimum(y + h, b[:, 1] + b[:, 3]) - np.maximum(y, b[:, 1])
    met = (ow > 0) & (oh > 0)
    if not met.any():
        return False
    b, ow, oh = b[met], ow[met], oh[met]
    return bool(np.any(np.minimum(ow / np.minimum(w, b[:, 2]), oh / np.minimum(h, b[:, 3])) > share))


def _as_boxes(boxes) -> np.ndarray:
    """Boxes as an N x 4 integer array: a placement tests each try against all of them at once."""
    return np.asarray(boxes, np.int64).reshape(-1, 4)


def clashes(box: Box, boxes, cfg: "SceneConfig") -> bool:
    """Whether a new footprint may not go there: apart from the others (GAP), or overlapping
    them by at most the difficulty's share."""
    share = cfg.difficulty.overlap
    return intrudes(box, boxes, share) if share else overlaps(box, boxes)


def inside(box: Box, width: int, height: int, margin: int = 4) -> bool:
    """Whether `box` lies in a `width` x `height` canvas at least `margin` px from its edges."""
    return contains(inset((0, 0, width, height), margin), box)


def fitting_colours(pool, surface: tuple[int, int, int], exclude: tuple[str, ...] = (),
                    refuse: frozenset[str] = frozenset()) -> list[str]:
    """The colours of `pool`, in its order, that stand out from the surface, are clearly unlike every
    one of `exclude` and are none of `refuse`."""
    return [n for n in pool if n not in refuse and stands_out(n, surface)
            and all(clearly_different(n, e) for e in exclude)]


def pick_colour(rng: np.random.Generator, surface: tuple[int, int, int], exclude: tuple[str, ...] = (),
                palette: tuple[str, ...] = (), refuse: frozenset[str] = frozenset()) -> str:
    """A colour of `palette` (default: every named colour) that fits (`fitting_colours`); the whole
    palette when the scene's own has none that fits."""
    names = ((palette and fitting_colours(palette, surface, exclude, refuse))
             or fitting_colours(COLOURS, surface, exclude, refuse))
    return names[rng.integers(len(names))]


def place(
    rng: np.random.Generator,
    scene: Scene,
    template: PlacedObject,
    occupied: list[Box],
    cfg: SceneConfig,
    tries: int = 60,
    near: tuple[int, int, int] | None = None,
) -> PlacedObject | None:
    """`template` moved to a random free spot (optionally within `near`=(x, y, radius)).
    An object's pixels do not depend on where it stands, so its footprint is drawn once and
    moved with each try."""
    limit = cfg.max_object_area * scene.width * scene.height
    occupied = _as_boxes(occupied)
    x0, y0, w, h = footprint(template)
    dx, dy = x0 - template.cx, y0 - template.cy
    for _ in range(tries):
        if near:
            cx = int(near[0] + rng.uniform(-near[2], near[2]))
            cy = int(near[1] + rng.uniform(-near[2], near[2]))
        else:
            cx, cy = int(rng.integers(0, scene.width)), int(rng.integers(0, scene.height))
        box = (cx + dx, cy + dy, w, h)
        if w * h <= limit and inside(box, scene.width, scene.height) and not clashes(box, occupied, cfg):
            return dataclasses.replace(template, cx=cx, cy=cy)
    return None


def object_colour(rng: np.random.Generator, name: str, surface: tuple[int, int, int], cfg: SceneConfig,
                  exclude: tuple[str, ...] = (), palette: tuple[str, ...] = ()) -> str:
    """`pick_colour` for an object of `name`, never a colour in which the audited catalogue's object
    reads as another (`legibility.misread_colours`: a brown snowman is a gingerbread man). A misread
    colour is drawn again among the rest, so that scenes which draw none keep their draws."""
    colour = pick_colour(rng, surface, exclude, palette)
    misread = misread_colours(name, cfg.difficulty.catalogue)
    if colour in misread:
        colour = pick_colour(rng, surface, exclude, palette, refuse=misread)
    return colour


def random_object(rng: np.random.Generator, uid: int, entry: CatalogueEntry, surface, cfg: SceneConfig,
                  palette: tuple[str, ...] = (), unlike: tuple[str, ...] = (), cue: bool = False) -> PlacedObject:
    """A randomly drawn look of `entry`, its main colour clearly unlike the colours `unlike` names;
    at the difficulty's cue scale when `cue` (folded into it, no draw taken)."""
    colour = object_colour(rng, entry.name, surface, cfg, exclude=unlike, palette=palette)
    styled = rng.random() < cfg.styled_fraction
    style = ("outline", "striped", "dotted", "two_tone")[rng.integers(4)] if styled else "plain"
    accent = pick_colour(rng, surface, exclude=(colour,), palette=palette)
    obj = PlacedObject(
        uid=uid,
        name=entry.name,
        colour=colour,
        size=int(rng.integers(cfg.min_size, cfg.max_size + 1)),
        cx=0,
        cy=0,
        rotation=int(rng.integers(-UPRIGHT, UPRIGHT + 1)),
        style=style,
        accent=accent,
        shading=round(float(rng.uniform(0.15, 0.45)), 2),
        shadow=round(float(rng.uniform(0.25, 0.45)), 2),
    )
    return legible_look(cue_sized(obj, cfg) if cue else obj, surface, cfg)


def legible_look(obj: PlacedObject, surface, cfg: SceneConfig) -> PlacedObject:
    """`obj`, drawn plain where the audited look rules (`dicobench.kit.scene.legibility`) say a person
    would not see its pattern as the words say (no draw taken; the first release's looks stay)."""
    if cfg.difficulty.catalogue == "first-release" or legible(obj, surface):
        return obj
    return dataclasses.replace(obj, style="plain", marking=None, marking_fit=False)


def drawable(obj: PlacedObject, surface, cfg: SceneConfig) -> bool:
    """Whether the build may draw `obj` as it is: its look and its colour keep the audited rules, where
    they apply (a plain black waffle has no plainer look to fall back to, yet shows no grid)."""
    return cfg.difficulty.catalogue == "first-release" or legible(obj, surface)


def cue_sized(obj: PlacedObject, cfg: SceneConfig) -> PlacedObject:
    """`obj` at a size the difficulty's cue scale allows (folded into that range, no draw taken)."""
    limit = cfg.difficulty.cue_max_size
    if not limit or obj.size <= limit:
        return obj
    return dataclasses.replace(obj, size=cfg.min_size + (obj.size - cfg.min_size) % (limit - cfg.min_size + 1))


def surface_colour(scene: Scene) -> tuple[int, int, int]:
    return base_colour(scene.background, scene.variant)


def random_scene(rng: np.random.Generator, cfg: SceneConfig = SceneConfig(),
                 exclude_names: frozenset[str] = frozenset()) -> Scene:
    """A scene of uniquely named objects (so every option can name its object unambiguously)."""
    width, height = canvas_size(rng, cfg)
    kind = cfg.backgrounds[rng.integers(len(cfg.backgrounds))]
    scene = Scene(
        width=width,
        height=height,
        background=kind,
        variant=int(rng.integers(8)),
        tint=list(TINTS)[rng.integers(len(TINTS))],
        texture_seed=int(rng.integers(2**31)),
    )
    scene = with_surface_detail(rng, scene, cfg.difficulty)
    surface = surface_colour(scene)
    pool = [e for e in load_catalogue(cfg.difficulty.catalogue) if e.name not in exclude_names]
    order = rng.permutation(len(pool))
    target = int(rng.integers(cfg.min_objects, cfg.max_objects + 1))
    objects, occupied = [], []
    for idx in order:
        if len(objects) == target:
            break
        obj = place(rng, scene, random_object(rng, len(objects), pool[idx], surface, cfg, scene.palette), occupied,
                    cfg)
        if obj is not None:
            objects.append(obj)
            occupied.append(footprint(obj))
    return dataclasses.replace(scene, objects=tuple(objects))


TWIN_REACH = 4  # a same-kind object lands within this many of its namesake's sizes
SYMMETRIC = ("striped", "two_tone")  # patterns whose two colours take equal parts: swapped, they look alike


def tell_apart(a: PlacedObject, b: PlacedObject) -> bool:
    """Whether a person tells two objects of one name apart by their colours: their main colours
    are clearly different, and they are not one symmetric pattern in swapped colours."""
    if not clearly_different(a.colour, b.colour):
        return False
    return not (a.style == b.style in SYMMETRIC and not clearly_different(a.colour, b.accent)
                and not clearly_different(a.accent, b.colour))


def cue_objects(scene: Scene, cfg: SceneConfig, scale: int = 1) -> list[PlacedObject]:
    """The objects an edit may change: all of them, or the small ones the difficulty's cue
    scale allows (the bigger ones stay as clutter); `scale` times it for edits that change only
    a part or the direction of an object (part edits, flips)."""
    limit = scale * cfg.difficulty.cue_max_size
    return [o for o in scene.objects if o.size <= limit] if limit else list(scene.objects)


def with_same_kind(rng: np.random.Generator, scene: Scene, cfg: SceneConfig, namesakes: list[PlacedObject]) -> Scene:
    """The scene with the difficulty's same-kind objects: each another object of the name of one
    of `namesakes` (taken in turn, in a random order), in colours a person tells apart from every
    object of that name (`tell_apart`), at the cue scale, beside it. Colours come from the scene's
    palette while a name has some left, then from every named colour. Unchanged, and no draw
    taken, when the difficulty asks for none."""
    count = cfg.difficulty.same_kind
    if not count or not namesakes:
        return scene
    surface = surface_colour(scene)
    entries = by_name()
    objects, occupied = list(scene.objects), occupied_boxes(scene)
    uid = scene.next_uid()
    order = rng.permutation(len(namesakes))
    for i in range(count):
        original = namesakes[order[i % len(order)]]
        same = [o for o in objects if o.name == original.name]
        colours = tuple(o.colour for o in same)
        if not fitting_colours(COLOURS, surface, colours, misread_colours(original.name, cfg.difficulty.catalogue)):
            continue
        template = random_object(rng, uid, entries[original.name], surface, cfg, scene.palette, colours, cue=True)
        if not all(tell_apart(template, o) for o in same):
            continue
        obj = place(rng, scene, template, occupied, cfg, tries=30,
                    near=(original.cx, original.cy, TWIN_REACH * original.size))
        if obj is not None:
            objects.append(obj)
            occupied.append(footprint(obj))
            uid += 1
    return dataclasses.replace(scene, objects=tuple(objects))


def with_surface_detail(rng: np.random.Generator, scene: Scene, difficulty: Difficulty) -> Scene:
    """The scene with the difficulty's surface marks, grain, texture cell and colour palette (unchanged, and no
    draw taken, when the difficulty asks for none of them)."""
    if difficulty.palette:
        fitting = [n for n in COLOURS if stands_out(n, surface_colour(scene))]
        picked = rng.permutation(len(fitting))[: difficulty.palette]
        scene = dataclasses.replace(scene, palette=tuple(fitting[i] for i in sorted(picked)))
    if difficulty.marks or difficulty.grain or difficulty.cell > 1:
        scene = dataclasses.replace(scene, marks=difficulty.marks, grain=difficulty.grain, cell=difficulty.cell)
    return scene


def occupied_boxes(scene: Scene, skip: int | None = None) -> list[Box]:
    return [footprint(o) for o in scene.objects if o.uid != skip]
