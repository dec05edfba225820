"""Rendering scenes to pixels, deterministically and region by region.

Every object and trace is drawn into its own patch, independent of where it is placed,
and composited with per-pixel arithmetic. Rendering any rectangle from scratch therefore
gives exactly the pixels a full render gives there, which is what lets an edit re-render
only the rectangles it touched while the rest of the image stays byte-identical.
"""

from __future__ import annotations

import dataclasses
import functools
import math
from dataclasses import dataclass

import numpy as np
from PIL import Image, ImageDraw, ImageFilter

from dicobench.kit.scene import markings, row_caches
from dicobench.kit.scene.camera import Camera
from dicobench.kit.scene.catalogue import by_name
from dicobench.kit.scene.geometry import Box, bounding, intersect
from dicobench.kit.scene.glyphs import GLYPHS_KEPT, glyph_mask
from dicobench.kit.scene.model import PlacedObject, Scene, Trace
from dicobench.kit.scene.palette import COLOURS
from dicobench.kit.scene.row_caches import per_row
from dicobench.kit.scene.textures import SurfaceView, make_background
from dicobench.kit.scene.trace_kernels import kernel, origin
from dicobench.kit.scene.warping import warp


@dataclass(frozen=True)
class Patch:
    rgb: np.ndarray  # HxWx3 float32
    alpha: np.ndarray  # HxW float32 in [0, 1]
    x: int  # top-left on the canvas
    y: int
    box: Box  # tight box of the visible pixels, in canvas coordinates


def _tight_box(alpha: np.ndarray, x: int, y: int) -> Box:
    seen = alpha > 0.5 / 255
    cols = np.flatnonzero(seen.any(axis=0))
    if len(cols) == 0:
        return (x, y, 0, 0)
    rows = np.flatnonzero(seen.any(axis=1))
    return (x + int(cols[0]), y + int(rows[0]), int(cols[-1] - cols[0] + 1), int(rows[-1] - rows[0] + 1))


def _rgb(name: str) -> np.ndarray:
    return np.asarray(COLOURS[name], dtype=np.float32)


