"""Scene edit operators: each turns a base scene into an edited scene plus the option text
that states the edit, the rectangles it touched and where its cue is in each image."""

from __future__ import annotations

from dataclasses import dataclass

from dicobench.kit.scene.catalogue import IRREGULAR_PLURALS
from dicobench.kit.scene.geometry import Box
from dicobench.kit.scene.model import Scene


@dataclass(frozen=True)
class Cue:
    image: int  # 0 = image_a, 1 = image_b
    bbox: Box
    label: str


@dataclass(frozen=True)
class SceneEdit:
    scene: Scene  # the edited scene
    text: str  # the option that states the edit
    subject: str  # the object the option is about; options of one row name different subjects
    dirty: tuple[Box, ...]  # rectangles to re-render
    cues: tuple[Cue, ...]
    touched: tuple[str, ...] = ()  # every object name the edit involves (subject, references)


def article(noun: str) -> str:
    return ("an " if noun[0].lower() in "aeiou" else "a ") + noun


def plural(name: str) -> bool:
    """Whether a name is plural (socks, coins, binoculars, champagne glasses, dice; not glass, bus)."""
    noun = name.split()[-1]  # "hollow red dice" is as plural as "dice"
    return noun in IRREGULAR_PLURALS or noun.endswith("s") and not noun.endswith(("ss", "us"))


def kind_phrase(name: str) -> str:
    """`a mug`, but `scissors`: plural names take no article."""
    return name if plural(name) else article(name)


def pronouns(name: str) -> dict[str, str]:
    """The words a sentence about `name` agrees in: {it} {was} ..., ... {them}."""
    return {"it": "they", "was": "were", "them": "them"} if plural(name) else {"it": "it", "was": "was", "them": "it"}


def capitalised(text: str) -> str:
    return text[:1].upper() + text[1:]
