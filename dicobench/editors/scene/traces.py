"""Reasoning edits: a visual trace that implies an unseen event (prints, spills, cracks...).

Each trace kind applies to some categories of objects and states both the trace and the
event it implies, so the option can be checked against the image and reasoned about.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

import numpy as np

from dicobench.kit.scene.catalogue import by_name
from dicobench.kit.scene.palette import lab_distance
from dicobench.kit.scene.geometry import Box, point_gap
from dicobench.kit.scene.render import footprint, trace_box, trace_extent
from dicobench.kit.scene.model import PlacedObject, Scene, Trace
from dicobench.kit.scene.random_scenes import SceneConfig, inside, occupied_boxes, overlaps, surface_colour
from dicobench.editors.scene import Cue, SceneEdit, pronouns
from dicobench.looks import called, namesakes

HARD = {"tool", "kitchenware", "drink", "electronics", "sports", "music", "toy", "household", "medical", "furniture", "vehicle"}
FLAMMABLE = {"electronics", "household", "furniture", "stationery", "clothing", "food", "toy"}
WET = {"umbrella", "beach umbrella", "bucket", "faucet", "water bottle", "glass of water", "sink", "bathtub", "watering can"}
LIQUIDS = {"coffee": (92, 58, 34), "red wine": (112, 22, 44), "milk": (238, 236, 228), "green juice": (110, 160, 50)}
DARK_PRINTS, LIGHT_PRINTS = (62, 46, 34), (226, 220, 206)


@dataclass(frozen=True)
class TraceKind:
    name: str
    applies: callable
    sentence: str  # {name} is the object, {liquid} the spilled drink; {it} {was} ... {them} agree with the name


KINDS = (
    TraceKind("crack", lambda e: e.category in HARD, "A crack has appeared on the {name}, so {it} {was} dropped or struck."),
    TraceKind("scorch", lambda e: e.category in FLAMMABLE, "Scorch marks have appeared on the {name}, so {it} {was} burned or overheated."),
    TraceKind("spill", lambda e: e.category in {"drink", "kitchenware"}, "A {liquid} spill has appeared beside the {name}, so {it} {was} knocked over."),
    TraceKind("footprints", lambda e: True, "A trail of shoe prints now leads to the {name}, so someone walked up to {them}."),
    TraceKind("paw_prints", lambda e: True, "A trail of paw prints now leads to the {name}, so an animal walked up to {them}."),
    TraceKind("crumbs", lambda e: e.category == "food", "Crumbs are scattered beside the {name}, so someone has been eating {them}."),
    TraceKind("shards", lambda e: e.category == "drink", "Glass shards lie beside the {name}, so a glass was broken next to {them}."),
    TraceKind("tyre_tracks", lambda e: e.category == "vehicle", "Tyre tracks now lead away from the {name}, so {it} {was} driven."),
    TraceKind("puddle", lambda e: e.name in WET, "A puddle of water has formed beside the {name}, so water dripped from {them}."),
)


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


def kinds_for(obj: PlacedObject) -> list[TraceKind]:
    entry = by_name()[obj.name]
    return [k for k in KINDS if k.applies(entry) and _shows_on(k.name, obj)]


TRACE_CONTRAST = 40.0  # a half-transparent trace needs more contrast than a solid object


def _visible_on(colour, surface) -> bool:
    return lab_distance(colour, surface) >= TRACE_CONTRAST


def _contrasting(colour, surface, fallback):
    return colour if _visible_on(colour, surface) else fallback


def _scaled(value: int, scale: float, least: int) -> int:
    return value if scale == 1.0 else max(least, round(value * scale))


def _place_surface_trace(rng, scene: Scene, obj: PlacedObject, kind: str, colour, trail: bool, scale: float = 1.0
                         ) -> Trace | None:
    """Put a surface trace next to (or leading to) the object, on free surface only, so it is seen;
    `scale` shortens trails (fewer prints) and shrinks spills, puddles and scatters. Where other
    objects share its name, the trace's near end must be clearly closer to this one (`_yours`)."""
    box = footprint(obj)
    cx, cy = box[0] + box[2] / 2, box[1] + box[3] / 2
    reach = max(box[2], box[3]) / 2
    occupied = occupied_boxes(scene)
    others = [footprint(o) for o in namesakes(obj, scene)]
    for _ in range(40):
        theta = rng.uniform(0, 2 * math.pi)
        if trail:
            steps = _scaled(int(rng.integers(5, 8)), scale, 2)
            step = {"footprints": 34, "paw_prints": 26}.get(kind, 1)
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
            probe = Trace(kind, 0, 0, angle=int(round(math.degrees(heading))) % 360, length=length, colour=colour)
            side = trace_extent(probe)
            a = math.radians(probe.angle)
            ox = 40.0 if math.cos(a) >= 0 else side - 40.0
            oy = 40.0 if math.sin(a) >= 0 else side - 40.0
            trace = dataclasses.replace(probe, x=int(round(sx - ox)), y=int(round(sy - oy)), seed=int(rng.integers(2**31)))
        else:
            length = _scaled(int(rng.integers(50, 80)), scale, 20)
            dist = reach + length * 0.6 + 10
            px, py = cx + dist * math.cos(theta), cy + dist * math.sin(theta)
            side = trace_extent(Trace(kind, 0, 0, length=length))
            trace = Trace(kind, int(px - side / 2), int(py - side / 2), length=length, colour=colour, seed=int(rng.integers(2**31)))
            near = (px, py)
        tbox = trace_box(trace)
        if inside(tbox, scene.width, scene.height) and not overlaps(tbox, occupied, gap=3) and _yours(near, box, others):
            return trace
    return None


