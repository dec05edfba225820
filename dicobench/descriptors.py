"""How hard a row is, measured without a model: pure functions of its pixels and scenes.

The paper's mechanism is that a cue a person finds at full size with zoom is gone once a
model shrinks the pair to its viewer's size. A difference row is described by the cue's
share of the image, how many pixels change and by how much, and how many still differ
visibly after area-downscaling both images to a few long sides; a commonality row by the
shared object's size and the decoys around it (other objects of its kind or its colour).
"""

from __future__ import annotations

import statistics

import numpy as np
from PIL import Image

from dicobench.kit.scene.palette import COLOURS, lab_distance

VISIBLE = 24  # a pixel differs visibly when some channel moves by more than this many levels
VIEW_SIDES = (448, 1024, 2048)  # long sides models commonly see an image at


def shrink(pixels: np.ndarray, long_side: int) -> np.ndarray:
    """The image area-downscaled (box filter) to `long_side`; unchanged if it is not larger."""
    h, w = pixels.shape[:2]
    if max(h, w) <= long_side:
        return pixels
    return np.asarray(Image.fromarray(pixels).resize(_shrunk_size(h, w, long_side), Image.Resampling.BOX))


def _shrunk_size(h: int, w: int, long_side: int) -> tuple[int, int]:
    scale = long_side / max(h, w)
    return max(1, round(w * scale)), max(1, round(h * scale))


