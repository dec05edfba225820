"""The prompt every runner sends (docs/ARCHITECTURE.md): two images in order, then question and options."""

from __future__ import annotations

from dicobench.schema import prompt_text


def prompt(row: dict) -> tuple[list, str]:
    """(images, text) for a dataset row: [image_a, image_b] and the multiple-choice prompt.
    Runners introduce the images as "Image 1:" and "Image 2:" before the text."""
    return [row["image_a"], row["image_b"]], prompt_text(row["question"], row["options"])