def _pattern(obj: PlacedObject, h: int, w: int) -> np.ndarray:
    """Where the accent colour goes (HxW bool): the style's pattern plus the instance's marking."""
    yy, xx = np.mgrid[0:h, 0:w]
    accent = np.zeros((h, w), bool)
    if obj.style == "striped":
        accent |= (((xx - yy) if obj.turned else (xx + yy)) // max(3, obj.size // 9)) % 2 == 1
    elif obj.style == "dotted":
        step = max(7, obj.size // 5)
        accent |= (xx % step - step / 2) ** 2 + (yy % step - step / 2) ** 2 < (0.3 * step) ** 2
    elif obj.style == "two_tone":
        accent |= yy > h / 2
    if obj.marking is not None:
        accent |= marking_area(obj, h, w)
    return accent


def marking_area(obj: PlacedObject, h: int, w: int) -> np.ndarray:
    """Where `obj`'s marking lies on its upright h x w glyph patch (HxW bool): fitted to the body
    (`dicobench.kit.scene.markings`), or at the first release's fixed places, before the glyph clips it."""
    if obj.marking_fit:
        return markings.fitted_area(obj.name, obj.size, obj.marking)[0]
    return markings.fixed_area(obj.marking, obj.size, h, w)


def _damage(obj: PlacedObject, fill: np.ndarray, mask: np.ndarray) -> None:
    """Draw a crack or a scorch mark into `fill`, inside the glyph."""
    h, w = mask.shape
    rng = np.random.default_rng(obj.damage_seed)
    inside = np.argwhere(mask > 0.9)
    if len(inside) == 0:
        return
    if obj.damage == "crack":
        layer = Image.new("L", (w, h), 0)
        y, x = inside[rng.integers(len(inside))]
        cy, cx = inside.mean(axis=0)
        heading = math.atan2(cy - y, cx - x)  # run across the body, not off its edge
        pts = [(float(x), float(y))]
        for _ in range(10):
            for _ in range(6):  # a step that leaves the object turns instead
                turn = heading + rng.uniform(-0.7, 0.7)
                nx, ny = x + math.cos(turn) * obj.size * 0.1, y + math.sin(turn) * obj.size * 0.1
                if 0 <= int(ny) < h and 0 <= int(nx) < w and mask[int(ny), int(nx)] > 0.5:
                    x, y, heading = nx, ny, turn
                    pts.append((float(x), float(y)))
                    break
        ImageDraw.Draw(layer).line(pts, fill=255, width=max(3, obj.size // 12))
        crack = (np.asarray(layer, np.float32) / 255.0) * (mask > 0.5)
        # a crack reads as a dark line on light surfaces and a pale one on dark surfaces
        ink = 235.0 if float(_rgb(obj.colour).mean()) < 90 else 15.0
        fill[:] = fill * (1 - 0.9 * crack[..., None]) + ink * 0.9 * crack[..., None]
    elif obj.damage == "scorch":
        y, x = inside[rng.integers(len(inside))]
        yy, xx = np.mgrid[0:h, 0:w]
        sigma = obj.size * 0.22
        burn = np.exp(-((xx - x) ** 2 + (yy - y) ** 2) / (2 * sigma**2)).astype(np.float32)
        soot = np.asarray((30, 22, 18), np.float32)
        fill[:] = fill * (1 - 0.95 * burn[..., None]) + soot * (0.95 * burn[..., None])


def _turned(rgba: Image.Image, degrees: float) -> tuple[np.ndarray, np.ndarray]:
    """Colour and coverage of an upright RGBA drawing turned by `degrees`, grown to hold it."""
    out = np.asarray(rgba.rotate(degrees, resample=Image.Resampling.BICUBIC, expand=True), np.float32)
    return out[..., :3], out[..., 3] / 255.0


def _turned_coverage(alpha: np.ndarray, degrees: float) -> np.ndarray:
    """`_turned`'s coverage alone. The same, because Pillow turns an RGBA image's alpha band by
    itself (bicubic, through premultiplied RGBa); a Pillow that did not would change footprints,
    which `tests/kit/test_render.py` compares with the drawn patches'."""
    turned = Image.fromarray(_as_bytes(alpha), "L").rotate(degrees, resample=Image.Resampling.BICUBIC, expand=True)
    return np.asarray(turned, np.float32) / 255.0


def _as_bytes(alpha: np.ndarray) -> np.ndarray:
    return np.clip(alpha * 255 + 0.5, 0, 255).astype(np.uint8)


def _shadowed(alpha: np.ndarray, size: int, opacity: float) -> tuple[np.ndarray, np.ndarray, int]:
    """The object's coverage padded for its drop shadow, the shadow's coverage where the object
    leaves it seen (zero without a shadow), and the pad."""
    pad = int(size * 0.15) + 4
    h, w = alpha.shape
    a = np.zeros((h + 2 * pad, w + 2 * pad), np.float32)
    a[pad : pad + h, pad : pad + w] = alpha
    if not opacity > 0:  # as `_with_shadow` reads it
        return a, np.zeros_like(a), pad
    dx, dy = round(size * 0.05) + 1, round(size * 0.07) + 1  # under the pad for any size
    shifted = np.zeros(a.shape, np.uint8)
    shifted[pad + dy : pad + dy + h, pad + dx : pad + dx + w] = _as_bytes(alpha)
    blurred = Image.fromarray(shifted, "L").filter(ImageFilter.GaussianBlur(size * 0.04 + 1))
    shadow = np.asarray(blurred, np.float32) / 255.0 * opacity
    return a, shadow * (1 - a), pad


def _with_shadow(rgb: np.ndarray, alpha: np.ndarray, size: int, opacity: float) -> tuple[np.ndarray, np.ndarray, int]:
    a, seen, pad = _shadowed(alpha, size, opacity)
    h, w = alpha.shape
    c = np.zeros((*a.shape, 3), np.float32)
    c[pad : pad + h, pad : pad + w] = rgb
    if opacity > 0:
        out_a = a + seen
        held = np.maximum(out_a, 1e-6)
        c = c * (a / held)[..., None] + 20.0 * (seen / held)[..., None]
        a = out_a
    return c, a, pad


@per_row(8192)
def object_patch(obj: PlacedObject) -> Patch:
    """The object's pixels where it stands; drawn once per look, whatever the place (and kept
    per place too: a row's renders ask for each placed object many times)."""
    rgb, alpha, dx, dy, box = _object_pixels(dataclasses.replace(obj, uid=0, cx=0, cy=0))
    return Patch(rgb, alpha, obj.cx + dx, obj.cy + dy, (obj.cx + box[0], obj.cy + box[1], box[2], box[3]))


@per_row(4096)
def _object_pixels(obj: PlacedObject):
    upright = dataclasses.replace(obj, rotation=0, shadow=0.0)
    rgb, alpha = _turned(_drawing(upright), obj.rotation) if obj.rotation % 360 else _upright(upright)
    rgb, alpha, pad = _with_shadow(rgb, alpha, obj.size, obj.shadow)
    dx, dy = _offset(alpha.shape, pad)
    return rgb, alpha, dx, dy, _tight_box(alpha, dx, dy)


def _offset(shape: tuple[int, int], pad: int) -> tuple[int, int]:
    """Where a patch of `shape` (padded by `pad`) starts, from the object's centre."""
    rh, rw = shape
    return -((rw - 2 * pad) // 2) - pad, -((rh - 2 * pad) // 2) - pad


@per_row(8192)
def _shape_box(name: str, style: str, size: int, rotation: float, shadow: float, mirrored: bool) -> Box:
    """`_object_pixels`' tight box, from the object's coverage alone (colours, patterns and
    markings left undrawn): placement asks for the box of every object it tries, most of which
    are never drawn (a scene drawn and then rejected, a look that does not fit)."""
    obj = PlacedObject(0, name, "black", size, 0, 0, rotation, style, shadow=shadow, mirrored=mirrored)
    alpha = np.maximum(*_glyph_shape(obj))
    if rotation % 360:
        alpha = _turned_coverage(alpha, rotation)
    a, seen, pad = _shadowed(alpha, size, shadow)
    dx, dy = _offset(a.shape, pad)
    return _tight_box(a + seen, dx, dy)


@per_row(4096)
def _drawing(obj: PlacedObject) -> Image.Image:
    """The upright object as the RGBA drawing that is turned: objects of one look in other poses
    (and a camera's larger turns) are turned from here again (kept in bytes, a quarter of its
    floats' memory)."""
    rgb, alpha = _upright(obj)
    return Image.fromarray(np.dstack([np.clip(rgb + 0.5, 0, 255), alpha * 255 + 0.5]).astype(np.uint8), "RGBA")


def _body(codepoint: int, font_style: str, size: int, ring: bool) -> tuple[np.ndarray, np.ndarray]:
    """A glyph's coverage as an object is drawn (`ring`: a ring of the solid glyph, for a hollow
    look the icon has no outline style for) and its dark rim."""
    eroded, rim = _filtered(codepoint, font_style, size, ring)
    return _hollowed(glyph_mask(codepoint, font_style, size), eroded), np.asarray(rim, np.float32) / 255


def _hollowed(mask: np.ndarray, eroded: np.ndarray | None) -> np.ndarray:
    """The glyph's coverage less its `eroded` inside (bytes): a ring; the coverage itself without one."""
    return mask if eroded is None else np.clip(mask - np.asarray(eroded, np.float32) / 255, 0, 1)


@functools.lru_cache(maxsize=GLYPHS_KEPT)
def _filtered(codepoint: int, font_style: str, size: int, ring: bool) -> tuple[np.ndarray | None, np.ndarray]:
    """`_body`'s filtered glyphs in bytes (the ring's inside, the rim), kept across rows as the
    glyphs' coverage is: a build draws each glyph at each size many times."""
    mask = glyph_mask(codepoint, font_style, size)
    eroded = None
    if ring:
        k = max(3, (size // 10) | 1)
        eroded = np.asarray(Image.fromarray((mask * 255).astype(np.uint8)).filter(ImageFilter.MinFilter(k)))
        mask = _hollowed(mask, eroded)
    # A dark rim, as a real object's edge has, keeps it visible on any surface.
    rim = np.asarray(Image.fromarray((mask * 255).astype(np.uint8)).filter(ImageFilter.MaxFilter(3)))
    for array in (eroded, rim):
        if array is not None:
            array.setflags(write=False)
    return eroded, rim


def _glyph_shape(obj: PlacedObject) -> tuple[np.ndarray, np.ndarray]:
    """The upright object's glyph coverage and its dark rim: its shape, whatever its colours."""
    entry = by_name()[obj.name]
    font_style = "regular" if obj.style == "outline" and "regular" in entry.styles else "solid"
    mask, rim = _body(entry.codepoint, font_style, obj.size, obj.style == "outline" and font_style == "solid")
    return (mask[:, ::-1], rim[:, ::-1]) if obj.mirrored else (mask, rim)


def _upright(obj: PlacedObject) -> tuple[np.ndarray, np.ndarray]:
    """The object's colour and coverage before it is turned and given its shadow."""
    mask, rim = _glyph_shape(obj)
    h, w = mask.shape
    fill = np.broadcast_to(_rgb(obj.colour), (h, w, 3)).copy()
    fill[_pattern(obj, h, w)] = _rgb(obj.accent)
    grad = 1.0 + obj.shading * (0.5 - np.arange(h, dtype=np.float32) / max(h - 1, 1))
    fill *= grad[:, None, None]
    if obj.damage:
        _damage(obj, fill, mask)
    edge = _rgb(obj.colour) * 0.4
    rgb = fill * mask[..., None] + edge * (1 - mask)[..., None]
    return np.clip(rgb, 0, 255), np.maximum(mask, rim)


# ---- traces on the surface -------------------------------------------------------------

def trace_extent(trace: Trace) -> int:
    """Side of the square patch a trace is drawn in."""
    return kernel(trace.kind).extent(trace)


def trace_patch(trace: Trace) -> Patch:
    rgb, alpha, box = _kept_trace_pixels(dataclasses.replace(trace, x=0, y=0))
    return Patch(rgb, alpha, trace.x, trace.y, (trace.x + box[0], trace.y + box[1], box[2], box[3]))


def trace_box(trace: Trace) -> Box:
    """Where a trace's pixels are (tight box, canvas coordinates), drawn without keeping them:
    placement draws dozens of traces to keep one, and kept they would hold a row's memory."""
    x, y, w, h = _trace_pixels(dataclasses.replace(trace, x=0, y=0))[2]
    return (trace.x + x, trace.y + y, w, h)


@per_row(512)
def _kept_trace_pixels(trace: Trace):
    return _trace_pixels(trace)


def _trace_pixels(trace: Trace):
    """A trace drawn at the origin: its colour (one colour, broadcast, read-only), coverage and tight box."""
    side = trace_extent(trace)
    layer = Image.new("L", (side, side), 0)
    drawn = kernel(trace.kind)
    drawn.draw(trace, ImageDraw.Draw(layer), *origin(trace, side), np.random.default_rng(trace.seed))
    layer = layer.filter(ImageFilter.GaussianBlur(0.8))
    alpha = np.asarray(layer, np.float32) / 255.0 * (drawn.opacity * trace.opacity)
    rgb = np.broadcast_to(np.asarray(trace.colour, np.float32), (side, side, 3))
    return rgb, alpha, _tight_box(alpha, 0, 0)


# ---- whole scenes ----------------------------------------------------------------------

@per_row(4)
def _background(scene_key: tuple) -> np.ndarray:
    bg = make_background(*scene_key)
    bg.setflags(write=False)
    return bg


def background(scene: Scene, camera: Camera | None = None) -> np.ndarray:
    """The scene's bare surface, or the surface as `camera` takes it."""
    view = None if camera is None else SurfaceView(tuple(camera.matrix(scene.width, scene.height).ravel()),
                                                   camera.gains, camera.noise)
    return _background((scene.background, scene.variant, scene.tint, scene.width, scene.height, scene.texture_seed,
                        scene.marks, scene.grain, scene.cell) + ((view,) if view else ()))


def _composite(canvas: np.ndarray, region: Box, patch: Patch, gains: np.ndarray | None = None) -> None:
    ph, pw = patch.alpha.shape
    hit = intersect(region, (patch.x, patch.y, pw, ph))
    if hit is None:
        return
    x, y, w, h = hit
    cy, cx = y - region[1], x - region[0]
    py, px = y - patch.y, x - patch.x
    a = patch.alpha[py : py + h, px : px + w, None]
    base = canvas[cy : cy + h, cx : cx + w].astype(np.float32)
    rgb = patch.rgb[py : py + h, px : px + w]
    out = base * (1 - a) + (rgb if gains is None else rgb * gains) * a
    canvas[cy : cy + h, cx : cx + w] = np.clip(out + 0.5, 0, 255).astype(np.uint8)


class _Layout:
    """A scene's patches in drawing order (surface traces first, objects on top) as one view sees
    them, with each patch's rectangle (x0, y0, x1, y1 rows of `spans`), so that a region finds the
    few patches it meets at once. A trace's rectangle is known before it is drawn, and it is drawn
    (and, through a camera, resampled) only when a region meets it: a camera's check of one change
    renders a small box of a scene that holds hundreds of traces."""

    def __init__(self, scene: Scene, camera: Camera | None):
        self.scene, self.camera = scene, camera
        self.elements = (*scene.traces, *scene.objects)
        self.drawn: dict[int, Patch] = {}
        rects = []
        for i, element in enumerate(self.elements):
            if isinstance(element, Trace):
                rects.append(_trace_rect(element, scene, camera))
            else:
                patch = self.drawn[i] = shot_patch(element, scene, camera)
                rects.append((patch.x, patch.y, patch.alpha.shape[1], patch.alpha.shape[0]))
        rects = np.array(rects, np.int64).reshape(-1, 4)
        self.spans = np.concatenate([rects[:, :2], rects[:, :2] + rects[:, 2:]], axis=1)

    def meeting(self, region: Box) -> list[Patch]:
        """The patches that cover some pixel of `region`, in drawing order."""
        x, y, w, h = region
        s = self.spans
        hit = np.flatnonzero((s[:, 0] < x + w) & (s[:, 2] > x) & (s[:, 1] < y + h) & (s[:, 3] > y))
        for i in hit:
            if i not in self.drawn:
                self.drawn[i] = shot_patch(self.elements[i], self.scene, self.camera)
        return [self.drawn[i] for i in hit]


@per_row(32)
def _layout(scene: Scene, camera: Camera | None) -> _Layout:
    """A row renders one scene region by region many times (each edit's boxes, each camera's
    view of each change): its layout is made once per view."""
    return _Layout(scene, camera)


def shot_patch(element: PlacedObject | Trace, scene: Scene, camera: Camera | None) -> Patch:
    """An element of `scene` where a view sees it: where it stands without a camera; through
    `camera`, an object moved there (and turned, for a turn past
    `dicobench.kit.scene.camera.POSE_TOLERANCE`), a trace resampled."""
    if camera is None:
        return object_patch(element) if isinstance(element, PlacedObject) else trace_patch(element)
    if isinstance(element, PlacedObject):
        return object_patch(_seen_at(element, scene.width, scene.height, camera))
    return _warped(trace_patch(element), camera.matrix(scene.width, scene.height))


def _trace_rect(trace: Trace, scene: Scene, camera: Camera | None) -> Box:
    """The rectangle `shot_patch` fills for a trace, without drawing it."""
    side = trace_extent(trace)
    rect = (trace.x, trace.y, side, side)
    return rect if camera is None else _warped_rect(camera.matrix(scene.width, scene.height), rect)[1]


@per_row(8192)
def _seen_at(obj: PlacedObject, width: int, height: int, camera: Camera) -> PlacedObject:
    return camera.place(obj, width, height)


def _warped_rect(matrix: np.ndarray, rect: Box) -> tuple[np.ndarray, Box]:
    """The affine map from a patch's own pixels (its rectangle `rect` on the canvas) to the shot,
    and the rectangle of the shot its resampled patch fills."""
    x, y, pw, ph = rect
    local = matrix.copy()
    local[:, 2] += matrix[:, :2] @ np.array([x, y], float)
    corners = np.array([[0, 0, 1], [pw, 0, 1], [0, ph, 1], [pw, ph, 1]], float) @ local.T
    x0, y0 = np.floor(corners.min(axis=0)).astype(int) - 2
    x1, y1 = np.ceil(corners.max(axis=0)).astype(int) + 2
    return local, (int(x0), int(y0), int(x1 - x0), int(y1 - y0))


def _warped(patch: Patch, matrix: np.ndarray) -> Patch:
    """A patch moved by the affine `matrix` (canvas to shot coordinates), alpha and colour resampled."""
    ph, pw = patch.alpha.shape
    local, box = _warped_rect(matrix, (patch.x, patch.y, pw, ph))
    alpha = np.clip(warp(patch.alpha.astype(np.float32), local, box, edges="constant"), 0, 1)
    ink = [warp(np.ascontiguousarray(patch.rgb[..., ch] * patch.alpha, np.float32), local, box, edges="constant")
           for ch in range(3)]
    rgb = np.stack(ink, axis=-1) / np.maximum(alpha, 1e-6)[..., None]
    return Patch(np.clip(rgb, 0, 255), alpha, box[0], box[1], _tight_box(alpha, box[0], box[1]))


def render(scene: Scene, region: Box | None = None, camera: Camera | None = None) -> np.ndarray:
    """Pixels (HxWx3 uint8) of the scene, or of one rectangle of it; through `camera`, the shot that
    camera takes of the scene (see `dicobench.kit.scene.camera`)."""
    region = region or (0, 0, scene.width, scene.height)
    x, y, w, h = region
    canvas = background(scene, camera)[y : y + h, x : x + w].copy()
    gains = None if camera is None else np.asarray(camera.gains, np.float32)
    for patch in _layout(scene, camera).meeting(region):
        _composite(canvas, region, patch, gains)
    return canvas


def render_edit(base_pixels: np.ndarray, edited: Scene, dirty: list[Box], camera: Camera | None = None) -> np.ndarray:
    """The edited scene's pixels (through `camera`, if given), re-rendering only the rectangles the edit touched."""
    out = base_pixels.copy()
    full = (0, 0, edited.width, edited.height)
    for box in dirty:
        box = intersect(box, full)
        if box is not None:
            x, y, w, h = box
            out[y : y + h, x : x + w] = render(edited, box, camera)
    return out


def footprint(element: PlacedObject | Trace) -> Box:
    """Where an element's pixels are (tight box, canvas coordinates)."""
    if isinstance(element, Trace):
        return trace_patch(element).box
    x, y, w, h = _shape_box(element.name, element.style, element.size, element.rotation, element.shadow,
                              element.mirrored)
    return (element.cx + x, element.cy + y, w, h)


def changed_box(before: Scene, after: Scene, camera: Camera | None = None) -> Box | None:
    """A box holding every pixel where two scenes on one surface render differently (through
    `camera`, if given): around the objects and traces one has and the other has not, as drawn,
    within the canvas; the whole canvas if the elements they share are drawn in another order.
    None where no pixel can differ."""
    objects, traces = set(before.objects) ^ set(after.objects), set(before.traces) ^ set(after.traces)
    shared = [o for o in before.objects if o not in objects], [o for o in after.objects if o not in objects]
    if (shared[0] != shared[1]
            or [t for t in before.traces if t not in traces] != [t for t in after.traces if t not in traces]):
        return (0, 0, after.width, after.height)
    if not objects and not traces:
        return None
    boxes = [footprint(e) if camera is None else shot_patch(e, after, camera).box for e in (*objects, *traces)]
    drawn = [b for b in boxes if b[2] and b[3]]
    return intersect(bounding(drawn), (0, 0, after.width, after.height)) if drawn else None


def clear_caches() -> None:
    """Forget drawn pixels: a build calls this between rows, whose scenes share nothing (glyphs,
    which they do share, are kept: their caches are bounded)."""
    row_caches.clear()
