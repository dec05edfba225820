"""A scene is data: a background, a lighting tint and placed objects and traces.

Scenes are frozen values that re-render bit for bit (see `dicobench.kit.scene.render`), so a row's
images can always be regenerated from its seed and checked against what was written.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

STYLES = ("plain", "outline", "striped", "dotted", "two_tone")
MARKINGS = (None, "sticker", "band", "spots")


@dataclass(frozen=True)
class PlacedObject:
    """One catalogue object drawn at a place; `uid` is unique within its scene."""

    uid: int
    name: str
    colour: str
    size: int  # glyph em size in pixels
    cx: int
    cy: int
    rotation: float = 0  # degrees, counter-clockwise (a camera's shot adds a fraction of a degree)
    style: str = "plain"
    accent: str = "white"  # second colour for striped/dotted/two_tone and markings
    shading: float = 0.3  # strength of the top-lit gradient
    shadow: float = 0.35  # drop shadow opacity
    marking: str | None = None  # distinctive mark of one physical instance
    marking_fit: bool = False  # the marking fitted to the body (dicobench.kit.scene.markings: the audited
    # catalogue draws it so); False: the first release's fixed places
    damage: str | None = None  # a visual trace on the object itself
    damage_seed: int = 0
    turned: bool = False  # a striped object's stripes run along the other diagonal
    mirrored: bool = False  # drawn flipped left to right (a flip: dicobench.editors.scene.flip)


@dataclass(frozen=True)
class Trace:
    """A mark on the surface under the objects (prints, spills, crumbs, tracks...)."""

    kind: str
    x: int  # top-left of the trace's own patch
    y: int
    angle: int = 0
    length: int = 0
    colour: tuple[int, int, int] = (60, 45, 35)
    seed: int = 0
    opacity: float = 1.0  # times the kind's own opacity (fainter traces are harder to see)
    scale: float = 1.0  # the difficulty's trace scale it was drawn at (its length is scaled already; a
    # scaled crumbs scatter draws fewer, separate crumbs: dicobench.kit.scene.render)


@dataclass(frozen=True)
class Scene:
    width: int
    height: int
    background: str
    variant: int
    tint: str
    texture_seed: int
    objects: tuple[PlacedObject, ...] = ()
    traces: tuple[Trace, ...] = field(default_factory=tuple)
    palette: tuple[str, ...] = ()  # the colours its objects are drawn from (empty: every named colour; same-kind
    # objects go beyond it once a name has used every colour of it)
    marks: int = 0  # unnamed small marks per megapixel on the surface (see dicobench.kit.scene.textures)
    grain: float = 0.0  # per-pixel grain of the surface, levels
    cell: int = 1  # side of the surface's texture cells, px (see dicobench.kit.scene.textures)

    def object(self, uid: int) -> PlacedObject:
        for obj in self.objects:
            if obj.uid == uid:
                return obj
        raise KeyError(uid)

    def replace_object(self, uid: int, new: PlacedObject | None) -> "Scene":
        """The same scene with object `uid` replaced (or removed when `new` is None), order kept."""
        objs = tuple(new if o.uid == uid else o for o in self.objects if o.uid != uid or new is not None)
        return dataclasses.replace(self, objects=objs)

    def add(self, obj: PlacedObject | None = None, trace: Trace | None = None) -> "Scene":
        objs = self.objects + ((obj,) if obj else ())
        traces = self.traces + ((trace,) if trace else ())
        return dataclasses.replace(self, objects=objs, traces=traces)

    def next_uid(self) -> int:
        return max((o.uid for o in self.objects), default=-1) + 1
