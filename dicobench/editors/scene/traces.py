"""Reasoning edits: a visual trace that implies an unseen event (prints, spills, cracks...).

Each trace kind applies to some categories of objects and states both the trace and the
event it implies, so the option can be checked against the image and reasoned about.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

import numpy as np

from dicobench.editors.scene import Cue, SceneEdit, indefinite, pronouns, refer
from dicobench.editors.scene.decoys import Looks, look_key, occupied, place_among, twin
from dicobench.kit.scene.catalogue import by_name
from dicobench.kit.scene.geometry import Box, box_gap, centre, point_gap
from dicobench.kit.scene.model import PlacedObject, Scene, Trace
from dicobench.kit.scene.palette import lab_distance
from dicobench.kit.scene.random_scenes import SceneConfig, clashes, inside, occupied_boxes, overlaps, surface_colour
from dicobench.kit.scene.render import footprint, trace_box, trace_extent
from dicobench.kit.scene.trace_kernels import KERNELS, origin
from dicobench.looks import called, look, namesakes

HARD = {"tool", "kitchenware", "drink", "electronics", "sports", "music", "toy", "household", "medical", "furniture",
        "vehicle"}
FLAMMABLE = {"electronics", "household", "furniture", "stationery", "clothing", "food", "toy"}
WET = {"umbrella", "beach umbrella", "bucket", "faucet", "water bottle", "glass of water", "sink", "bathtub",
       "watering can"}
LIQUIDS = {"coffee": (92, 58, 34), "red wine": (112, 22, 44), "milk": (238, 236, 228), "green juice": (110, 160, 50)}
DARK_PRINTS, LIGHT_PRINTS = (62, 46, 34), (226, 220, 206)


@dataclass(frozen=True)
class TraceKind:
    name: str
    applies: callable
    # {obj} is the object as the option calls it, {liquid} the spilled drink; {it} {was} ... {them} agree with its name
    sentence: str


KINDS = (
    TraceKind("crack", lambda e: e.category in HARD,
              "A crack has appeared on {obj}, so {it} {was} dropped or struck."),
    TraceKind("scorch", lambda e: e.category in FLAMMABLE,
              "Scorch marks have appeared on {obj}, so {it} {was} burned or overheated."),
    TraceKind("spill", lambda e: e.category in {"drink", "kitchenware"},
              "A {liquid} spill has appeared beside {obj}, so {it} {was} knocked over."),
    TraceKind("footprints", lambda e: True,
              "A trail of shoe prints now leads to {obj}, so someone walked up to {them}."),
    TraceKind("paw_prints", lambda e: True,
              "A trail of paw prints now leads to {obj}, so an animal walked up to {them}."),
    TraceKind("crumbs", lambda e: e.category == "food",
              "Crumbs are scattered beside {obj}, so someone has been eating {them}."),
    TraceKind("shards", lambda e: e.category == "drink",
              "Glass shards lie beside {obj}, so a glass was broken next to {them}."),
    TraceKind("tyre_tracks", lambda e: e.category == "vehicle",
              "Tyre tracks now lead away from {obj}, so {it} {was} driven."),
    TraceKind("puddle", lambda e: e.name in WET,
              "A puddle of water has formed beside {obj}, so water dripped from {them}."),
)
DAMAGE = ("crack", "scorch")  # marks on the object itself; the others lie on the surface beside it
TRAILS = tuple(kind for kind, drawn in KERNELS.items() if drawn.trail)
PRINTS = tuple(kind for kind, drawn in KERNELS.items() if drawn.step)  # trails whose prints show which way they go


# traces a person may not tell apart on one object at hard scale and opacity (a milk spill and a puddle
# of water are pale blots alike): two options about one object never name both
ALIKE = (frozenset({"spill", "puddle"}),)


def told_apart(a: str, b: str) -> bool:
    return a != b and frozenset({a, b}) not in ALIKE


DARK_COLOURS = {"black", "brown", "purple", "blue"}  # soot does not show on these


def _shows_on(kind: str, obj: PlacedObject) -> bool:
    """Marks on the object itself need a large, filled body to be seen."""
    if kind == "crack":
        return obj.size >= 56 and obj.style != "outline"
    if kind == "scorch":
        return obj.colour not in DARK_COLOURS and obj.style != "outline"
    return True


# What a trace implies must be true of the object it is drawn by: tyre tracks lead away only from
# what is driven on tyres ("so it was driven": not a ship, a sleigh, a pushed stroller or a towed
# caravan), crumbs lie only beside what people eat ("so someone has been eating it": not a dog
# bone). The audited catalogue keeps to this; the first release's rows keep their draws.
DRIVEN = frozenset({"bus", "car", "motorcycle", "pickup truck", "taxi", "tractor", "truck"})
NOT_EATEN = frozenset({"bone"})


def _implied(kind: str, name: str) -> bool:
    """Whether the event a trace of `kind` implies can be true of an object called `name`."""
    if kind == "tyre_tracks":
        return name in DRIVEN
    if kind == "crumbs":
        return name not in NOT_EATEN
    return True


def kinds_for(obj: PlacedObject, catalogue: str = "first-release") -> list[TraceKind]:
    """The trace kinds `obj` may show: those of its category that show on it, and in the audited
    `catalogue` only those whose implied event is true of it."""
    entry = by_name()[obj.name]
    return [k for k in KINDS if k.applies(entry) and _shows_on(k.name, obj)
            and (catalogue == "first-release" or _implied(k.name, obj.name))]


TRACE_CONTRAST = 40.0  # a half-transparent trace needs more contrast than a solid object


def _visible_on(colour, surface) -> bool:
    return lab_distance(colour, surface) >= TRACE_CONTRAST


def _contrasting(colour, surface, fallback):
    return colour if _visible_on(colour, surface) else fallback


def _scaled(value: int, scale: float, least: int) -> int:
    return value if scale == 1.0 else max(least, round(value * scale))


def _place_surface_trace(rng, scene: Scene, obj: PlacedObject, kind: str, colour, trail: bool, scale: float = 1.0
                         ) -> tuple[Trace, tuple[float, float]] | None:
    """Put a surface trace next to (or leading to) the object, on free surface only, so it is seen;
    `scale` shortens trails (fewer prints) and shrinks spills, puddles and scatters. Where other
    objects share its name, the trace's near end must be clearly closer to this one (`_yours`).
    Returns the trace and its near end."""
    box = footprint(obj)
    cx, cy = centre(box)
    reach = max(box[2], box[3]) / 2
    occupied = occupied_boxes(scene)
    others = [footprint(o) for o in namesakes(obj, scene)]
    for _ in range(40):
        theta = rng.uniform(0, 2 * math.pi)
        if trail:
            steps = _scaled(int(rng.integers(5, 8)), scale, 2)
            step = KERNELS[kind].step
            length = steps if kind != "tyre_tracks" else _scaled(int(rng.integers(160, 260)), scale, 60)
            span = (steps - 1) * step if kind != "tyre_tracks" else length
            # footprints end at the object (heading towards it); tyre tracks start at it
            gap = reach + 22
            if kind == "tyre_tracks":
                sx, sy = cx + gap * math.cos(theta), cy + gap * math.sin(theta)
                heading, near = theta, (sx, sy)
            else:
                ex, ey = cx - gap * math.cos(theta), cy - gap * math.sin(theta)
                sx, sy = ex - span * math.cos(theta), ey - span * math.sin(theta)
                heading, near = theta, (ex, ey)
            probe = Trace(kind, 0, 0, angle=int(round(math.degrees(heading))) % 360, length=length, colour=colour,
                          scale=scale)
            ox, oy = origin(probe, trace_extent(probe))
            trace = dataclasses.replace(probe, x=int(round(sx - ox)), y=int(round(sy - oy)),
                                        seed=int(rng.integers(2**31)))
        else:
            length = _scaled(int(rng.integers(50, 80)), scale, 20)
            dist = reach + length * 0.6 + 10
            px, py = cx + dist * math.cos(theta), cy + dist * math.sin(theta)
            side = trace_extent(Trace(kind, 0, 0, length=length, scale=scale))
            trace = Trace(kind, int(px - side / 2), int(py - side / 2), length=length, colour=colour,
                          seed=int(rng.integers(2**31)), scale=scale)
            near = (px, py)
        tbox = trace_box(trace)
        if (inside(tbox, scene.width, scene.height) and not overlaps(tbox, occupied, gap=3)
                and _yours(near, box, others)):
            return trace, near
    return None


def _yours(near: tuple[float, float], box: Box, others: list[Box]) -> bool:
    """Whether a person reads a trace whose near end is at `near` as beside (or leading to) the
    object in `box` rather than any of `others` of its name: each of them at least twice as far
    and an object's size farther."""
    mine = point_gap(near, box)
    return all(point_gap(near, other) >= 2 * mine + max(box[2], box[3]) for other in others)


