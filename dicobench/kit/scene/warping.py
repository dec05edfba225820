"""Resampling pixels through an affine map: what a camera's framing does to a photo, to a
surface's smooth shading and to a drawn patch."""

from __future__ import annotations

import numpy as np
from PIL import Image

from dicobench.kit.scene.geometry import Box

KERNEL_REACH = 3  # px of source beyond a box that bicubic resampling reads (its kernel reaches 2)


def inverse(matrix: np.ndarray) -> np.ndarray:
    """The inverse of a 2x3 affine map."""
    linear = np.linalg.inv(matrix[:, :2])
    return np.hstack([linear, -(linear @ matrix[:, 2])[:, None]])


def source_box(matrix: np.ndarray, box: Box) -> tuple[int, int, int, int]:
    """(x0, y0, x1, y1) of the source that output `box` reads through the affine `matrix`."""
    bx, by, bw, bh = box
    corners = np.array([[bx, by, 1], [bx + bw, by, 1], [bx, by + bh, 1], [bx + bw, by + bh, 1]],
                       float) @ inverse(matrix).T
    x0, y0 = np.floor(corners.min(axis=0)).astype(int) - KERNEL_REACH
    x1, y1 = np.ceil(corners.max(axis=0)).astype(int) + KERNEL_REACH
    return int(x0), int(y0), int(x1), int(y1)


def warp(pixels: np.ndarray, matrix: np.ndarray, box: Box | None = None, edges: str = "symmetric",
         resample: Image.Resampling = Image.Resampling.BICUBIC) -> np.ndarray:
    """The part `box` of the output (default: the source's own extent) of `pixels` (HxWx3 or HxW
    uint8, or HxW float32) moved by the affine `matrix` (source to output coordinates), resampled
    as `resample` says. Beyond its edges the source is continued as `edges` says (numpy's pad
    modes: "symmetric" mirrors a surface, "constant" leaves a patch transparent)."""
    h, w = pixels.shape[:2]
    bx, by, bw, bh = box or (0, 0, w, h)
    x0, y0, x1, y1 = source_box(matrix, (bx, by, bw, bh))
    crop = pixels[max(y0, 0) : min(y1, h), max(x0, 0) : min(x1, w)]
    pad = [(max(-y0, 0), max(y1 - h, 0)), (max(-x0, 0), max(x1 - w, 0))] + [(0, 0)] * (pixels.ndim - 2)
    if any(p for pair in pad for p in pair):
        crop = np.pad(crop, pad, mode=edges)
    mode = "F" if crop.dtype == np.float32 else ("RGB" if crop.ndim == 3 else "L")
    back = inverse(matrix)
    # output pixel (u, v) of the box lies at (u + bx, v + by); where it reads, relative to the crop
    a, b, d, e = back[0, 0], back[0, 1], back[1, 0], back[1, 1]
    c = a * bx + b * by + back[0, 2] - x0
    f = d * bx + e * by + back[1, 2] - y0
    out = Image.fromarray(np.ascontiguousarray(crop), mode).transform((bw, bh), Image.Transform.AFFINE,
                                                                       (a, b, c, d, e, f), resample=resample)
    return np.asarray(out)
