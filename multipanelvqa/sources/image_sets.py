"""Image sets: single-panel images sharing one question, where only the target's answer is unique.

An `ImageSet` is what the paper's Appendix A.2 preprocesses every source into. Two offline
procedural sources stand on the scene engine:

- `procedural_edit` (MagicBrush-like, high similarity): one scene, one object whose colour
  is edited across the panels; the target has a colour no other panel has.
- `procedural_scene` (VQAv2-like): different scenes sharing a question, either "What color
  is the <object>?" or "Is there <object> in the image?".

Panels are square crops of small scenes (at `easy`, a few large objects, so the object
stays recognisable at panel size, 180-440 px; harder `PanelDifficulty` presets draw more,
smaller objects, a smaller answer object and near-duplicate panels); they are kept
PNG-encoded so a set is cheap to send to a worker process. `low_similarity` replacements are
other scenes whose answer to the question differs from the target's (and from `absent_answer`).

The builders here are the first release's (`easy`, and the dials `other_details=0`,
`scene_question="presence"`, `catalogue="first-release"`); the hard presets' sets come from
`multipanelvqa.sources.varied`, which uses the helpers below.
"""

from __future__ import annotations

import dataclasses
import io
from dataclasses import dataclass
from typing import Sequence

import numpy as np
from PIL import Image

from dicobench.kit.io.imageio import encode_png
from dicobench.kit.scene.catalogue import CatalogueEntry, load_catalogue
from dicobench.kit.scene.geometry import Box, centre_px, contains, inset, meets
from dicobench.kit.scene.palette import COLOURS, clearly_different, stands_out
from dicobench.kit.scene.random_scenes import SceneConfig, place, random_object, random_scene, surface_colour
from dicobench.kit.scene.render import footprint, render
from multipanelvqa.difficulty import EASY, PanelDifficulty

PANEL_SCENE = SceneConfig(
    min_long_side=520, max_long_side=600, min_objects=3, max_objects=5, min_size=80, max_size=120, max_object_area=0.25
)
MAX_PANELS = 8
MAX_PANEL_SIDE = 512  # the largest layout box is 440 px: bigger panels only cost memory
PROCEDURAL = ("procedural_edit", "procedural_scene")


@dataclass(frozen=True)
class ImageSet:
    """Panels (encoded images) sharing `question`; panels[0] is the target, alone with its answer."""

    source: str
    set_id: str
    question: str
    panels: tuple[bytes, ...]
    answers: tuple[str, ...]
    panel_ids: tuple[str, ...]
    replacements: tuple[bytes, ...] = ()  # dissimilar images for low_similarity
    replacement_answers: tuple[str, ...] = ()
    replacement_ids: tuple[str, ...] = ()
    absent_answer: str | None = None  # an answer no panel or replacement has (Q1's "any ... no")
    # descriptors (0 / empty where unknown, as for imported sets): the answer object's em size and
    # the side of the square crop it is drawn in (scene px), the objects in the target's crop, and
    # per panel whether it repeats the target's scene (with only that object changed, or, in the
    # varied sets, with other details of its own too)
    detail_size: int = 0
    crop_side: int = 0
    objects: int = 0
    near_duplicate: tuple[bool, ...] = ()
    # per panel, the target's panel with only the asked attribute changed to that panel's answer
    # (twins[0] is empty): what the target's layout neighbours show at `neighbours="twins"`
    twins: tuple[bytes, ...] = ()
    # `target_answer="shared"` (hard): a pool rather than a row of panels. panels[0] is the target,
    # the others hold the target's answer (panels after it, before the rest) or one of the others,
    # each several times, and so do the replacements; twins[i] is the twin for answers[i] (empty for
    # the target's answer). `generate.shared_answers` picks per layout box which answer it shows.
    shared: bool = False

    def __post_init__(self):
        if not len(self.panels) == len(self.answers) == len(self.panel_ids) >= 2:
            raise ValueError(f"{self.set_id}: need >= 2 panels with one answer and id each")
        if not len(self.replacements) == len(self.replacement_answers) == len(self.replacement_ids):
            raise ValueError(f"{self.set_id}: one answer and id per replacement")
        target = _norm(self.answers[0])
        if not self.shared and any(_norm(a) == target for a in self.answers[1:] + self.replacement_answers):
            raise ValueError(f"{self.set_id}: the target's answer {self.answers[0]!r} is not unique")
        if self.absent_answer is not None and _norm(self.absent_answer) in {
            _norm(a) for a in self.answers + self.replacement_answers
        }:
            raise ValueError(f"{self.set_id}: absent answer {self.absent_answer!r} is some panel's answer")

    def _order(self, k: int) -> list[int]:
        return [0] + [1 + i % (len(self.panels) - 1) for i in range(k - 1)]

    def take(self, k: int) -> tuple[list[bytes], list[str], list[str]]:
        """Panels, answers and ids for a k-panel image: the target, then the others in order,
        repeated when the set has fewer (real sources can be small)."""
        order = self._order(k)
        return [self.panels[i] for i in order], [self.answers[i] for i in order], [self.panel_ids[i] for i in order]

    def take_twins(self, k: int) -> list[bytes]:
        """The twins of a k-panel image's panels (as `take` orders them); empty without twins."""
        return [self.twins[i] for i in self._order(k)] if self.twins else []

    def near_duplicates(self, k: int) -> int:
        """How many of a k-panel image's other panels repeat the target's scene."""
        return sum(self.near_duplicate[i] for i in self._order(k)[1:]) if self.near_duplicate else 0

    def take_replacements(self, k: int) -> tuple[list[bytes], list[str], list[str]]:
        """k - 1 replacements (repeated when there are fewer); empty lists when there are none."""
        n = len(self.replacements)
        order = [i % n for i in range(k - 1)] if n else []
        return (
            [self.replacements[i] for i in order],
            [self.replacement_answers[i] for i in order],
            [self.replacement_ids[i] for i in order],
        )


