"""Does a pixel difference still point at the change? The camera per image, measured.

Builds the same benchmark twice in one run, with `--camera none` and `--camera on`, and prints
per config the bytes per row and the largest Dataset Viewer page, and the build time per row.
Then, over the difference rows with a change (answers A-D) of the `none` build, regenerated from
their seeds: the share of rows where the window of the cue's size holding the most `|a - b|`
(summed over channels) overlaps a cue box, for the clean pair, with only image a through its
camera, with only image b through its camera, and with both (what `--camera on` writes); first
with no alignment, then after shifting image b by the whole-pixel offset (up to 16 px) that
best aligns it with image a (cross-correlation), and after aligning each 64 px tile on its own
(the best whole-pixel shift per tile within 6 px of the best global one, exposure and white balance undone). And the
cameras drawn: their largest displacement anywhere in the image, exposure and white-balance changes.

    python benchmarks/bench_camera.py [--per-task 32] [--num-proc 2] [--difficulty hard] [--tasks ...]
    python benchmarks/bench_camera.py --source folder:DIR [--upscale --min-long-side 1024]   # photos
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import multiprocessing as mp
import statistics
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq

from dicobench import build
from dicobench.build import generation_options
from dicobench.build_config import BuildConfig
from dicobench.generate import proposed_row
from dicobench.kit.io.imageio import decode
from dicobench.kit.release.viewer import PAGE_BUDGET, VIEWER_LIMIT, VIEWER_PAGE_ROWS, bytes_per_row, largest_page
from dicobench.kit.scene.camera import draw_cameras
from dicobench.rows import shot_pair
from dicobench.schema import LETTERS, TASKS, track_of

MAX_SHIFT = 16  # px an aligning attacker searches
TILE, TILE_REACH = 64, 6  # the local attacker's blocks and how far (px) it searches for each
ALIGNMENTS = ("none", "global", "tiles")
VARIANTS = {"none": (False, False), "camera a only": (True, False), "camera b only": (False, True),
            "both": (True, True)}


def best_shift(a: np.ndarray, b: np.ndarray, reach: int = MAX_SHIFT) -> tuple[int, int]:
    """(dx, dy) with a[y, x] ~ b[y + dy, x + dx]: the whole-pixel offset (within `reach`) at which
    the images' grey levels correlate best."""
    ga, gb = (img.astype(np.float32).mean(axis=2) for img in (a, b))
    ga -= ga.mean()
    gb -= gb.mean()
    corr = np.fft.irfft2(np.fft.rfft2(gb) * np.conj(np.fft.rfft2(ga)), s=ga.shape)
    h, w = ga.shape
    best, shift = -np.inf, (0, 0)
    for dy in range(-reach, reach + 1):
        for dx in range(-reach, reach + 1):
            if corr[dy % h, dx % w] > best:
                best, shift = corr[dy % h, dx % w], (dx, dy)
    return shift


def overlap(shape: tuple[int, int], shift: tuple[int, int], extent: tuple[int, int] | None = None):
    """The rows and columns of image a (within its first `extent` ones) and of image b (both of
    `shape`) that meet when image b is read `shift` = (dx, dy) away."""
    (h, w), (eh, ew), (dx, dy) = shape, extent or shape, shift
    ys, xs = slice(max(0, -dy), min(eh, h - dy)), slice(max(0, -dx), min(ew, w - dx))
    return ys, xs, slice(ys.start + dy, ys.stop + dy), slice(xs.start + dx, xs.stop + dx)


def shifted_diff(a: np.ndarray, b: np.ndarray, shift: tuple[int, int]) -> np.ndarray:
    """|a - b| per pixel (summed over channels), image b read `shift` = (dx, dy) away (pixels
    without a counterpart count as no difference)."""
    diff = np.zeros(a.shape[:2], np.int64)
    ys, xs, yb, xb = overlap(a.shape[:2], shift)
    diff[ys, xs] = np.abs(a[ys, xs].astype(np.int16) - b[yb, xb].astype(np.int16)).sum(axis=2)
    return diff


