"""Contact sheets: a look at the first rows of a built benchmark, with the regions that matter boxed.

The drawing is generic (`contact_sheet` takes (images, boxes, caption) items); each benchmark's
definition names the small function that turns one of its rows into an item (`dicobench.preview`,
`multipanelvqa.preview`).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Sequence

import datasets
from PIL import Image, ImageDraw, ImageFont

from dicobench.kit.errors import UserError, first_line
from dicobench.kit.io.dataset_input import check_features, locate, missing_hint
from dicobench.kit.io.outputs import output_file
from dicobench.kit.release.verify import verify_dataset

# (images, boxes as (image index, [x, y, w, h]) in that image's pixels, caption; "\n" breaks lines)
Item = tuple[Sequence[Image.Image], Sequence[tuple[int, Sequence[int]]], str]
ItemFn = Callable[[dict, datasets.Features], Item]

BOX_COLOUR = (255, 0, 255)  # magenta: rare in scenes, visible on light and dark backgrounds
PAD = 8
MIN_THUMB, MAX_THUMB = 16, 1024  # pixels; the largest sheet (MAX_ROWS rows of two) is then about 70 megapixels
MAX_ROWS = 64


def contact_sheet(
    items: Sequence[Item], *, thumb: int = 256, caption_lines: int = 3, font_size: int = 14
) -> Image.Image:
    """One row per item: each image shrunk to fit a `thumb` x `thumb` tile (aspect kept, top-left),
    its boxes outlined in BOX_COLOUR, and up to `caption_lines` lines of caption underneath.

    Size: width = PAD + k * (thumb + PAD) for k the most images in an item;
    height = PAD + len(items) * (thumb + PAD + caption_lines * (font_size + 4) + PAD)."""
    if not items:
        raise ValueError("contact_sheet needs at least one item")
    font = ImageFont.load_default(size=font_size)
    line_h = font_size + 4
    row_h = thumb + PAD + caption_lines * line_h
    width = PAD + max(len(images) for images, _, _ in items) * (thumb + PAD)
    sheet = Image.new("RGB", (width, PAD + len(items) * (row_h + PAD)), "white")
    draw = ImageDraw.Draw(sheet)
    for row, (images, boxes, caption) in enumerate(items):
        top = PAD + row * (row_h + PAD)
        for index, image in enumerate(images):
            drawn = tile(image, [bbox for i, bbox in boxes if i == index], thumb)
            sheet.paste(drawn, (PAD + index * (thumb + PAD), top))
        for line_no, line in enumerate(_wrap(caption, draw, font, width - 2 * PAD, caption_lines)):
            draw.text((PAD, top + thumb + PAD + line_no * line_h), line, fill="black", font=font)
    return sheet


def tile(image: Image.Image, bboxes, thumb: int) -> Image.Image:
    """The image downscaled to fit `thumb`, with `bboxes` (original pixels) outlined on it."""
    tile = image.convert("RGB")
    tile.thumbnail((thumb, thumb))
    sx, sy = tile.width / image.width, tile.height / image.height
    draw = ImageDraw.Draw(tile)
    for x, y, w, h in bboxes:
        x0, y0 = round(x * sx), round(y * sy)
        x1, y1 = max(x0, round((x + w) * sx) - 1), max(y0, round((y + h) * sy) - 1)
        draw.rectangle((x0, y0, x1, y1), outline=BOX_COLOUR, width=2)
    return tile


def _wrap(text: str, draw: ImageDraw.ImageDraw, font, width: int, max_lines: int) -> list[str]:
    """Greedy word wrap to `width` pixels; past `max_lines` the last line ends with an ellipsis."""
    lines: list[str] = []
    for paragraph in text.split("\n"):
        line = ""
        for word in paragraph.split(" "):
            candidate = f"{line} {word}" if line else word
            if line and draw.textlength(candidate, font=font) > width:
                lines.append(line)
                line = word
            else:
                line = candidate
        lines.append(line)
    if len(lines) > max_lines:
        last = lines[max_lines - 1]
        while last and draw.textlength(last + "…", font=font) > width:
            last = last[:-1]
        lines = lines[: max_lines - 1] + [last + "…"]
    return lines


def first_rows(folder, config: str, split: str, n: int) -> tuple[list[dict], datasets.Features]:
    """The first `n` rows, streamed so that only their images are read and decoded."""
    folder = locate(folder)
    verify_dataset(folder, config=config, split=split)
    try:
        stream = datasets.load_dataset(folder, config, split=split, streaming=True)
    except (ValueError, OSError) as exc:  # OSError: a repo id the Hub does not answer for
        raise UserError(f"cannot read config {config!r} split {split!r} of {folder}: {first_line(exc)}"
                        + missing_hint(folder)) from None
    rows = list(stream.take(n))
    if not rows:
        raise UserError(f"config {config!r} split {split!r} of {folder} has no rows")
    return rows, stream.features


@dataclass(frozen=True)
class Drawer:
    """How to draw one benchmark's rows: its item function and the typed columns it reads."""

    benchmark: str
    item: ItemFn
    features: datasets.Features  # the benchmark's schema
    columns: tuple[str, ...]  # the columns `item` reads


def write_preview(
    folder, out, drawer: Drawer, *, config: str = "all", split: str = "test", n: int = 8, thumb: int = 256
) -> Path:
    """Contact sheet of the first `n` rows of `folder` (a built benchmark) saved as PNG at `out`."""
    if not 1 <= n <= MAX_ROWS:
        raise UserError(f"-n must be 1 to {MAX_ROWS} rows (got {n}): a sheet is for a look, not for every row")
    if not MIN_THUMB <= thumb <= MAX_THUMB:
        raise UserError(f"--thumb must be {MIN_THUMB} to {MAX_THUMB} pixels (got {thumb}): a larger one would "
                        "exhaust memory, and no thumbnail is larger than its image")
    rows, features = first_rows(folder, config, split, n)
    check_features(features, drawer.features, drawer.columns, str(folder), drawer.benchmark)
    out = output_file(out)  # once the rows are there: a refused build leaves no folder behind
    item_fn = drawer.item
    contact_sheet([item_fn(row, features) for row in rows], thumb=thumb).save(out, format="PNG")
    return out