def decode_panel(data: bytes) -> Image.Image:
    with Image.open(io.BytesIO(data)) as img:
        return img.convert("RGB")


def encode_panel(image: Image.Image) -> bytes:
    """PNG of the image shrunk to at most MAX_PANEL_SIDE (aspect kept)."""
    image = image.convert("RGB")
    image.thumbnail((MAX_PANEL_SIDE, MAX_PANEL_SIDE), Image.Resampling.LANCZOS)
    return encode_png(np.asarray(image))


def _norm(answer: str) -> str:
    return answer.strip().casefold()


def panel_scene(difficulty: PanelDifficulty) -> SceneConfig:
    """The scene config of a panel at `difficulty` (`easy`: PANEL_SCENE itself); the scene
    engine's own dials stay the first release's but for the catalogue (and its look rules)."""
    if difficulty == EASY:
        return PANEL_SCENE
    return dataclasses.replace(PANEL_SCENE, min_objects=difficulty.min_objects, max_objects=difficulty.max_objects,
                               min_size=difficulty.min_size, max_size=difficulty.max_size,
                               difficulty=dataclasses.replace(PANEL_SCENE.difficulty, catalogue=difficulty.catalogue))


# ---- scenes -----------------------------------------------------------------------------


def square_crop(scene) -> Box:
    side = min(scene.width, scene.height)
    return ((scene.width - side) // 2, (scene.height - side) // 2, side, side)


def within(box: Box, region: Box, margin: int = 4) -> bool:
    """Whether `box` lies in `region` at least `margin` px from its edges."""
    return contains(inset(region, margin), box)


def question_objects(version: str = "first-release") -> list[CatalogueEntry]:
    """Objects a question can name with "the <name>" and "is": singular names only."""
    return [e for e in load_catalogue(version) if not (e.name.endswith("s") and not e.name.endswith("ss"))]


def distinct_colours(rng: np.random.Generator, n: int, refuse: frozenset[str] = frozenset()) -> list[str]:
    """n palette colours, none of `refuse`, pairwise clearly different, in random order."""
    names = [c for c in COLOURS if c not in refuse]
    while True:
        picked = [names[i] for i in rng.permutation(len(names))[:n]]
        if all(clearly_different(a, b) for i, a in enumerate(picked) for b in picked[i + 1 :]):
            return picked


def _scene_with(rng: np.random.Generator, entry: CatalogueEntry, colour: str | None,
                difficulty: PanelDifficulty = EASY, tries: int = 20):
    """A scene whose square crop holds `entry` in `colour` fully (or, colour None, nowhere);
    returns (scene, uid of the object or None, crop), or None when no try fitted."""
    cfg = panel_scene(difficulty)
    for _ in range(tries):
        scene = random_scene(rng, cfg, exclude_names=frozenset({entry.name}))
        crop = square_crop(scene)
        # Objects cut by the crop stay in the scene but not in the picture; none of them is `entry`.
        if colour is None:
            return scene, None, crop
        surface = surface_colour(scene)
        if not stands_out(colour, surface):
            continue
        template = random_object(rng, scene.next_uid(), entry, surface, cfg)
        template = dataclasses.replace(template, colour=colour, style="plain",
                                       size=difficulty.detail_size or template.size)
        near = (*centre_px(crop), crop[2] // 3)
        obj = place(rng, scene, template, [footprint(o) for o in scene.objects], cfg, near=near)
        if obj is not None and within(footprint(obj), crop):
            return scene.add(obj), obj.uid, crop
    return None


def render_crop(scene, crop) -> bytes:
    return encode_png(render(scene, crop))


def _descriptors(made, near_duplicate: Sequence[bool]) -> dict:
    """ImageSet's descriptor fields for a target made by `_scene_with`."""
    scene, uid, crop = made
    shown = sum(meets(footprint(o), crop) for o in scene.objects)
    return {"detail_size": scene.object(uid).size if uid is not None else 0, "crop_side": crop[2], "objects": shown,
            "near_duplicate": tuple(near_duplicate)}


def article(name: str) -> str:
    return "an" if name[0].lower() in "aeiou" else "a"


def other_answers(rng: np.random.Generator, colours: Sequence[str], n: int) -> list[str]:
    """n answers drawn from `colours`, each used at least once when n allows."""
    out = list(colours)[:n] + [colours[int(rng.integers(len(colours)))] for _ in range(n - len(colours))]
    return [out[i] for i in rng.permutation(len(out))]


def _colour_scenes(rng, entry, colours: Sequence[str], tag: str, difficulty: PanelDifficulty = EASY,
                   near_duplicates: int = 0) -> tuple[list[bytes], list[str], tuple] | None:
    """One fresh scene per colour, each holding `entry` in that colour; the first
    `near_duplicates` after the first repeat its scene with only the object recoloured.
    Returns (panels, ids, the first scene as `_scene_with` made it)."""
    panels: list[bytes] = []
    first = None
    for i, colour in enumerate(colours):
        if first is not None and i <= near_duplicates:
            scene, uid, crop = first
            if not stands_out(colour, surface_colour(scene)):
                return None
            panels.append(render_crop(scene.replace_object(uid, dataclasses.replace(scene.object(uid), colour=colour)),
                                      crop))
            continue
        made = _scene_with(rng, entry, colour, difficulty)
        if made is None:
            return None
        first = first or made
        panels.append(render_crop(made[0], made[2]))
    return panels, [f"{tag}:{i}" for i in range(len(panels))], first


def edit_set(rng: np.random.Generator, set_id: str, difficulty: PanelDifficulty = EASY) -> ImageSet | None:
    """One scene; the named object's colour is the edit: the target's colour is unique."""
    entries = question_objects()
    entry = entries[int(rng.integers(len(entries)))]
    target, a, b, absent = distinct_colours(rng, 4)
    made = _scene_with(rng, entry, target, difficulty)
    if made is None:
        return None
    scene, uid, crop = made
    surface = surface_colour(scene)
    if not all(stands_out(c, surface) for c in (a, b)):
        return None
    answers = [target] + other_answers(rng, (a, b), MAX_PANELS - 1)
    obj = scene.object(uid)
    panels = [render_crop(scene.replace_object(uid, dataclasses.replace(obj, colour=c)), crop) for c in answers]
    repl_answers = other_answers(rng, (a, b), MAX_PANELS - 1)
    replaced = _colour_scenes(rng, entry, repl_answers, f"{set_id}:replacement", difficulty)
    if replaced is None:
        return None
    return ImageSet(
        source="procedural_edit",
        set_id=set_id,
        question=f"What color is the {entry.name}?",
        panels=tuple(panels),
        answers=tuple(answers),
        panel_ids=tuple(f"{set_id}:edit:{c}" for c in answers),
        replacements=tuple(replaced[0]),
        replacement_answers=tuple(repl_answers),
        replacement_ids=tuple(replaced[1]),
        absent_answer=absent,
        **_descriptors(made, [False] + [True] * (len(panels) - 1)),
    )


def scene_set(rng: np.random.Generator, set_id: str, difficulty: PanelDifficulty = EASY) -> ImageSet | None:
    """Different scenes sharing a question: the named object's colour, or whether it is there.
    The first `difficulty.near_duplicates` other panels repeat the target's scene with only
    that object recoloured (or removed)."""
    entries = question_objects()
    entry = entries[int(rng.integers(len(entries)))]
    n = 2 * MAX_PANELS - 1  # panels, then low_similarity replacements
    dups = difficulty.near_duplicates
    if rng.random() < 0.5:
        target, a, b, absent = distinct_colours(rng, 4)
        answers = [target] + other_answers(rng, (a, b), n - 1)
        made = _colour_scenes(rng, entry, answers, set_id, difficulty, dups)
        if made is None:
            return None
        panels, ids, first = made
        question = f"What color is the {entry.name}?"
    else:
        absent = None
        answers = ["yes"] + ["no"] * (n - 1)
        panels = []
        first = None
        for i, answer in enumerate(answers):
            if first is not None and i <= dups:  # the target's scene without the object
                panels.append(render_crop(first[0].replace_object(first[1], None), first[2]))
                continue
            got = _scene_with(rng, entry, distinct_colours(rng, 1)[0] if answer == "yes" else None, difficulty)
            if got is None:
                return None
            first = first or got
            panels.append(render_crop(got[0], got[2]))
        ids = [f"{set_id}:{i}" for i in range(n)]
        question = f"Is there {article(entry.name)} {entry.name} in the image?"
    k = MAX_PANELS
    return ImageSet(
        source="procedural_scene",
        set_id=set_id,
        question=question,
        panels=tuple(panels[:k]),
        answers=tuple(answers[:k]),
        panel_ids=tuple(ids[:k]),
        replacements=tuple(panels[k:]),
        replacement_answers=tuple(answers[k:]),
        replacement_ids=tuple(ids[k:]),
        absent_answer=absent,
        **_descriptors(first, [0 < i <= dups for i in range(k)]),
    )