def shrink_region(pixels: np.ndarray, long_side: int, box: tuple[int, int, int, int]) -> np.ndarray:
    """The pixels `shrink` gives over the output pixels that `box` (x, y, w, h, full size) reaches,
    computed for that region only (the box filter's weights are the same)."""
    h, w = pixels.shape[:2]
    if max(h, w) <= long_side:
        x, y, bw, bh = box
        return pixels[y : y + bh, x : x + bw]
    out_w, out_h = _shrunk_size(h, w, long_side)
    sx, sy = w / out_w, h / out_h
    j0, i0 = int(box[0] // sx), int(box[1] // sy)
    j1, i1 = min(out_w, int(-(-(box[0] + box[2]) // sx)) + 1), min(out_h, int(-(-(box[1] + box[3]) // sy)) + 1)
    region = (j0 * sx, i0 * sy, j1 * sx, i1 * sy)
    return np.asarray(Image.fromarray(pixels).resize((j1 - j0, i1 - i0), Image.Resampling.BOX, box=region))


def visible_pixels(a: np.ndarray, b: np.ndarray) -> int:
    return int((np.abs(a.astype(np.int16) - b.astype(np.int16)).max(axis=2) > VISIBLE).sum())


def difference(image_a: np.ndarray, image_b: np.ndarray, cues: list[dict]) -> dict:
    """Descriptors of one difference pair as written (image b is image a with the change, inside
    the cue boxes: the checks guarantee it, so only the cues' region is compared; with no cue
    the whole image is)."""
    h, w = image_a.shape[:2]
    if cues:
        x0 = max(0, min(c["bbox"][0] for c in cues))
        y0 = max(0, min(c["bbox"][1] for c in cues))
        x1 = min(w, max(c["bbox"][0] + c["bbox"][2] for c in cues))
        y1 = min(h, max(c["bbox"][1] + c["bbox"][3] for c in cues))
        region = (x0, y0, x1 - x0, y1 - y0)
    else:
        region = (0, 0, w, h)
    x, y, rw, rh = region
    crop_a, crop_b = image_a[y : y + rh, x : x + rw], image_b[y : y + rh, x : x + rw]
    step = np.abs(crop_a.astype(np.int16) - crop_b.astype(np.int16)).max(axis=2)
    changed = step[step > 0]
    cue_area = max((c["bbox"][2] * c["bbox"][3] for c in cues), default=0)
    return {
        "cue_share": cue_area / (h * w),
        "changed_pixels": int(changed.size),
        "contrast": float(np.median(changed)) if changed.size else 0.0,
        "visible": int((step > VISIBLE).sum()),
        "visible_at": {str(side): visible_pixels(shrink_region(image_a, side, region),
                                                 shrink_region(image_b, side, region))
                       for side in VIEW_SIDES},
    }


def clutter(scene, subject: str) -> dict:
    """The base scene of a difference pair: how many objects it holds, and how many others
    share the name of the object the answer changes (same-kind distractors: `same_kind`)."""
    return {"objects": len(scene.objects), "namesakes": max(0, sum(o.name == subject for o in scene.objects) - 1)}


def decoys(counts: list[tuple[int, int]]) -> dict:
    """A difference row's decoys (`dicobench.editors.scene.decoys`): places outside the cue that fit
    the true option's before-description in image 1 (`decoys_before`) and its after-description in
    image 2 (`decoys_after`); for an E row, `counts` holds every option's and the least is kept."""
    return {"decoys_before": min(c[0] for c in counts), "decoys_after": min(c[1] for c in counts)}


def commonality(scenes: tuple, cues: list[dict], footprint) -> dict:
    """Descriptors of a commonality pair: the shared objects (those the cue boxes frame) and,
    over both scenes, the other objects of their category and of their colour, with how close
    in colour (Lab distance) the nearest same-kind decoy comes. `footprint(obj)` is the box
    an object is drawn in (`dicobench.kit.scene.render.footprint`)."""
    from dicobench.kit.scene.catalogue import by_name

    entries = by_name()
    boxes = {(c["image"], tuple(c["bbox"])) for c in cues}
    shared = [(i, o) for i, scene in enumerate(scenes) for o in scene.objects if (i, tuple(footprint(o))) in boxes]
    h = max(s.height for s in scenes)
    w = max(s.width for s in scenes)
    out = {"objects": sum(len(s.objects) for s in scenes), "shared_size": 0.0, "shared_share": 0.0,
           "same_kind": 0, "same_colour": 0, "nearest_kind_colour": None}
    if not shared:
        return out
    keys = {(i, o.uid) for i, o in shared}
    kinds = {entries[o.name].category for _, o in shared}
    colours = {o.colour for _, o in shared}
    others = [o for i, s in enumerate(scenes) for o in s.objects if (i, o.uid) not in keys]
    same_kind = [o for o in others if entries[o.name].category in kinds]
    sizes = [footprint(o) for _, o in shared]
    out.update(
        shared_size=statistics.mean(max(b[2], b[3]) for b in sizes),
        shared_share=statistics.mean(b[2] * b[3] for b in sizes) / (h * w),
        same_kind=len(same_kind),
        same_colour=sum(o.colour in colours for o in others),
        nearest_kind_colour=min((lab_distance(COLOURS[o.colour], COLOURS[c]) for o in same_kind for c in colours),
                                default=None),
    )
    return out


def summary(rows: list[dict]) -> dict:
    """Per-task medians (and the smallest full-size count) over rows' descriptors; E rows and
    rows without descriptors are left out, but for the share of rows (E rows too) with a decoy
    of both states the true option names (`decoy_share`)."""
    diff = [r for r in rows if "visible" in r]
    decoyed = [r for r in rows if "decoys_before" in r]
    if diff:
        return {
            "rows": len(diff),
            "cue_share_median": statistics.median(r["cue_share"] for r in diff),
            "changed_median": statistics.median(r["changed_pixels"] for r in diff),
            "contrast_median": statistics.median(r["contrast"] for r in diff),
            "visible_min": min(r["visible"] for r in diff),
            "visible_median": statistics.median(r["visible"] for r in diff),
            **{f"visible_{s}_median": statistics.median(r["visible_at"][str(s)] for r in diff) for s in VIEW_SIDES},
            **({"objects_median": statistics.median(r["objects"] for r in diff),
                "namesake_share": sum(r["namesakes"] > 0 for r in diff) / len(diff)}
               if all("objects" in r for r in diff) else {}),
            **({"decoy_share": sum(r["decoys_before"] > 0 and r["decoys_after"] > 0 for r in decoyed) / len(decoyed)}
               if decoyed else {}),
        }
    common = [r for r in rows if r.get("shared_size")]
    if common:
        return {
            "rows": len(common),
            "objects_median": statistics.median(r["objects"] for r in common),
            "shared_size_median": statistics.median(r["shared_size"] for r in common),
            "shared_share_median": statistics.median(r["shared_share"] for r in common),
            "same_kind_median": statistics.median(r["same_kind"] for r in common),
            "same_colour_median": statistics.median(r["same_colour"] for r in common),
        }
    return {"rows": 0}
