"""How hard a MultipanelVQA build's panels are: four dials over panel content, and named presets.

The paper's models fail where a subfigure is hard to read (GPT-4o 75.5% on its synthetic
subset, 49.0% on Q3) while people, who look closely, get 96%. Icon panels with a handful
of large objects make every subfigure easy; these dials keep the paper's layouts, counts,
questions and augmentations and change only what is in the panels and how the target is
named. `easy` is the first release's panels (the same bytes for the same seed).
"""

from __future__ import annotations

from dataclasses import dataclass

from benchkit.scene.difficulty import Dials, dial

POSITION_WORDS = ("short", "layout")


@dataclass(frozen=True)
class PanelDifficulty(Dials):
    """Every dial of a procedural panel set (frozen: part of the build options)."""

    preset: str = "easy"  # the preset these values came from, or "custom" once a field is set apart
    min_objects: int = dial("clutter", "fewest objects in a panel's scene", 3)
    max_objects: int = dial("clutter", "most objects in a panel's scene", 5)
    min_size: int = dial("object scale", "smallest glyph em size in a panel's scene (520-600 px, drawn at 180-440 px)", 80)
    max_size: int = dial("object scale", "largest glyph em size in a panel's scene, px", 120)
    detail_size: int = dial("detail scale", "em size of the object whose colour or presence is the answer, in scene px "
                                             "(0: drawn like the others)", 0)
    near_duplicates: int = dial("near duplicates", "procedural_scene: other panels that repeat the target's scene and "
                                                    "differ only in that object (procedural_edit panels all do)", 0)
    position_words: str = dial("position words", "short: the shortest unique wording; layout: words as a person reads "
                                                   "the layout (a two-word position only where row and column readings "
                                                   "agree), the row/column wording that takes the layout to follow", "short")

    def __post_init__(self) -> None:
        problems = []
        if not 1 <= self.min_objects <= self.max_objects <= 40:
            problems.append(f"objects per panel must satisfy 1 <= min <= max <= 40 (got {self.min_objects}, {self.max_objects})")
        if not 16 <= self.min_size <= self.max_size <= 160:
            problems.append(f"object sizes must satisfy 16 <= min <= max <= 160 (got {self.min_size}, {self.max_size})")
        if self.detail_size and not 24 <= self.detail_size <= 160:
            problems.append(f"detail size must be 0 or 24-160 px (smaller is unreadable in a 180 px panel), got {self.detail_size}")
        if not 0 <= self.near_duplicates <= 7:
            problems.append(f"near duplicates must be within 0-7, got {self.near_duplicates}")
        if self.position_words not in POSITION_WORDS:
            problems.append(f"position words must be one of {', '.join(POSITION_WORDS)}, got {self.position_words!r}")
        if problems:
            raise ValueError("; ".join(problems))

    def describe(self) -> str:
        """One line for the card."""
        return (f"{self.preset}: {self.min_objects}-{self.max_objects} objects of {self.min_size}-{self.max_size} px "
                f"per panel scene, detail {self.detail_size or 'as drawn'}"
                + (" px" if self.detail_size else "")
                + f", {self.near_duplicates} near-duplicate panels (procedural_scene), {self.position_words} position words")


EASY = PanelDifficulty()
HARD = PanelDifficulty(preset="hard", min_objects=10, max_objects=14, min_size=44, max_size=72, detail_size=52,
                       near_duplicates=4, position_words="layout")
EXTREME = PanelDifficulty(preset="extreme", min_objects=16, max_objects=22, min_size=36, max_size=60, detail_size=40,
                          near_duplicates=7, position_words="layout")
PRESETS = {d.preset: d for d in (EASY, HARD, EXTREME)}
DEFAULT = "hard"


def resolve(name: str | PanelDifficulty = DEFAULT, axes: dict | None = None) -> PanelDifficulty:
    """A preset (or settings) with the dials in `axes` set apart; ValueError names what is wrong."""
    if isinstance(name, PanelDifficulty):
        chosen = name
    elif name in PRESETS:
        chosen = PRESETS[name]
    else:
        raise ValueError(f"unknown difficulty {name!r}; expected one of {', '.join(PRESETS)}")
    return chosen.with_axes(**(axes or {}))