def _colour(kind: str, surface, liquid: str = "") -> tuple[int, int, int]:
    """The colour a surface trace of `kind` is drawn in on `surface` (a spill's is its liquid's)."""
    if kind == "spill":
        return LIQUIDS[liquid]
    if kind in TRAILS:
        return _contrasting(DARK_PRINTS if kind != "tyre_tracks" else (34, 34, 36), surface, LIGHT_PRINTS)
    if kind == "crumbs":
        return _contrasting((196, 150, 86), surface, (110, 70, 36))
    if kind == "shards":
        return _contrasting((228, 236, 242), surface, (70, 90, 100))
    return _contrasting((110, 140, 170), surface, (180, 205, 225))  # puddle


def _surface_trace(rng, scene: Scene, obj: PlacedObject, kind: str, colour, cfg: SceneConfig
                   ) -> tuple[Trace, tuple[float, float]] | None:
    """A trace of `kind` beside (or leading to) `obj`, at the difficulty's scale and opacity, and its near end."""
    placed = _place_surface_trace(rng, scene, obj, kind, colour, kind in TRAILS, cfg.difficulty.trace_scale)
    if placed is None or cfg.difficulty.trace_opacity == 1.0:
        return placed
    return dataclasses.replace(placed[0], opacity=cfg.difficulty.trace_opacity), placed[1]


