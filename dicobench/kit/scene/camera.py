"""A camera per image: each image of a pair is a separate shot of its scene or photo.

Pixel-identical pairs let `abs(a - b)` point at a difference without looking. A second shot
differs everywhere a little, as a real one does: framing (a shift of a few pixels, a fraction of a
degree of rotation and a fraction of a percent of scale, about the canvas centre), exposure (gain),
white balance (per-channel gains) and sensor noise (this shot's own grain, seeded by `noise`).

As in torchvision's v2 transforms, drawing the parameters (`Camera.draw(rng, bounds)`) is apart
from applying them: a `Camera` is a small frozen value that is recorded with its row
(`describe` / `parse`) and applied by pure functions. The scene engine renders a scene through a
camera (`dicobench.kit.scene.render.render(scene, camera=...)`), which moves objects rather than
resampling pixels and so costs few PNG bytes; `photograph` is the pixel-level camera for photos.

Coordinates are continuous image coordinates (x right, y down, origin at the image's top-left
corner); a positive rotation turns the scene counter-clockwise as seen, as `PIL.Image.rotate` does.
"""

from __future__ import annotations

import dataclasses
import math
import re
from dataclasses import dataclass

import numpy as np

from dicobench.kit.scene.geometry import Box
from dicobench.kit.scene.textures import GRAIN_STEPS
from dicobench.kit.scene.warping import warp

CAMERA_STREAM = 0xCA3E7A  # the cameras' random stream, apart from everything a row's seed draws
# px: the most a shot's turn may move an object's outline (about radians x size: no point of a
# glyph lies farther than its size from its centre) and still leave the object drawn unturned
POSE_TOLERANCE = 0.25
# px a mapped box grows by (pixel rounding of placed objects, the resampling kernel's reach) and may leave the frame by
CUE_MARGIN = 3


@dataclass(frozen=True)
class CameraBounds:
    """How far a shot may stray from the clean render: every parameter is drawn uniformly within
    +-its bound."""

    shift: float = 2.0  # px, per axis
    rotation: float = 0.15  # degrees
    scale: float = 0.003  # fraction (0.003: 0.3%)
    # exposure and white balance: two shots at opposite corners differ by at most about 2 Delta E
    # in colour (tests/kit/test_camera.py), under what a person notices across a pair side by side
    # (careful readers saw 5 Delta E as a tint on large plain surfaces, and argued an E row on it)
    gain: float = 0.004  # exposure, fraction
    white_balance: float = 0.003  # per-channel gain, fraction

    def describe(self) -> str:
        """One line for the card."""
        return (f"shift up to {self.shift:g} px per axis, rotation up to {self.rotation:g} deg and scale up to "
                f"{100 * self.scale:g}% about the centre, exposure up to {100 * self.gain:g}%, white balance up to "
                f"{100 * self.white_balance:g}% per channel, this shot's own sensor grain")

    def largest_displacement(self, width: int, height: int) -> float:
        """The most any point of a width x height image can move in one shot within these bounds."""
        corner = math.hypot(width / 2, height / 2)
        return math.hypot(self.shift, self.shift) + corner * (math.radians(self.rotation) + self.scale)


# How the recorded parameters are written (and rounded when drawn, so that a parsed camera is the very one used).
_FIELDS = (("dx", "{:+.2f}"), ("dy", "{:+.2f}"), ("rotation", "{:+.3f}"), ("scale", "{:.5f}"), ("gain", "{:.4f}"),
           ("wb", None), ("noise", "{:d}"))
_TOKEN = re.compile(r"(\w+)=(\S+)")