def tile_aligned_diff(a: np.ndarray, b: np.ndarray, tile: int = TILE, reach: int = TILE_REACH) -> np.ndarray:
    """|a - b| with each tile x tile block of image a compared with image b at the whole-pixel
    shift that leaves the least |a - b| of grey levels in that block (searched within `reach` of
    the best global shift, the nearest on ties), after image b's channels are scaled to image a's
    means (undoing exposure and white balance): an attacker who aligns locally and so follows
    the cameras' rotation and scale across the frame."""
    scale = a.reshape(-1, 3).mean(axis=0) / np.maximum(b.reshape(-1, 3).mean(axis=0), 1e-6)
    b = np.clip(b * scale + 0.5, 0, 255).astype(np.uint8)
    ga, gb = (img.astype(np.int16).sum(axis=2) for img in (a, b))
    h, w = ga.shape
    th, tw = h // tile, w // tile  # whole tiles; the rest of the frame is left out (no difference)
    gx, gy = best_shift(a, b)
    best = np.full((th, tw), np.iinfo(np.int64).max)
    chosen = np.zeros((th, tw, 2), int)
    for dx, dy in sorted(((gx + dx, gy + dy) for dy in range(-reach, reach + 1) for dx in range(-reach, reach + 1)),
                         key=lambda s: (s[0] - gx) ** 2 + (s[1] - gy) ** 2):
        diff = np.zeros((th * tile, tw * tile), np.int32)
        ys, xs, yb, xb = overlap((h, w), (dx, dy), (th * tile, tw * tile))
        diff[ys, xs] = np.abs(ga[ys, xs] - gb[yb, xb])
        sums = diff.reshape(th, tile, tw, tile).sum(axis=(1, 3), dtype=np.int64)
        better = sums < best
        best[better] = sums[better]
        chosen[better] = (dx, dy)
    out = np.zeros((h, w), np.int64)
    for ty in range(th):
        for tx in range(tw):
            y, x = ty * tile, tx * tile
            dx, dy = chosen[ty, tx]
            yb, xb = y + dy, x + dx
            if 0 <= yb and yb + tile <= h and 0 <= xb and xb + tile <= w:
                seen = b[yb : yb + tile, xb : xb + tile]
                out[y : y + tile, x : x + tile] = np.abs(a[y : y + tile, x : x + tile].astype(np.int16)
                                                         - seen).sum(axis=2)
    return out


def strongest_window(a: np.ndarray, b: np.ndarray, size: tuple[int, int], shift: tuple[int, int] = (0, 0),
                     diff: np.ndarray | None = None):
    """The top-left (in image a) of the size[0] x size[1] window with the most |a - b| summed,
    image b read `shift` = (dx, dy) away, or of the window with the most of `diff`."""
    h, w = a.shape[:2]
    diff = shifted_diff(a, b, shift) if diff is None else diff
    total = np.pad(diff.cumsum(0).cumsum(1), ((1, 0), (1, 0)))
    ww, wh = min(size[0], w), min(size[1], h)
    sums = total[wh:, ww:] - total[:-wh, ww:] - total[wh:, :-ww] + total[:-wh, :-ww]
    y, x = np.unravel_index(int(np.argmax(sums)), sums.shape)
    return int(x), int(y)


def overlaps(x: int, y: int, w: int, h: int, box) -> bool:
    bx, by, bw, bh = box
    return x < bx + bw and bx < x + w and y < by + bh and by < y + h


def found(a: np.ndarray, b: np.ndarray, cues: list[dict], align: str) -> bool:
    """Whether the strongest cue-sized window of |a - b| overlaps a cue box (image b's cues
    brought into image a's frame by the alignment's shift), aligned as `align` says: "none",
    "global" (one whole-pixel shift) or "tiles" (a shift per tile; image b's cues are taken as
    they are, which a few pixels' offset can only favour the attack)."""
    shift = best_shift(a, b) if align == "global" else (0, 0)
    w, h = max((c["bbox"][2:] for c in cues), key=lambda s: s[0] * s[1])
    x, y = strongest_window(a, b, (w, h), shift, tile_aligned_diff(a, b) if align == "tiles" else None)
    boxes = [c["bbox"] if c["image"] == 0 else (c["bbox"][0] - shift[0], c["bbox"][1] - shift[1], *c["bbox"][2:])
             for c in cues]
    return any(overlaps(x, y, w, h, box) for box in boxes)


def measure_row(job) -> dict:
    """One difference row regenerated from its seed, attacked in every variant."""
    task, seed, letter, opts, bounds, written = job
    _, proposal = proposed_row(task, seed, letter, opts)
    cameras = draw_cameras(seed, bounds)
    out = {"task": task}
    for name, (on_a, on_b) in VARIANTS.items():
        (a, b), cues = shot_pair(proposal, letter, (cameras[0] if on_a else None, cameras[1] if on_b else None))
        out[name] = tuple(found(a, b, cues, align) for align in ALIGNMENTS)
        if name == "both" and written is not None:
            out["same as written"] = all(np.array_equal(decode(png), img) for png, img in zip(written, (a, b)))
    h, w = proposal.image_a.shape[:2]
    out["displacement"] = max(c.displacement(w, h) for c in cameras)
    out["exposure"] = max(abs(g - 1) for c in cameras for g in c.gains)
    return out


def rows_of(out: Path, tasks) -> dict[str, dict]:
    """id -> the columns the attack needs, for the difference rows with a change."""
    rows = {}
    for task in tasks:
        for shard in sorted((out / task).glob("*.parquet")):
            table = pq.read_table(shard, columns=["id", "seed", "answer", "image_a", "image_b"]).to_pylist()
            rows.update({r["id"]: {**r, "task": task, "answer": LETTERS[r["answer"]]}
                         for r in table if LETTERS[r["answer"]] != "E"})
    return rows


def settings(args) -> dict:
    """The build's keywords besides the camera."""
    photos = dict(min_long_side=args.min_long_side, upscale=args.upscale) if args.source != "procedural" else {}
    return dict(per_task=args.per_task, tasks=args.tasks, source=args.source, difficulty=args.difficulty, **photos)


