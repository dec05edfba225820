"""Flips: an object flipped left to right (drawn mirrored) where it stands.

The spatial counterpart of turned stripes: the object keeps its place, size and colours, so once a
pair is shrunk to a model's input it looks much the same, while with zoom its shape plainly points
or faces the other way. Only objects whose outline differs from its mirror image take a flip
(`asymmetry`: a mirrored ball or box shows nothing), and only those that stand about upright or lie
about level (`lean`): a mirrored hammer drawn on a slant leans the other way, which a glance sees."""

from __future__ import annotations

import dataclasses
import functools

import numpy as np

from dicobench.editors.scene import Cue, SceneEdit, capitalised, pronouns, refer
from dicobench.editors.scene.decoys import Looks
from dicobench.kit.scene.catalogue import by_name
from dicobench.kit.scene.glyphs import glyph_mask
from dicobench.kit.scene.model import PlacedObject, Scene
from dicobench.kit.scene.random_scenes import SceneConfig
from dicobench.kit.scene.render import footprint
from dicobench.looks import look

# px: the smallest object a flip may take; at a careful reader's 4x zoom its outline spans 128 px
FLIP_MIN_SIZE = 32
# the least share of an outline's ink that its mirror image does not cover (measured at 40 px: a
# hammer 1.49, a dog 1.24, a dice 0.98; a car, a box, a bell 0): at 0.5, 68 of the audited
# catalogue's 205 names
ASYMMETRY = 0.5
# the most an outline's main axis may slant, as its elongation times the sine of twice its angle
# (a flip turns that angle to its negative): at 0.25, 26 of those 68 (a mug 0.01, a motorcycle 0.03,
# a cow 0.13; a dog 0.4, a hammer 0.63, a screwdriver 0.93)
LEAN = 0.25


def _outline(name: str) -> np.ndarray:
    """The object's solid outline at 40 px, where both measures below are taken."""
    return glyph_mask(by_name()[name].codepoint, "solid", 40)


@functools.lru_cache(maxsize=None)
def asymmetry(name: str) -> float:
    """How much of the object's solid outline its mirror image misses, as a share of its ink."""
    mask = _outline(name)
    return float(np.abs(mask - mask[:, ::-1]).sum() / mask.sum())


@functools.lru_cache(maxsize=None)
def lean(name: str) -> float:
    """How far the object's outline slants from upright or level, 0 (not at all, or round) to 1 (a thin diagonal)."""
    ys, xs = np.nonzero(_outline(name) > 0.5)
    x, y = xs - xs.mean(), ys - ys.mean()
    return float(2 * abs((x * y).mean()) / ((x * x).mean() + (y * y).mean()))


def flippable(obj: PlacedObject) -> bool:
    """A plain object (no pattern or marking to mirror with it) large enough, whose outline shows a
    flip and does not lean the other way with it."""
    return (obj.style == "plain" and obj.marking is None and obj.damage is None and obj.size >= FLIP_MIN_SIZE
            and asymmetry(obj.name) >= ASYMMETRY and lean(obj.name) <= LEAN)


def flip(scene: Scene, obj: PlacedObject, cfg: SceneConfig = SceneConfig()) -> SceneEdit | None:
    """Flip `obj` left to right where it stands ("A red mug was flipped left to right.")."""
    if not flippable(obj):
        return None
    # mirrored before it is turned, so turned the other way: what is drawn is the old drawing's mirror image
    new = dataclasses.replace(obj, mirrored=not obj.mirrored, rotation=-obj.rotation)
    a, b = footprint(obj), footprint(new)
    return SceneEdit(
        scene=scene.replace_object(obj.uid, new),
        text=capitalised(f"{refer(look(obj), cfg)} {pronouns(obj.name)['was']} flipped left to right."),
        subject=obj.name,
        dirty=(a, b),
        cues=(Cue(0, a, obj.name), Cue(1, b, f"{obj.name} (flipped)")),
        touched=(obj.name,),
        kind="flip",
        about=obj.uid,
        states=(Looks(obj), Looks(new)),
    )
