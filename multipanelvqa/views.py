"""Eval views for the paper's isolation ablation (Figure 4), on the questions that target one
subfigure (Q2, whose question names the target by its position).

- `full`: the composite as built (the benchmark);
- `isolated`: every other subfigure blanked to the background, the target left at its place;
- `single`: the target subfigure alone, cut out at its size, as the image.
"""

from __future__ import annotations

import numpy as np
from PIL import Image

from dicobench.kit.scene.geometry import xyxy
from multipanelvqa.composite.augment import Chessboard
from multipanelvqa.composite.compose import chessboard

VIEWS = ("full", "isolated", "single")
TARGETED = ("q2",)  # question types that target one subfigure


def targets_one(question_type: str) -> bool:
    return question_type in TARGETED


def background(image: Image.Image, boxes, augmentation: str) -> Image.Image:
    """The canvas without its subfigures: the chessboard of that config, else a plain canvas of the
    colour that covers most of the image outside the subfigures (white for synthetic builds)."""
    if augmentation == "chessboard" and image.width == image.height:
        return chessboard(image.width, Chessboard().square)
    rgb = np.asarray(image.convert("RGB"))
    outside = np.ones(rgb.shape[:2], dtype=bool)
    for x, y, w, h in boxes:
        outside[y:y + h, x:x + w] = False
    colour = (255, 255, 255)
    if outside.any():
        packed = rgb[outside].astype(np.uint32) @ np.array([1 << 16, 1 << 8, 1], dtype=np.uint32)
        values, counts = np.unique(packed, return_counts=True)
        top = int(values[counts.argmax()])
        colour = (top >> 16, (top >> 8) & 255, top & 255)
    return Image.new("RGB", image.size, colour)


def apply_view(row: dict, view: str) -> Image.Image:
    """The image of `row` (a dataset row with `image`, `subfigures`, `target_index`) for `view`."""
    if view not in VIEWS:
        raise ValueError(f"unknown view {view!r}; expected one of {', '.join(VIEWS)}")
    image = row["image"]
    if view == "full":
        return image
    boxes = [tuple(s["bbox"]) for s in row["subfigures"]]
    if view == "single":
        return image.convert("RGB").crop(xyxy(boxes[row["target_index"]]))
    plain = background(image, boxes, row.get("augmentation", ""))
    out = image.convert("RGB")
    for i, box in enumerate(boxes):
        if i != row["target_index"]:
            out.paste(plain.crop(xyxy(box)), box[:2])
    return out
