"""The paper's augmentations (Appendix A.4 and E) as small, composable, deterministic ops.

Each op maps a `Composition` to a new one, like a torchvision v2 transform with explicit
parameters; questions and answers stay those of the original image (captions_referenced
changes Q2's wording only, in questions.py). `for_config` gives the op of each config, as its
declaration in `multipanelvqa.augmentations` names it.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Callable, Sequence

from PIL import Image

from dicobench.kit.scene.geometry import bounding, xyxy
from multipanelvqa.composite.compose import HEADER_HEIGHT, Composition, transform_boxes
from multipanelvqa.composite.positions import caption_numbers

Op = Callable[[Composition], Composition]


def _same_answer(a: str, b: str) -> bool:
    return a.strip().casefold() == b.strip().casefold()


@dataclass(frozen=True)
class Sequential:
    """Apply ops in order."""

    ops: tuple[Op, ...] = ()

    def __call__(self, spec: Composition) -> Composition:
        for op in self.ops:
            spec = op(spec)
        return spec


@dataclass(frozen=True)
class LowSimilarity:
    """Replace every panel but the target with images whose answer differs from the target's.

    The caller supplies dissimilar images (e.g. other scenes); the answers are checked here
    because a replacement sharing the target's answer would make Q1-Q3 wrong.
    """

    replacements: tuple[Image.Image, ...]
    replacement_answers: tuple[str, ...]
    target_answer: str
    target_index: int = 0
    # each panel's answer in the original (target_answer "shared": a panel that shows the target's
    # answer there may be replaced by one that shows it too; empty: none may)
    answers: tuple[str, ...] = ()

    def __call__(self, spec: Composition) -> Composition:
        others = len(spec.panels) - 1
        if len(self.replacements) < others or len(self.replacement_answers) < others:
            raise ValueError(f"need {others} replacement images and answers")
        kept = [a for i, a in enumerate(self.answers) if i != self.target_index]
        clash = [a for j, a in enumerate(self.replacement_answers[:others]) if _same_answer(a, self.target_answer)
                 and not (j < len(kept) and _same_answer(kept[j], a))]
        if clash:
            raise ValueError(f"replacement answers {clash} equal the target's answer {self.target_answer!r}")
        fresh = iter(self.replacements)
        panels = tuple(p if i == self.target_index else next(fresh) for i, p in enumerate(spec.panels))
        return dataclasses.replace(spec, panels=panels)


@dataclass(frozen=True)
class Enlarge:
    """Crop the empty edge around the panels (keeping `margin` px and the square canvas) and scale back.

    Done on the boxes rather than the pixels: the same picture as cropping and resizing
    the image, with exact new boxes and one resampling of each panel.
    """

    margin: int = 20

    def __call__(self, spec: Composition) -> Composition:
        x0, y0, x1, y1 = xyxy(bounding(spec.boxes))
        side = min(spec.size, max(x1 - x0, y1 - y0) + 2 * self.margin)
        left = min(max(0, (x0 + x1 - side) // 2), spec.size - side)
        top = min(max(0, (y0 + y1 - side) // 2), spec.size - side)
        boxes = transform_boxes(spec.boxes, (left, top, side, side), (0, 0, spec.size, spec.size))
        return dataclasses.replace(spec, boxes=boxes)


@dataclass(frozen=True)
class Chessboard:
    """Black and white chessboard background instead of the white one."""

    square: int = 50

    def __call__(self, spec: Composition) -> Composition:
        return dataclasses.replace(spec, chessboard=self.square)


@dataclass(frozen=True)
class TextHint:
    """Write the common question above the panels and each panel's answer on the panel.

    The panels are scaled down into the square below a header band so that the question
    covers none of them.
    """

    question: str
    answers: tuple[str, ...]

    def __call__(self, spec: Composition) -> Composition:
        if len(self.answers) != len(spec.panels):
            raise ValueError(f"{len(self.answers)} answers for {len(spec.panels)} panels")
        side = spec.size - HEADER_HEIGHT
        dst = (HEADER_HEIGHT // 2, HEADER_HEIGHT, side, side)
        boxes = transform_boxes(spec.boxes, (0, 0, spec.size, spec.size), dst)
        return dataclasses.replace(spec, boxes=boxes, hints=tuple(self.answers), header=self.question)


@dataclass(frozen=True)
class Captions:
    """Number the panels in reading order, one mark per panel (Set-of-Mark style)."""

    template: str = "{n}"

    def __call__(self, spec: Composition) -> Composition:
        numbers = caption_numbers(spec.boxes)
        return dataclasses.replace(spec, captions=tuple(self.template.format(n=n) for n in numbers))


def identity(**_) -> Op:
    """The original config: the composition as laid out."""
    return Sequential()


def low_similarity(*, answers: Sequence[str] | None = None, replacements: Sequence[Image.Image] | None = None,
                   replacement_answers: Sequence[str] | None = None, target_index: int = 0, **_) -> Op:
    if replacements is None or replacement_answers is None or answers is None:
        raise ValueError("low_similarity needs answers, replacements and replacement_answers")
    shared = sum(_same_answer(a, answers[target_index]) for a in answers) > 1
    return LowSimilarity(tuple(replacements), tuple(replacement_answers), answers[target_index], target_index,
                         tuple(answers) if shared else ())


def enlarged(**_) -> Op:
    return Enlarge()


def chessboard(**_) -> Op:
    return Chessboard()


def text_hint(*, question: str | None = None, answers: Sequence[str] | None = None, **_) -> Op:
    if question is None or answers is None:
        raise ValueError("text_hint needs the common question and the answers")
    return TextHint(question, tuple(answers))


def captions(**_) -> Op:
    return Captions()


def for_config(
    name: str,
    *,
    question: str | None = None,
    answers: Sequence[str] | None = None,
    replacements: Sequence[Image.Image] | None = None,
    replacement_answers: Sequence[str] | None = None,
    target_index: int = 0,
) -> Op:
    """The op that turns an original composition into config `name`'s composition (the op its
    declaration in `multipanelvqa.augmentations` names)."""
    from multipanelvqa.augmentations import get_augmentation  # the declarations name this module's ops

    return get_augmentation(name).make(question=question, answers=answers, replacements=replacements,
                                       replacement_answers=replacement_answers, target_index=target_index)
