"""Classical region proposals for photos without annotated objects: small salient contours (OpenCV,
which only the `edit` extra installs)."""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

from dicobench.kit.errors import UserError
from dicobench.kit.photos.model import PhotoObject
from dicobench.kit.scene.geometry import Box, overlap_share


def require_opencv() -> None:
    """Photo sources find and edit regions with OpenCV, which only the `edit` extra installs."""
    try:
        import cv2  # noqa: F401
    except ImportError:
        raise UserError("photo sources need OpenCV, which the edit extra installs: "
                        "pip install 'dicobench[edit]'") from None


@dataclass(frozen=True)
class ProposalConfig:
    """Small salient regions: contours of strong edges whose box covers between `min_area` and
    `max_area` of the photo and whose colour stands off the ring around them."""

    max_area: float = 0.01
    min_area: float = 0.0004
    min_contrast: float = 12.0  # Lab distance between the region and its surrounding ring
    max_regions: int = 24
    max_overlap: float = 0.0  # proposals may not overlap each other (edits on them stay apart)
    canny: tuple[int, int] = field(default=(60, 160))
    work_side: int = 1024  # larger photos are searched at this long side: edges look alike at any resolution


def propose_regions(pixels: np.ndarray, cfg: ProposalConfig = ProposalConfig()) -> list[PhotoObject]:
    """Salient small regions, most contrasting first (deterministic)."""
    import cv2

    scale = cfg.work_side / max(pixels.shape[:2])
    if scale < 1:
        size = (round(pixels.shape[1] * scale), round(pixels.shape[0] * scale))
        found = propose_regions(cv2.resize(pixels, size, interpolation=cv2.INTER_AREA),
                                replace(cfg, work_side=max(size)))
        return [_scaled(p, 1 / scale, pixels.shape) for p in found]
    h, w = pixels.shape[:2]
    lab = cv2.cvtColor(pixels, cv2.COLOR_RGB2LAB).astype(np.float32)
    edges = cv2.Canny(cv2.GaussianBlur(cv2.cvtColor(pixels, cv2.COLOR_RGB2GRAY), (5, 5), 0), *cfg.canny)
    closed = cv2.morphologyEx(edges, cv2.MORPH_CLOSE, np.ones((5, 5), np.uint8))
    contours, _ = cv2.findContours(closed, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    scored = []
    for contour in contours:
        x, y, bw, bh = cv2.boundingRect(contour)
        if not cfg.min_area * h * w <= bw * bh <= cfg.max_area * h * w or max(bw, bh) > 4 * min(bw, bh):
            continue
        if x == 0 or y == 0 or x + bw == w or y + bh == h:
            continue  # cut by the frame: not a whole object
        inside = np.zeros((bh, bw), np.uint8)
        cv2.drawContours(inside, [contour - [x, y]], -1, 1, thickness=cv2.FILLED)
        if inside.sum() < 0.3 * bw * bh:
            continue
        pad = max(bw, bh) // 2
        rx0, ry0, rx1, ry1 = max(x - pad, 0), max(y - pad, 0), min(x + bw + pad, w), min(y + bh + pad, h)
        ring = np.ones((ry1 - ry0, rx1 - rx0), bool)
        ring[y - ry0 : y - ry0 + bh, x - rx0 : x - rx0 + bw] = False
        region = lab[y : y + bh, x : x + bw][inside.astype(bool)].mean(axis=0)
        contrast = float(np.linalg.norm(region - lab[ry0:ry1, rx0:rx1][ring].mean(axis=0)))
        if contrast >= cfg.min_contrast:
            scored.append((-contrast, (x, y, bw, bh)))
    chosen: list[Box] = []
    for _, box in sorted(scored):
        if all(overlap_share(box, other) <= cfg.max_overlap for other in chosen):
            chosen.append(box)
        if len(chosen) == cfg.max_regions:
            break
    return [PhotoObject(box) for box in chosen]


def _scaled(obj: PhotoObject, factor: float, shape: tuple[int, ...]) -> PhotoObject:
    """A box found on a reduced copy, in the photo's pixels (grown by a pixel against rounding)."""
    x0, y0 = max(int(obj.box[0] * factor) - 1, 0), max(int(obj.box[1] * factor) - 1, 0)
    x1 = min(int(np.ceil((obj.box[0] + obj.box[2]) * factor)) + 1, shape[1])
    y1 = min(int(np.ceil((obj.box[1] + obj.box[3]) * factor)) + 1, shape[0])
    return replace(obj, box=(x0, y0, x1 - x0, y1 - y0))
