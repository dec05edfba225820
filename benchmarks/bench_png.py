"""The PNG writer a build writes with (`dicobench.kit.io.imageio.encode_png`) against Pillow's.

Renders the images of a few rows of a procedural build (`--difficulty`, default hard: both
shots of each row through its cameras, as the build writes them), then encodes each one with
Pillow at level 1 (the floor: the cheapest lossless encoding), Pillow at level 6 (what the hard
presets wrote before) and `encode_png` at the preset's level with its writer (`--writer`), in this process, one after
the other. Prints bytes per row and seconds of each, the ratio of each to the floor, how many
images came out larger than Pillow's level 6, and the time to decode each encoding; every
encoding is checked to decode to the same pixels.

    python benchmarks/bench_png.py [--rows 6] [--difficulty hard] [--level N] [--writer sub-up|pillow]
"""

from __future__ import annotations

import argparse
import io
import time

import numpy as np
from PIL import Image

from dicobench.build import generation_options
from dicobench.build_config import BuildConfig
from dicobench.checks import Rejected
from dicobench.generate import proposed_row, sample_seed
from dicobench.kit.io.imageio import WRITERS, decode, encode_png
from dicobench.kit.scene.camera import draw_cameras
from dicobench.kit.scene.difficulty import preset
from dicobench.rows import shot_pair
from dicobench.schema import TASKS


def pillow(pixels: np.ndarray, level: int) -> bytes:
    buf = io.BytesIO()
    Image.fromarray(pixels).save(buf, format="PNG", compress_level=level)
    return buf.getvalue()


def images(difficulty: str, rows: int) -> list[np.ndarray]:
    """Both shots of the first `rows` accepted rows (one per task in turn), as a build takes them."""
    opts, _, _ = generation_options(BuildConfig(difficulty=difficulty))
    out, index = [], 0
    while len(out) < 2 * rows:
        task = TASKS[index % len(TASKS)]
        seed = sample_seed(0, "test", task, index, 0)
        index += 1
        try:
            _, proposal = proposed_row(task, seed, "A", opts)
        except Rejected:
            continue
        cameras = (None, None) if opts.camera is None else draw_cameras(seed, opts.camera)
        out.extend(shot_pair(proposal, "A", cameras)[0])
    return out


def timed(encode, pixels: list[np.ndarray]) -> tuple[list[bytes], float]:
    start = time.process_time()
    encoded = [encode(p) for p in pixels]
    return encoded, time.process_time() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=6)
    parser.add_argument("--difficulty", default="hard")
    parser.add_argument("--level", type=int, help="encode_png's level (default: the preset's png_level)")
    parser.add_argument("--writer", choices=WRITERS, help="encode_png's writer (default: the preset's png_writer)")
    args = parser.parse_args()
    level = args.level if args.level is not None else preset(args.difficulty).png_level
    writer = args.writer or preset(args.difficulty).png_writer
    pixels = images(args.difficulty, args.rows)
    runs = {"Pillow level 1 (floor)": lambda p: pillow(p, 1), "Pillow level 6": lambda p: pillow(p, 6),
            f"encode_png level {level}, {writer}": lambda p: encode_png(p, level, writer)}
    results = {name: timed(fn, pixels) for name, fn in runs.items()}
    floor = results["Pillow level 1 (floor)"][1]
    reference = [len(b) for b in results["Pillow level 6"][0]]
    shape = pixels[0].shape
    print(f"{len(pixels)} images of {args.rows} {args.difficulty} rows (first {shape[1]}x{shape[0]}), "
          "CPU seconds of this process")
    for name, (encoded, seconds) in results.items():
        start = time.process_time()
        same = all(np.array_equal(decode(b), p) for b, p in zip(encoded, pixels))
        decoding = time.process_time() - start
        larger = sum(len(b) > r for b, r in zip(encoded, reference))
        print(f"{name}: {sum(map(len, encoded)) / args.rows / 2**20:.3f} MiB per row, {seconds:.2f} s "
              f"({seconds / floor:.2f}x the floor); larger than Pillow level 6: {larger}/{len(encoded)} images; "
              f"decoding {decoding:.2f} s; pixels identical: {same}")


if __name__ == "__main__":
    main()