def timed_build(out: Path, camera: str, args) -> float:
    start = time.perf_counter()
    build(out, camera=camera, num_proc=args.num_proc, progress=False, **settings(args))
    return time.perf_counter() - start


def pages(out: Path) -> dict[str, tuple[float, int]]:
    return {p.name: (bytes_per_row(p), largest_page(p)) for p in sorted(out.iterdir())
            if p.is_dir() and not p.name.startswith(".") and any(p.glob("*.parquet"))}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--per-task", type=int, default=32)
    ap.add_argument("--num-proc", type=int, default=2)
    ap.add_argument("--difficulty", default="hard")
    ap.add_argument("--tasks", default=None,
                    help="comma-separated (default: all the source gives; the attack uses the difference ones)")
    ap.add_argument("--source", default="procedural")
    ap.add_argument("--min-long-side", type=int, default=1024)
    ap.add_argument("--upscale", action="store_true")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        off, on = Path(tmp) / "none", Path(tmp) / "on"
        seconds = {"none": timed_build(off, "none", args), "on": timed_build(on, "on", args)}
        tasks = [t for t in TASKS if (off / t).is_dir()]
        rows = len(tasks) * args.per_task
        print(f"== {args.source} ({args.difficulty if args.source == 'procedural' else 'photos'}), "
              f"{args.per_task} rows per task, {args.num_proc} processes")
        print(f"build: camera none {seconds['none'] / rows:.2f} s/row, on {seconds['on'] / rows:.2f} s/row "
              f"(x{seconds['on'] / seconds['none']:.2f})")
        sizes = {"none": pages(off), "on": pages(on)}
        print(f"{'config':24} {'MB/row none':>11} {'on':>6} {'ratio':>6} {'100-row page MB none':>20} {'on':>5}"
              f"  (largest page written: none, on)")
        for config in sizes["none"]:
            (r0, p0), (r1, p1) = sizes["none"][config], sizes["on"][config]
            page = VIEWER_PAGE_ROWS * r1
            flag = ("  OVER THE VIEWER LIMIT" if page > VIEWER_LIMIT
                    else ("  over the budget" if page > PAGE_BUDGET else ""))
            print(f"{config:24} {r0 / 1e6:11.2f} {r1 / 1e6:6.2f} {r1 / r0:6.3f} {VIEWER_PAGE_ROWS * r0 / 1e6:20.0f} "
                  f"{page / 1e6:5.0f}  ({p0 / 1e6:.0f}, {p1 / 1e6:.0f} MB){flag}")
        rejected = Counter()
        for sidecar in on.glob("*/.stats/*.json"):
            rejected.update(json.loads(sidecar.read_text()).get("rejections", {}))
        camera_rejections = {k: v for k, v in rejected.items() if k in ("cue_leaves_frame", "shot_change_outside_cues",
                                                                        "shot_not_written", "shots_identical")}
        print(f"camera checks rejected (all tasks): {camera_rejections or 'none'}")

        difference = [t for t in tasks if track_of(t) == "difference"]
        chosen = BuildConfig(camera="none", **settings(args))
        opts, bounds = generation_options(chosen)[0], dataclasses.replace(chosen, camera="on").camera_bounds()
        written = rows_of(on, difference)
        jobs = [(r["task"], r["seed"], r["answer"], opts, bounds,
                 (written[i]["image_a"]["bytes"], written[i]["image_b"]["bytes"])
                 if i in written and written[i]["seed"] == r["seed"] else None)
                for i, r in sorted(rows_of(off, difference).items())]
        start = time.perf_counter()
        with mp.get_context("spawn").Pool(args.num_proc) as pool:
            results = pool.map(measure_row, jobs, chunksize=1)
        print(f"\nthe strongest cue-sized window of |a - b| lands on the cue ({len(results)} difference rows with a "
              f"change, regenerated in {time.perf_counter() - start:.0f} s): no alignment / best whole-pixel shift / "
              f"best shift per {TILE} px tile, gains undone")
        by_task = defaultdict(list)
        for r in results:
            by_task[r["task"]].append(r)
        for name in VARIANTS:
            cells = ["{} {} of {}".format(t, "/".join(str(sum(r[name][k] for r in rs))
                                                      for k in range(len(ALIGNMENTS))), len(rs))
                     for t, rs in by_task.items()]
            shares = " / ".join(f"{100 * sum(r[name][k] for r in results) / len(results):5.1f}%"
                                for k in range(len(ALIGNMENTS)))
            print(f"  {name:14} {shares}   ({'; '.join(cells)})")
        checked = [r["same as written"] for r in results if "same as written" in r]
        print(f"'both' is what the camera-on build wrote: {sum(checked)} of {len(checked)} rows of the same seed")
        shifts = [r["displacement"] for r in results]
        print(f"cameras: largest displacement {max(shifts):.1f} px (median {statistics.median(shifts):.1f}); bound "
              f"{bounds.largest_displacement(2048, 1536):.1f} px on a 2048x1536 canvas; exposure x white balance at "
              f"most {100 * max(r['exposure'] for r in results):.1f}% per channel")


if __name__ == "__main__":
    main()
