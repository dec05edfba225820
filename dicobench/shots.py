"""A camera per image: how a row's images are taken again, each through its own camera.

A pair rendered twice from one scene is pixel-identical outside the edit, so `abs(a - b)` finds
the change without looking. `dicobench.rows.make_row` therefore checks every pair on its clean
renders, as always, and then writes image a as camera A takes it and image b as camera B does
(`dicobench.kit.scene.camera`): procedural scenes are rendered again through the camera (objects
moved, the surface's shading resampled, its marks redrawn, this shot's own grain),
photos go through the pixel-level camera (`photograph`). Cue boxes are mapped through their
image's camera; each row records both cameras in its `generator` column (`cameras(row)`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np

from dicobench.checks import Rejected
from dicobench.kit.scene.camera import Camera, framed, photograph
from dicobench.kit.scene.geometry import Box
from dicobench.kit.scene.model import Scene
from dicobench.kit.scene.render import changed_box, render, render_edit
from dicobench.kit.scene.warping import KERNEL_REACH


class Views(Protocol):
    """How a proposal's images look through a camera; `index` is a candidate's, None the E pair's
    image b. `change` gives, over a box holding every pixel where they may differ, the E pair's
    image b and candidate `index`'s as one camera takes them: where a shot shows the change."""

    def image_a(self, prop, camera: Camera) -> np.ndarray: ...

    def image_b(self, prop, index: int | None, camera: Camera) -> np.ndarray: ...

    def change(self, prop, index: int, camera: Camera) -> tuple[Box, np.ndarray, np.ndarray]: ...


@dataclass(frozen=True)
class SceneShots:
    """Procedural proposals: each image is its scene rendered again through the camera (a
    candidate's image b as the E pair's shot with the part its edit changed drawn again)."""

    scene_a: Scene
    scene_b: Scene  # the E pair's image b
    scenes: tuple[Scene, ...]  # each candidate's image b
    _taken: dict = field(default_factory=dict, compare=False, repr=False)  # (image, camera) -> shot, within a row

    def _shot(self, scene: Scene, camera: Camera) -> np.ndarray:
        key = (id(scene), camera)
        if key not in self._taken:
            self._taken[key] = render(scene, camera=camera)
        return self._taken[key]

    def image_a(self, prop, camera: Camera) -> np.ndarray:
        return self._shot(self.scene_a, camera)

    def image_b(self, prop, index: int | None, camera: Camera) -> np.ndarray:
        if index is None:
            return self._shot(self.scene_b, camera)
        box = changed_box(self.scene_b, self.scenes[index], camera)
        return render_edit(self._shot(self.scene_b, camera), self.scenes[index], [box] if box else [], camera)

    def change(self, prop, index: int, camera: Camera) -> tuple[Box, np.ndarray, np.ndarray]:
        scene = self.scenes[index]
        box = changed_box(self.scene_b, scene, camera) or (0, 0, 0, 0)
        return box, render(self.scene_b, box, camera), render(scene, box, camera)


class Photographs:
    """Photo proposals: each image is its pixels through the pixel-level camera."""

    def image_a(self, prop, camera: Camera) -> np.ndarray:
        return photograph(prop.image_a, camera)

    def image_b(self, prop, index: int | None, camera: Camera) -> np.ndarray:
        return photograph(prop.image_b if index is None else prop.candidates[index].image_b, camera)

    def change(self, prop, index: int, camera: Camera) -> tuple[Box, np.ndarray, np.ndarray]:
        # one camera gives two photos the same grain: without it they differ where the framed photos do
        cand = prop.candidates[index]
        image_b = cand.image_b
        h, w = image_b.shape[:2]
        box = (0, 0, w, h) if cand.changed is None else camera.map_box(cand.changed, w, h, KERNEL_REACH)[0]
        return box, framed(prop.image_b, camera, box), framed(image_b, camera, box)


PHOTOGRAPHS = Photographs()


def mapped(cues: list[dict], cameras: tuple[Camera | None, Camera | None], shapes: tuple[tuple, tuple]) -> list[dict]:
    """The cues as their images' cameras see them (`cameras` and `shapes` by image: 0 = a, 1 = b;
    None: the clean render, cues as they are): each box mapped and grown by
    `dicobench.kit.scene.camera.CUE_MARGIN`. A box the shot moves more than that margin out of the
    frame is rejected: its cue would no longer hold all it showed."""
    out = []
    for c in cues:
        camera = cameras[c["image"]]
        if camera is None:
            out.append(c)
            continue
        h, w = shapes[c["image"]][:2]
        box, fits = camera.map_box(tuple(c["bbox"]), w, h)
        if not fits:
            raise Rejected("cue_leaves_frame", c["label"])
        out.append({**c, "bbox": [int(v) for v in box]})
    return out


def note(cameras: tuple[Camera, Camera]) -> str:
    """What the `generator` column adds for a row shot through cameras (parsed back by `cameras`)."""
    return "".join(f"; camera {name}: {camera.describe()}" for name, camera in zip("ab", cameras))


_NOTE = re.compile(r"; camera a: ([^;]*); camera b: ([^;]*)")


def cameras(row: dict) -> tuple[Camera, Camera] | None:
    """The cameras a row's image a and image b were taken through, read from its `generator`
    column; None for a row written from the clean renders (`--camera none`)."""
    found = _NOTE.search(row["generator"])
    return None if found is None else (Camera.parse(found.group(1)), Camera.parse(found.group(2)))