TRACE_REACH = 160  # px a decoy of the traced object's look keeps from the trace, so it reads as its object's


def _sentence(kind: TraceKind, obj: PlacedObject, scene: Scene, cfg: SceneConfig, liquid: str = "") -> str:
    words = refer(look(obj) if indefinite(cfg) else called(obj, scene), cfg)
    return kind.sentence.format(obj=words, liquid=liquid, **pronouns(obj.name))


def add_trace(rng: np.random.Generator, scene: Scene, obj: PlacedObject, kind: TraceKind,
              cfg: SceneConfig = SceneConfig()) -> SceneEdit | None:
    surface = surface_colour(scene)
    before = Looks(obj, reach=TRACE_REACH)
    if kind.name in DAMAGE:
        new = dataclasses.replace(obj, damage=kind.name, damage_seed=int(rng.integers(2**31)))
        box = footprint(obj)
        return SceneEdit(
            scene=scene.replace_object(obj.uid, new),
            text=_sentence(kind, obj, scene, cfg),
            subject=obj.name,
            dirty=(box,),
            cues=(Cue(1, box, f"{kind.name} on {obj.name}"),),
            touched=(obj.name,),
            kind=kind.name,
            about=obj.uid,
            states=(before, Traced(obj, kind.name)),
        )
    liquid = ""
    if kind.name == "spill":
        ok = [n for n, c in LIQUIDS.items() if _visible_on(c, surface)]
        if not ok:
            return None
        liquid = ok[rng.integers(len(ok))]
    colour = _colour(kind.name, surface, liquid)
    placed = _surface_trace(rng, scene, obj, kind.name, colour, cfg)
    if placed is None:
        return None
    trace = placed[0]
    tbox = footprint(trace)  # the trace the edit draws: kept for its renders, unlike the tries
    return SceneEdit(
        scene=scene.add(trace=trace),
        text=_sentence(kind, obj, scene, cfg, liquid),
        subject=obj.name,
        dirty=(tbox,),
        cues=(Cue(1, tbox, f"{kind.name.replace('_', ' ')} by {obj.name}"),),
        touched=(obj.name,),
        kind=kind.name,
        about=obj.uid,
        states=(before, Traced(obj, kind.name, colour)),
    )


