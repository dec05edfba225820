"""The DiCoBench paper's resolution ablation (Figure 6): show the model only the cue's region.

`crop` cuts both images to a window around the cues; `crop-resize` then scales that window
back to the image's original size, so the cue fills more of the picture. The window has the
image's aspect ratio (the resize never distorts), covers CONTEXT times the cues' extent and at
least MIN_SCALE of each side (context around the cue), and is the same for both images, which
is where a difference or commonality must be compared. Rows without cues (answer E: nothing
differs or nothing is shared) get a centred window of MIN_SCALE, the size most cue windows
have, so a crop's size or place does not give the answer away.
"""

from __future__ import annotations

from typing import Sequence

from PIL import Image

from dicobench.kit.scene.geometry import xyxy

VIEWS = ("full", "crop", "crop-resize")
CONTEXT = 3.0  # window extent / cues' extent, on the tighter of the two axes
MIN_SCALE = 0.25  # window side / image side, at least


def crop_box(size: tuple[int, int], cues: Sequence[dict]) -> tuple[int, int, int, int]:
    """(left, top, right, bottom) of the window for an image of `size` with these cues (xywh)."""
    width, height = size
    if cues:
        left = min(c["bbox"][0] for c in cues)
        top = min(c["bbox"][1] for c in cues)
        right = max(c["bbox"][0] + c["bbox"][2] for c in cues)
        bottom = max(c["bbox"][1] + c["bbox"][3] for c in cues)
        scale = min(1.0, max(MIN_SCALE, CONTEXT * max((right - left) / width, (bottom - top) / height)))
        cx, cy = (left + right) / 2, (top + bottom) / 2
    else:
        scale, cx, cy = MIN_SCALE, width / 2, height / 2
    w, h = max(1, round(width * scale)), max(1, round(height * scale))
    x = min(max(0, round(cx - w / 2)), width - w)  # slide the window inside the image, never shrink it
    y = min(max(0, round(cy - h / 2)), height - h)
    return xyxy((x, y, w, h))


def apply_view(images: Sequence[Image.Image], cues: Sequence[dict], view: str) -> list[Image.Image]:
    """The images as `view` shows them; one window (fitted to the smallest image) for all."""
    if view not in VIEWS:
        raise ValueError(f"unknown view {view!r}; expected one of {', '.join(VIEWS)}")
    if view == "full":
        return list(images)
    box = crop_box((min(i.width for i in images), min(i.height for i in images)), cues)
    crops = [image.crop(box) for image in images]
    if view == "crop-resize":
        crops = [c.resize(i.size, Image.Resampling.LANCZOS) for c, i in zip(crops, images)]
    return crops