@dataclass(frozen=True)
class Camera:
    """One shot's parameters."""

    dx: float = 0.0  # px
    dy: float = 0.0
    rotation: float = 0.0  # degrees, counter-clockwise as seen
    scale: float = 1.0
    gain: float = 1.0
    wb: tuple[float, float, float] = (1.0, 1.0, 1.0)  # red, green, blue gains on top of `gain`
    noise: int = 0  # seed of this shot's grain

    @classmethod
    def draw(cls, rng: np.random.Generator, bounds: CameraBounds) -> "Camera":
        """A camera within `bounds`, its values rounded as they are recorded."""
        dx, dy = rng.uniform(-bounds.shift, bounds.shift, 2)
        rotation = rng.uniform(-bounds.rotation, bounds.rotation)
        scale = 1 + rng.uniform(-bounds.scale, bounds.scale)
        gain = 1 + rng.uniform(-bounds.gain, bounds.gain)
        wb = 1 + rng.uniform(-bounds.white_balance, bounds.white_balance, 3)
        return cls(round(float(dx), 2), round(float(dy), 2), round(float(rotation), 3), round(float(scale), 5),
                   round(float(gain), 4), tuple(round(float(v), 4) for v in wb), int(rng.integers(2**31)))

    @property
    def gains(self) -> tuple[float, float, float]:
        """What each channel is multiplied by: exposure times white balance."""
        return tuple(self.gain * w for w in self.wb)

    def matrix(self, width: int, height: int) -> np.ndarray:
        """The 2x3 affine map from scene (or photo) coordinates to this shot's image coordinates."""
        t = math.radians(self.rotation)
        c, s = math.cos(t) * self.scale, math.sin(t) * self.scale
        cx, cy = width / 2, height / 2
        linear = np.array([[c, s], [-s, c]])
        offset = np.array([cx + self.dx, cy + self.dy]) - linear @ np.array([cx, cy])
        return np.hstack([linear, offset[:, None]])

    def point(self, x: float, y: float, width: int, height: int) -> tuple[float, float]:
        m = self.matrix(width, height)
        return float(m[0, 0] * x + m[0, 1] * y + m[0, 2]), float(m[1, 0] * x + m[1, 1] * y + m[1, 2])

    def map_box(self, box: Box, width: int, height: int, margin: int = CUE_MARGIN) -> tuple[Box, bool]:
        """The box in the shot that holds what `box` held in the clean image, grown by `margin`
        and clipped to the image; and whether the shot keeps it in the frame (it leaves the image
        by no more than `margin` on any side)."""
        x, y, w, h = box
        corners = np.array([[x, y, 1], [x + w, y, 1], [x, y + h, 1], [x + w, y + h, 1]], float)
        mapped = corners @ self.matrix(width, height).T
        x0, y0 = np.floor(mapped.min(axis=0)).astype(int)
        x1, y1 = np.ceil(mapped.max(axis=0)).astype(int)
        fits = x0 >= -margin and y0 >= -margin and x1 <= width + margin and y1 <= height + margin
        x0, y0 = max(int(x0) - margin, 0), max(int(y0) - margin, 0)
        x1, y1 = min(int(x1) + margin, width), min(int(y1) + margin, height)
        return (x0, y0, max(x1 - x0, 0), max(y1 - y0, 0)), bool(fits)

    def displacement(self, width: int, height: int) -> float:
        """The most any point of the image moves in this shot (at a corner: the map is affine)."""
        corners = [(0, 0), (width, 0), (0, height), (width, height)]
        return max(math.hypot(*np.subtract(self.point(x, y, width, height), (x, y))) for x, y in corners)

    def place(self, obj, width: int, height: int):
        """A placed object (`dicobench.kit.scene.model.PlacedObject`) as this shot sees it: its centre
        mapped, its size kept (a fraction of a percent is under half a pixel for every object the
        engine draws) and its pose turned with the camera only where the turn moves its outline by
        more than `POSE_TOLERANCE`: the presets' fractions of a degree move none of their objects'
        outlines that far, so a shot draws each object as the clean render does, only moved."""
        x, y = self.point(obj.cx + 0.5, obj.cy + 0.5, width, height)
        turned = math.radians(abs(self.rotation)) * obj.size > POSE_TOLERANCE
        return dataclasses.replace(obj, cx=math.floor(x), cy=math.floor(y),
                                   rotation=obj.rotation + self.rotation if turned else obj.rotation)

    def describe(self) -> str:
        """The recorded form: `dx=+1.25 dy=-0.50 rotation=+0.120 scale=1.00210 gain=0.9870
        wb=1.0100,0.9930,1.0020 noise=123456789`."""
        parts = []
        for name, fmt in _FIELDS:
            value = getattr(self, name)
            parts.append(f"{name}=" + (",".join(f"{v:.4f}" for v in value) if fmt is None else fmt.format(value)))
        return " ".join(parts)

    @classmethod
    def parse(cls, text: str) -> "Camera":
        """The camera `describe` wrote; ValueError when a parameter is missing or malformed."""
        found = dict(_TOKEN.findall(text))
        if set(found) != {name for name, _ in _FIELDS}:
            raise ValueError(f"not a camera record: {text!r}")
        values = {name: (tuple(float(v) for v in found[name].split(",")) if name == "wb"
                         else int(found[name]) if name == "noise" else float(found[name])) for name, _ in _FIELDS}
        if len(values["wb"]) != 3:
            raise ValueError(f"white balance needs three gains: {text!r}")
        return cls(**values)


def draw_cameras(seed: int, bounds: CameraBounds) -> tuple[Camera, Camera]:
    """The cameras of a row's image a and image b: their own stream, so that they change nothing
    else the seed draws (scene, edits, options, letter)."""
    return tuple(Camera.draw(np.random.default_rng([seed, CAMERA_STREAM, image]), bounds) for image in (0, 1))


# ---- the pixel-level camera (photos) -------------------------------------------------------

PHOTO_GRAIN = 1.0  # levels (standard deviation) of grain a photo's shot adds to the photo's own


def expose(pixels: np.ndarray, gains: tuple[float, float, float]) -> np.ndarray:
    """uint8 RGB pixels times per-channel gains, through one 256-entry table per channel."""
    levels = np.arange(256, dtype=np.float32)
    out = np.empty_like(pixels)
    for ch, g in enumerate(gains):
        out[..., ch] = np.clip(levels * np.float32(g) + 0.5, 0, 255).astype(np.uint8)[pixels[..., ch]]
    return out


def framed(pixels: np.ndarray, camera: Camera, box: Box | None = None) -> np.ndarray:
    """The photo framed and exposed as `camera` takes it (optionally only the part `box` of the shot),
    before its sensor grain: what two photos differ in under one camera is where they differ."""
    h, w = pixels.shape[:2]
    return expose(warp(pixels, camera.matrix(w, h), box), camera.gains)


def photograph(pixels: np.ndarray, camera: Camera) -> np.ndarray:
    """The whole photo as `camera` takes it: framed, exposed and with this shot's grain added."""
    out = framed(pixels, camera)
    rng = np.random.default_rng(camera.noise)
    grain = GRAIN_STEPS[rng.integers(len(GRAIN_STEPS), size=out.shape[:2] + (1,))] * np.float32(PHOTO_GRAIN)
    return np.clip(out + grain + 0.5, 0, 255).astype(np.uint8)
