"""Scene edit operators: each turns a base scene into an edited scene plus the option text
that states the edit, the rectangles it touched and where its cue is in each image."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from dicobench.kit.scene.catalogue import IRREGULAR_PLURALS
from dicobench.kit.scene.geometry import Box
from dicobench.kit.scene.model import PlacedObject, Scene, Trace

if TYPE_CHECKING:
    import numpy as np

    from dicobench.kit.scene.random_scenes import SceneConfig


@dataclass(frozen=True)
class Cue:
    image: int  # 0 = image_a, 1 = image_b
    bbox: Box
    label: str


class State(Protocol):
    """One side of an option as a scene shows it."""

    reach: int  # how far (px) its decoys keep from the changes of edits that involve the names it names

    @property
    def key(self) -> tuple: ...  # two states with one key are the same state

    @property
    def names(self) -> frozenset[str]: ...  # the object names it names

    def instances(self, scene: Scene) -> list[frozenset[int]]: ...  # the uids of each place the scene shows it

    def decoy(self, rng: np.random.Generator, scene: Scene, cfg: SceneConfig, blocked: list[Box], uid: int
              ) -> tuple[tuple[PlacedObject, ...], tuple[Trace, ...]] | None: ...  # objects and traces to add, or None


@dataclass(frozen=True)
class SceneEdit:
    scene: Scene  # the edited scene
    text: str  # the option that states the edit
    subject: str  # the object the option is about; options of one row name different subjects
    dirty: tuple[Box, ...]  # rectangles to re-render
    cues: tuple[Cue, ...]
    touched: tuple[str, ...] = ()  # every object name the edit involves (subject, references)
    kind: str = ""  # what kind of edit (recolour, part, replace, move, paw_prints, ...): reports group by it
    about: int | None = None  # uid of the object the option is about (the one changed, moved, traced or added)
    # what the option says held before the edit and holds after it, as any scene may show it
    # (`dicobench.editors.scene.decoys`): copies of both stand elsewhere in a text-proof row
    states: tuple[State, State] | None = None


@dataclass(frozen=True)
class Staged:
    """A row's edits of a base scene its task first drew something into (the four trails of a
    turned-back trail row, one of which each edit turns): image 1 shows `scene`."""

    scene: Scene
    edits: list[SceneEdit]


def indefinite(cfg) -> bool:
    """Whether options refer to objects as one of several alike ("A black box became white"): in
    scenes with decoys (`Difficulty.decoys`), every look an option names is there more than once."""
    return bool(cfg.difficulty.decoys)


def refer(words: str, cfg) -> str:
    """How an option calls an object described by `words` (its name or look): `the red mug`, or with
    decoys `a red mug` (`red socks`: plural names take no article)."""
    return kind_phrase(words) if indefinite(cfg) else f"the {words}"


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