NEXT_TO = 40  # px: a surface trace this close to an object lies beside it (or leads to it)


@dataclass(frozen=True)
class Traced:
    """An object of this look with a trace of `kind` on it or beside it (a reasoning option's state
    after its edit: `dicobench.editors.scene.decoys`)."""

    obj: PlacedObject
    kind: str
    colour: tuple[int, int, int] | None = None  # a surface trace's colour (a spill's names its liquid)
    reach: int = TRACE_REACH
    away: bool = False  # a trail of prints leading away from the object, not up to it

    @property
    def key(self) -> tuple:
        return ("traced", look_key(self.obj), self.kind, self.colour, self.away)

    @property
    def names(self) -> frozenset[str]:
        return frozenset({self.obj.name})

    def instances(self, scene: Scene) -> list[frozenset[int]]:
        if self.kind in DAMAGE:
            key = look_key(dataclasses.replace(self.obj, damage=self.kind))
            return [frozenset({o.uid}) for o in scene.objects if look_key(o) == key]
        traces = [(t, footprint(t)) for t in scene.traces if t.kind == self.kind and t.colour == self.colour]
        directed = self.kind in PRINTS  # which way a trail of prints goes is part of the state
        key = look_key(self.obj)
        return [frozenset({o.uid}) for o in scene.objects
                if look_key(o) == key and any(box_gap(footprint(o), box) <= NEXT_TO
                                              and (not directed or leads_to(t, o) != self.away)
                                              for t, box in traces)]

    def decoy(self, rng, scene, cfg, blocked, uid):
        """A twin of the object with the same trace (damage drawn afresh; a surface trace drawn
        beside it on a bare canvas, then the two moved together to a free spot)."""
        if self.kind in DAMAGE:
            obj = place_among(rng, scene, dataclasses.replace(self.obj, damage=self.kind), cfg, blocked, uid)
            return None if obj is None else ((obj,), ())
        obj = dataclasses.replace(twin(rng, self.obj, uid), cx=scene.width // 2, cy=scene.height // 2)
        placed = _surface_trace(rng, dataclasses.replace(scene, objects=(obj,), traces=()), obj, self.kind,
                                self.colour, cfg)
        if placed is None:
            return None
        trace, near = placed
        trace = turned_back(trace) if self.away else trace  # its first print where the last one was: near stays
        shift = _free_shift(rng, scene, obj.name, footprint(obj), footprint(trace), near, blocked, cfg)
        if shift is None:
            return None
        dx, dy = shift
        return ((dataclasses.replace(obj, cx=obj.cx + dx, cy=obj.cy + dy),),
                (dataclasses.replace(trace, x=trace.x + dx, y=trace.y + dy),))


def _free_shift(rng, scene: Scene, name: str, box: Box, tbox: Box, near: tuple[float, float], blocked: list[Box],
                cfg: SceneConfig, tries: int = 80) -> tuple[int, int] | None:
    """A seeded shift that puts a `name` drawn at `box` and its trace at `tbox` on free surface of
    `scene` (clear of `blocked`), the trace read as that object's (`_yours`)."""
    taken = np.asarray(occupied(scene) + list(blocked), np.int64).reshape(-1, 4)
    others = [footprint(o) for o in scene.objects if o.name == name]
    for _ in range(tries):
        dx = int(rng.integers(-box[0], scene.width - box[0] - box[2]))
        dy = int(rng.integers(-box[1], scene.height - box[1] - box[3]))
        b, t = _moved(box, dx, dy), _moved(tbox, dx, dy)
        if (inside(b, scene.width, scene.height) and inside(t, scene.width, scene.height)
                and not clashes(b, taken, cfg) and not overlaps(t, taken, gap=3)
                and _yours((near[0] + dx, near[1] + dy), b, others)):
            return dx, dy
    return None


def _moved(box: Box, dx: int, dy: int) -> Box:
    return (box[0] + dx, box[1] + dy, box[2], box[3])


# A trail of shoe prints turned back: the same prints at the same places, each pointing the other
# way. Shrunk, the pair shows the same trail; with zoom each print's heel is plainly at its other
# end, and the trail that led up to its object leads away from it. (Paw prints are drawn too small
# for it: their toes blur into the pad, so which way they point is no plain read.)
TURNED_BACK = ("The shoe prints by {obj} now lead away from {them}, so someone walked away from {them}, "
               "not up to {them}.")


def turned_back(trace: Trace) -> Trace:
    """The trail of prints walked the other way: its first print where its last one was, heading back."""
    side = trace_extent(trace)
    ox, oy = origin(trace, side)
    a = math.radians(trace.angle)
    span = (max(2, trace.length) - 1) * KERNELS[trace.kind].step
    back = dataclasses.replace(trace, angle=(trace.angle + 180) % 360)
    bx, by = origin(back, side)
    return dataclasses.replace(back, x=int(round(trace.x + ox + span * math.cos(a) - bx)),
                               y=int(round(trace.y + oy + span * math.sin(a) - by)))


def leads_to(trace: Trace, obj: PlacedObject) -> bool:
    """Whether a trail's prints point towards `obj` (walked up to it) rather than away from it."""
    x, y, w, h = footprint(trace)
    ox, oy = centre(footprint(obj))
    a = math.radians(trace.angle)
    return (ox - x - w / 2) * math.cos(a) + (oy - y - h / 2) * math.sin(a) > 0


def trail_to(rng: np.random.Generator, scene: Scene, obj: PlacedObject, cfg: SceneConfig) -> Trace | None:
    """A trail of shoe prints leading up to `obj`, on free surface both ways (as drawn and turned
    back), at the difficulty's scale and opacity; None where none fits."""
    placed = _surface_trace(rng, scene, obj, "footprints", _colour("footprints", surface_colour(scene)), cfg)
    if placed is None:
        return None
    trail, trails = placed[0], [footprint(t) for t in scene.traces]  # clear of the row's other trails too
    # turned back, its first print's heel reaches towards its object (whose box it may then touch:
    # the trail starts at the object), not towards any other
    back = footprint(turned_back(trail))
    clear = not overlaps(footprint(trail), trails, gap=3) and not overlaps(
        back, occupied_boxes(scene, skip=obj.uid) + trails, gap=3)
    return trail if clear and inside(back, scene.width, scene.height) else None


def turn_back(scene: Scene, obj: PlacedObject, trace: Trace, cfg: SceneConfig = SceneConfig()) -> SceneEdit:
    """The trail of shoe prints `trace`, which leads up to `obj` in `scene`, turned to lead away from it
    ("The shoe prints by a red mug now lead away from it, so someone walked away from it, not up to it.")."""
    back = turned_back(trace)
    a, b = footprint(trace), footprint(back)
    words = refer(look(obj) if indefinite(cfg) else called(obj, scene), cfg)
    return SceneEdit(
        scene=dataclasses.replace(scene, traces=tuple(back if t == trace else t for t in scene.traces)),
        text=TURNED_BACK.format(obj=words, **pronouns(obj.name)),
        subject=obj.name,
        dirty=(a, b),
        cues=(Cue(0, a, f"shoe prints to {obj.name}"), Cue(1, b, f"shoe prints away from {obj.name}")),
        touched=(obj.name,),
        kind="turn_back",
        about=obj.uid,
        states=(Traced(obj, trace.kind, trace.colour), Traced(obj, trace.kind, trace.colour, away=True)),
    )