def _yours(near: tuple[float, float], box: Box, others: list[Box]) -> bool:
    """Whether a person reads a trace whose near end is at `near` as beside (or leading to) the
    object in `box` rather than any of `others` of its name: each of them at least twice as far
    and an object's size farther."""
    mine = point_gap(near, box)
    return all(point_gap(near, other) >= 2 * mine + max(box[2], box[3]) for other in others)


def add_trace(rng: np.random.Generator, scene: Scene, obj: PlacedObject, kind: TraceKind,
              cfg: SceneConfig = SceneConfig()) -> SceneEdit | None:
    surface = surface_colour(scene)
    if kind.name in ("crack", "scorch"):
        new = dataclasses.replace(obj, damage=kind.name, damage_seed=int(rng.integers(2**31)))
        box = footprint(obj)
        return SceneEdit(
            scene=scene.replace_object(obj.uid, new),
            text=kind.sentence.format(name=called(obj, scene), **pronouns(obj.name)),
            subject=obj.name,
            dirty=(box,),
            cues=(Cue(1, box, f"{kind.name} on {obj.name}"),),
            touched=(obj.name,),
        )
    liquid = ""
    if kind.name == "spill":
        ok = [n for n, c in LIQUIDS.items() if _visible_on(c, surface)]
        if not ok:
            return None
        liquid = ok[rng.integers(len(ok))]
        colour = LIQUIDS[liquid]
    elif kind.name in ("footprints", "paw_prints", "tyre_tracks"):
        colour = _contrasting(DARK_PRINTS if kind.name != "tyre_tracks" else (34, 34, 36), surface, LIGHT_PRINTS)
    elif kind.name == "crumbs":
        colour = _contrasting((196, 150, 86), surface, (110, 70, 36))
    elif kind.name == "shards":
        colour = _contrasting((228, 236, 242), surface, (70, 90, 100))
    else:  # puddle
        colour = _contrasting((110, 140, 170), surface, (180, 205, 225))
    trail = kind.name in ("footprints", "paw_prints", "tyre_tracks")
    trace = _place_surface_trace(rng, scene, obj, kind.name, colour, trail, cfg.difficulty.trace_scale)
    if trace is None:
        return None
    if cfg.difficulty.trace_opacity != 1.0:
        trace = dataclasses.replace(trace, opacity=cfg.difficulty.trace_opacity)
    tbox = footprint(trace)  # the trace the edit draws: kept for its renders, unlike the tries
    return SceneEdit(
        scene=scene.add(trace=trace),
        text=kind.sentence.format(name=called(obj, scene), liquid=liquid, **pronouns(obj.name)),
        subject=obj.name,
        dirty=(tbox,),
        cues=(Cue(1, tbox, f"{kind.name.replace('_', ' ')} by {obj.name}"),),
        touched=(obj.name,),
    )
