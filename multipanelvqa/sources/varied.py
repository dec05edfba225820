"""Varied procedural image sets (the hard presets): the object a question names is drawn in
several panels, and near-duplicate panels differ in several details, the target's included.

The first release's near duplicates (`image_sets`) repeat the target's scene and change only
the question's object, so the target is the one panel that differs (or the only one with the
object at all): a model finds it without reading any object. Here every panel of a
near-duplicate group (the target, then its near duplicates) is the group's shared scene with
`PanelDifficulty.other_details` changes of its own (another object recoloured, moved or
removed, or one added), and the question's object is in every panel that can hold it:

- colour ("What color is the X?"): one X in every panel, in the target's colour or one of two
  others (`procedural_edit` always; `procedural_scene` half of its sets);
- count ("How many Xs are there in the image?", `scene_question="count"`; at `asked` scene
  both sources): 0 to `max_count` Xs per panel (at `counts` run, five consecutive counts);
  counts and colours are drawn alike, so neither the target's nor the absent answer stands out
  in the text. At `count_layout` clustered the X slots touch in one group of one colour, the
  empty ones taken by objects of other names, so each X is told by its shape (`_clustered`);
- presence ("Is there a X in the image?", `scene_question="presence"`): the X in the target alone.

Names: the objects come from the difficulty's catalogue (`audited` at hard and extreme), and no
object drawn in any panel has the question's name or a name containing it or contained in it
("camera" / "film camera"), or is a glyph people confuse with it at panel size (the catalogue's
look-alikes, and `PANEL_LOOKALIKES`). Truth is checked on the pixels of each panel: every
X counted or named is drawn where it changes the picture (a render without it differs), and a
named colour is the palette colour most of its changed pixels are nearest to.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Sequence

import numpy as np

from dicobench.kit.io.imageio import encode_png
from dicobench.kit.scene.catalogue import IRREGULAR_PLURALS, CatalogueEntry, contains, load_catalogue, read_as
from dicobench.kit.scene.geometry import apart, bounding, centre_px, chebyshev_gap, meets
from dicobench.kit.scene.legibility import misread_colours
from dicobench.kit.scene.model import Scene
from dicobench.kit.scene.palette import COLOURS, lab_distance, stands_out, to_lab
from dicobench.kit.scene.random_scenes import (
    GAP,
    clashes,
    fitting_colours,
    place,
    random_object,
    random_scene,
    surface_colour,
)
from dicobench.kit.scene.render import footprint, render
from multipanelvqa.difficulty import PanelDifficulty
from multipanelvqa.sources.image_sets import (
    MAX_PANELS,
    ImageSet,
    article,
    distinct_colours,
    other_answers,
    panel_scene,
    question_objects,
    square_crop,
    within,
)

COUNTS = ("0", "1", "2", "3")  # a count question's answers: target, two others and the absent one, drawn alike
CHANGES = ("recolour", "move", "remove", "add")
# an X counts as drawn where it changes this share of the em square of the difficulty's detail size
# (every catalogue glyph with its shadow changes more than half of its own)
MIN_VISIBLE = 0.3
MIN_COLOUR_SHARE = 0.5  # of those, the share nearest to the named palette colour
_TRIES = 20
# Glyph pairs a person confuses at the size hard panels draw them (about 15-25 px on the canvas;
# the whole catalogue drawn so) that the catalogue's audit does not keep apart: when a question
# names one, no other is drawn in its image either.
PANEL_LOOKALIKES = tuple(frozenset(group) for group in (
    ("tent", "teepee"), ("trailer", "caravan"), ("spray can", "soap dispenser"), ("mortar and pestle", "crow"),
    ("waffle", "chessboard", "basketball", "globe"),
    ("leaf", "seedling", "clover"),  # a seedling or a clover draws leaves: "How many leaves" would count them
    ("cowboy hat", "hard hat"),  # two careful readers weighed a hard hat in a group of cowboy hats: both are hats
))
_IRREGULAR = {"fish": "fish", "whole fish": "whole fish", "computer mouse": "computer mice", "tooth": "teeth",
              "leaf": "leaves", "mosquito": "mosquitoes"}


def plural(name: str) -> str | None:
    """The plural a count question uses, or None for names without a plain one ("glass of water")."""
    if name in _IRREGULAR:
        return _IRREGULAR[name]
    if " of " in name or " and " in name:
        return None
    if re.search(r"(s|x|z|ch|sh)$", name):
        return name + "es"
    if re.search(r"[^aeiou]y$", name):
        return name[:-1] + "ies"
    return name + "s"


@dataclasses.dataclass(frozen=True)
class Panel:
    """A scene, the square crop shown, and the uids of the question's objects drawn in it."""

    scene: Scene
    crop: tuple[int, int, int, int]
    xs: tuple[int, ...]
    slots: tuple[int, ...] = ()  # the uids of every X slot of the shared scene (an X, or what took its place)
    grouped: bool = False  # the slots touch in one group (`_clustered`): its objects may overlap one another


@dataclasses.dataclass(frozen=True)
class Kind:
    """A question about object `entry`: its text, the answers (target, two others, one no panel
    has, or None), and how many X slots a shared scene needs."""

    entry: CatalogueEntry
    question: str
    values: tuple[str, str, str, str | None]
    slots: int
    colour: bool = False

    def shown(self, answer: str) -> int:
        """How many Xs a panel whose answer is `answer` shows."""
        if self.colour:
            return 1
        return {"yes": 1, "no": 0}[answer] if answer in ("yes", "no") else int(answer)

    @property
    def counted(self) -> bool:
        """Whether the answer is a count (not a colour, nor yes or no)."""
        return not self.colour and "yes" not in self.values

    def clustered(self, difficulty: PanelDifficulty) -> bool:
        """Whether the Xs stand together in one group (count_layout "clustered", count questions)."""
        return self.counted and difficulty.count_layout == "clustered"

    def realise(self, rng: np.random.Generator, panel: Panel, answer: str, difficulty: PanelDifficulty,
                exclude: frozenset[str]) -> Panel | None:
        """The panel showing `answer`: the X recoloured, or only `answer` of its Xs kept and each
        other X slot taken by an object of another name (so every panel draws as many objects,
        and none is told by its clutter)."""
        scene = panel.scene
        if self.colour:
            return _recoloured(panel, answer)
        kept = sorted(rng.permutation(len(panel.xs))[:self.shown(answer)])
        group = panel.slots if panel.grouped else ()
        for i, uid in enumerate(panel.xs):
            if i not in kept:
                scene = _swap(rng, scene, panel.crop, scene.object(uid), difficulty, exclude, group)
                if scene is None:
                    return None
        return dataclasses.replace(panel, scene=scene, xs=tuple(panel.xs[i] for i in kept))

    def twin(self, rng: np.random.Generator, panel: Panel, base: Panel, answer: str, difficulty: PanelDifficulty,
             exclude: frozenset[str]) -> Panel | None:
        """`panel` with only the asked attribute changed to show `answer`: its X recoloured, or
        Xs taken by objects of another name (`_swap`, where they stand) or slots that hold one
        given back to the X (as `base` drew it, where the slot now stands); nothing else moves.
        None where that cannot be drawn."""
        scene = panel.scene
        if self.colour:
            return _recoloured(panel, answer)
        want, xs, group = self.shown(answer), list(panel.xs), panel.slots if panel.grouped else ()
        if want < len(xs):
            for i in sorted(rng.permutation(len(xs))[:len(xs) - want], reverse=True):
                scene = _swap(rng, scene, panel.crop, scene.object(xs[i]), difficulty, exclude, group)
                if scene is None:
                    return None
                del xs[i]
        free = [uid for uid in panel.slots if uid not in xs and uid in {o.uid for o in scene.objects}]
        for i in sorted(rng.permutation(len(free))[:max(0, want - len(xs))]):
            uid, drawn = free[i], base.scene.object(free[i])
            new = dataclasses.replace(scene.object(uid), name=drawn.name, colour=drawn.colour, style=drawn.style)
            others = [footprint(o) for o in scene.objects if o.uid != uid and o.uid not in group]
            if not within(footprint(new), panel.crop) or clashes(footprint(new), others, panel_scene(difficulty)):
                return None
            scene = scene.replace_object(uid, new)
            xs.append(uid)
        if len(xs) != want:
            return None
        return dataclasses.replace(panel, scene=scene, xs=tuple(sorted(xs)))


def _swap(rng, scene: Scene, crop, obj, difficulty: PanelDifficulty, exclude: frozenset[str],
          group: tuple[int, ...] = ()) -> Scene | None:
    """The scene with `obj` drawn as an object of another name (not yet drawn, not in `exclude`)
    where it stands, in a colour that stands out, or in a `group`, in the group's colour and free
    to touch it; None when none fits there."""
    cfg = panel_scene(difficulty)
    surface = surface_colour(scene)
    others = [footprint(o) for o in scene.objects if o.uid != obj.uid and o.uid not in group]
    drawn = {o.name for o in scene.objects} | exclude
    pool = [e for e in load_catalogue(difficulty.catalogue) if e.name not in drawn
            and not (group and obj.colour in misread_colours(e.name, difficulty.catalogue))]
    for i in rng.permutation(len(pool))[:_TRIES]:
        new = dataclasses.replace(obj, name=pool[i].name, colour=obj.colour if group else
                                  random_object(rng, obj.uid, pool[i], surface, cfg).colour)
        if within(footprint(new), crop) and not clashes(footprint(new), others, cfg):
            return scene.replace_object(obj.uid, new)
    return None


def colour_kind(rng: np.random.Generator, entry: CatalogueEntry, version: str, n: int = 4) -> Kind:
    """Colours: the target's, n - 2 others and the absent one (n 5 where the target's answer is shared),
    none in which catalogue `version`'s object reads as another thing (a red syringe as a carrot)."""
    colours = distinct_colours(rng, n, refuse=misread_colours(entry.name, version))
    return Kind(entry, f"What color is the {entry.name}?", tuple(colours), 1, colour=True)


def count_kind(rng: np.random.Generator, entry: CatalogueEntry, max_count: int = len(COUNTS) - 1, n: int = 4,
               run: bool = False) -> Kind:
    """Counts 0..max_count: the target's, two others (n - 2; n 5 where the target's answer is shared)
    and the absent one are the first n of a shuffle (at the first release's 3, COUNTS), or, `run`,
    n consecutive counts, shuffled: a count off by one is another panel's answer, or none's. The
    run goes round the counts as a circle (after max_count comes 0), so every count is as likely
    to be the target's, or the absent one, as any other: windows on a line would make the middle
    count the target's in a fifth of the sets, a text-only answer to Q2."""
    if run:
        start = int(rng.integers(max_count + 1))
        values = [str((start + i) % (max_count + 1)) for i in rng.permutation(n)]
    else:
        values = [str(i) for i in rng.permutation(max_count + 1)[:n]]
    return Kind(entry, f"How many {plural(entry.name)} are there in the image?", tuple(values), max_count)


def presence_kind(entry: CatalogueEntry) -> Kind:
    return Kind(entry, f"Is there {article(entry.name)} {entry.name} in the image?", ("yes", "no", "no", None), 1)


def shared_scene(rng: np.random.Generator, kind: Kind, difficulty: PanelDifficulty,
                 exclude: frozenset[str]) -> Panel | None:
    """A fresh scene whose crop holds `kind.slots` Xs (plain, at the detail size, in colours that
    stand out; the first in the target's colour for a colour question; clustered, in one group of
    one colour, `_clustered`), none of `exclude` elsewhere; for a count, no object cut by the crop."""
    cfg = panel_scene(difficulty)
    for _ in range(_TRIES):
        scene = random_scene(rng, cfg, exclude_names=exclude)
        crop, surface = square_crop(scene), surface_colour(scene)
        if kind.counted:  # a count counts what is shown: no object half in the panel to be taken for an X
            scene = _whole_in(scene, crop)
        if kind.clustered(difficulty):
            panel = _clustered(rng, scene, crop, kind, difficulty)
            if panel is not None:
                return panel
            continue
        xs: list[int] = []
        for slot in range(kind.slots):
            template = random_object(rng, scene.next_uid(), kind.entry, surface, cfg)
            colour = kind.values[0] if kind.colour else template.colour
            template = dataclasses.replace(template, colour=colour, style="plain",
                                           size=difficulty.detail_size or template.size)
            near = (*centre_px(crop), crop[2] * 2 // 5)
            obj = place(rng, scene, template, [footprint(o) for o in scene.objects], cfg, near=near)
            if obj is None or not within(footprint(obj), crop) or not stands_out(colour, surface):
                break
            scene = scene.add(obj)
            xs.append(obj.uid)
        else:
            return Panel(scene, crop, tuple(xs), tuple(xs))
    return None


def _whole_in(scene: Scene, crop) -> Scene:
    """`scene` without the objects the crop would cut."""
    for obj in scene.objects:
        box = footprint(obj)
        if meets(box, crop) and not within(box, crop, margin=0):
            scene = scene.replace_object(obj.uid, None)
    return scene


# count_layout "clustered": neighbouring X slots stand this many detail ems apart, centre to
# centre (their glyphs touch and overlap a little), a little jittered; each object of the group
# keeps at least CLUSTER_SHOWN of its pixels in sight, so a person with zoom counts it.
CLUSTER_STEP = 1.0
CLUSTER_JITTER = 0.06
CLUSTER_SHOWN = 0.7
# A group's one colour is at least this light (CIELAB L): every object's dark rim then parts it from
# the next (a careful reader miscounted a group of black ice creams, whose rims it hides)
GROUP_LIGHTNESS = 45


def _clustered(rng: np.random.Generator, scene: Scene, crop, kind: Kind, difficulty: PanelDifficulty) -> Panel | None:
    """`scene` with `kind.slots` Xs of one colour standing together in one group near the crop's
    centre, on rows offset by half a step (the scene's objects where the group stands removed);
    None where the group does not fit in the crop. The objects that take a panel's empty slots
    keep that colour, so the Xs are told from them by their shapes alone."""
    cfg = panel_scene(difficulty)
    surface = surface_colour(scene)
    em = difficulty.detail_size or difficulty.min_size
    n = kind.slots
    columns = int(np.ceil(np.sqrt(n)))
    rows = -(-n // columns)
    cx0, cy0 = centre_px(crop)
    reach = crop[2] // 6
    cx0 += int(rng.integers(-reach, reach + 1))
    cy0 += int(rng.integers(-reach, reach + 1))
    step = CLUSTER_STEP * em
    misread = misread_colours(kind.entry.name, difficulty.catalogue)
    colours = [c for c in fitting_colours(COLOURS, surface, refuse=misread)
               if to_lab(COLOURS[c])[0] >= GROUP_LIGHTNESS]
    if not colours:
        return None
    colour = colours[int(rng.integers(len(colours)))]
    xs = []
    for j in range(n):
        r, c = divmod(j, columns)
        template = random_object(rng, scene.next_uid() + j, kind.entry, surface, cfg)
        jitter = rng.uniform(-CLUSTER_JITTER, CLUSTER_JITTER, 2) * em
        xs.append(dataclasses.replace(
            template, style="plain", size=em, colour=colour,
            cx=int(round(cx0 + (c - (columns - 1) / 2 + (r % 2) / 2) * step + jitter[0])),
            cy=int(round(cy0 + (r - (rows - 1) / 2) * step * 0.87 + jitter[1]))))
    boxes = [footprint(x) for x in xs]
    if not all(within(b, crop) for b in boxes):
        return None
    group = bounding(boxes)
    for obj in scene.objects:
        if not apart(footprint(obj), group, GAP):
            scene = scene.replace_object(obj.uid, None)
    for x in xs:
        scene = scene.add(x)
    uids = tuple(x.uid for x in xs)
    return Panel(scene, crop, uids, uids, grouped=True)


def vary(rng: np.random.Generator, panel: Panel, count: int, difficulty: PanelDifficulty,
         exclude: frozenset[str]) -> Panel | None:
    """`panel` with its Xs at spots of their own in the crop (so that panels of one group differ
    around the Xs whether or not they share an answer) and `count` changes to other objects wholly
    in its crop (never one object twice): one recoloured (clearly, still standing out), moved within
    the crop, removed, or one object of a name not yet drawn and not in `exclude` added. A move or an
    addition that finds no room is drawn again as another change; None when the crop has nothing
    left to change or an X finds no other spot. Grouped Xs stay in their group, whose slots
    each panel fills in its own way."""
    scene, touched = panel.scene, set(panel.xs) | set(panel.slots)  # slots stay what they are (twins give them back)
    group = bounding([footprint(scene.object(uid)) for uid in panel.slots]) if panel.grouped else None
    for uid in () if panel.grouped else panel.xs:
        for _ in range(_TRIES):
            moved = _change(rng, scene, panel.crop, "move", scene.object(uid), difficulty, exclude)
            if moved is not None:
                scene = moved
                break
        else:
            return None
    for _ in range(count):
        for _ in range(_TRIES):
            change = CHANGES[int(rng.integers(len(CHANGES)))]
            movable = [o for o in scene.objects if o.uid not in touched and within(footprint(o), panel.crop)]
            obj = None if change == "add" else movable[int(rng.integers(len(movable)))] if movable else None
            changed = None if obj is None and change != "add" else _change(rng, scene, panel.crop, change, obj,
                                                                         difficulty, exclude, group)
            if changed is not None:
                touched.add(obj.uid if obj is not None else changed.objects[-1].uid)
                scene = changed
                break
        else:
            return None
    return dataclasses.replace(panel, scene=scene)


def _change(rng, scene, crop, change: str, obj, difficulty: PanelDifficulty, exclude: frozenset[str],
            group=None):
    """The scene with `obj` recoloured, removed or moved within the crop (clear of the Xs' `group`
    box, if any), or (`change` "add") a new object; None where it cannot be made."""
    cfg = panel_scene(difficulty)
    surface = surface_colour(scene)
    if change == "recolour":
        colours = fitting_colours(COLOURS, surface, (obj.colour,), misread_colours(obj.name, difficulty.catalogue))
        return scene.replace_object(obj.uid, dataclasses.replace(obj, colour=colours[int(rng.integers(len(colours)))]))
    if change == "remove":
        return scene.replace_object(obj.uid, None)
    if change == "add":
        drawn = {o.name for o in scene.objects} | exclude
        pool = [e for e in load_catalogue(difficulty.catalogue) if e.name not in drawn]
        obj = random_object(rng, scene.next_uid(), pool[int(rng.integers(len(pool)))], surface, cfg, scene.palette)
    near = (*centre_px(crop), crop[2] // 2)
    new = place(rng, scene, obj, [footprint(o) for o in scene.objects if o.uid != obj.uid], cfg, near=near)
    if new is None or not within(footprint(new), crop) or group is not None and not apart(footprint(new), group, GAP):
        return None
    return scene.add(new) if change == "add" else scene.replace_object(obj.uid, new)


def drawn_as(kind: Kind, panel: Panel, answer: str, em: int) -> bool:
    """Whether the panel's pixels show `answer`: each X lies in the crop and changes it as much as
    an object of em size `em` does (a render without it differs there), their number is the count,
    and a named colour is the palette colour most of the X's changed pixels are nearest to."""
    if len(panel.xs) != kind.shown(answer) or not set(panel.xs) <= {o.uid for o in panel.scene.objects}:
        return False
    for uid in panel.xs:
        box = footprint(panel.scene.object(uid))
        if not within(box, panel.crop, margin=0):
            return False
        shown = render(panel.scene, box)
        changed = _changed(shown, render(panel.scene.replace_object(uid, None), box))
        if changed.sum() < MIN_VISIBLE * em ** 2:
            return False
        if kind.colour and _nearest_share(shown[changed], answer) < MIN_COLOUR_SHARE:
            return False
    return True


# Counted Xs keep this much space between their footprints (scene px, shadows included; at the
# smallest panel, 180 px for a crop of at most 600, about 3.6 canvas px), beside the GAP every
# object keeps, so that a person with zoom sees each one apart when counting a crowded panel.
COUNT_GAP = 12


def x_spacing(panel: Panel) -> float:
    """The smallest gap (scene px, the larger of the horizontal and vertical one) between two of
    the panel's Xs' footprints; inf with fewer than two."""
    boxes = [footprint(panel.scene.object(uid)) for uid in panel.xs]
    gaps = [chebyshev_gap(a, b) for i, a in enumerate(boxes) for b in boxes[i + 1:]]
    return float(min(gaps)) if gaps else float("inf")


def shown_share(scene: Scene, uid: int) -> float:
    """The share of object `uid`'s own pixels (drawn alone on the surface) that the scene shows
    as its: those that change when it is left out."""
    obj, box = scene.object(uid), footprint(scene.object(uid))
    own = _changed(render(dataclasses.replace(scene, objects=(obj,)), box),
                   render(dataclasses.replace(scene, objects=()), box))
    seen = _changed(render(scene, box), render(scene.replace_object(uid, None), box))
    return float((own & seen).sum() / max(1, own.sum()))


def _changed(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.abs(a.astype(int) - b.astype(int)).max(axis=2) > 12


def legible_count(panel: Panel) -> bool:
    """Whether a person can count the panel's Xs: each wholly in the crop and at least COUNT_GAP
    apart from the others (how big each is drawn, `drawn_as`), or, clustered, every object of the
    group showing at least CLUSTER_SHOWN of itself."""
    present = {o.uid for o in panel.scene.objects}
    if not all(within(footprint(panel.scene.object(uid)), panel.crop, margin=0) for uid in panel.xs):
        return False
    if panel.grouped:
        return all(shown_share(panel.scene, uid) >= CLUSTER_SHOWN for uid in panel.slots if uid in present)
    return x_spacing(panel) >= COUNT_GAP


def _nearest_share(pixels: np.ndarray, colour: str, sample: int = 256) -> float:
    """Share of `pixels` (n x 3; an even sample of at most `sample` of them) whose nearest
    palette colour (Lab) is `colour`."""
    names = list(COLOURS)
    picked = pixels[np.linspace(0, len(pixels) - 1, min(sample, len(pixels))).astype(int)]
    nearest = [min(names, key=lambda n: lab_distance(tuple(int(v) for v in p), COLOURS[n])) for p in picked]
    return nearest.count(colour) / len(nearest)


def _rendered(panel: Panel) -> bytes:
    return encode_png(render(panel.scene, panel.crop))


def _fresh(rng, kind: Kind, answer: str, difficulty: PanelDifficulty, exclude: frozenset[str]) -> Panel | None:
    """A scene of its own showing `answer`."""
    base = shared_scene(rng, kind, difficulty, exclude)
    return None if base is None else kind.realise(rng, base, answer, difficulty, exclude)


def _group(rng, kind: Kind, answers: Sequence[str], difficulty: PanelDifficulty,
           exclude: frozenset[str]) -> tuple[Panel, list[Panel]] | None:
    """The shared scene and one panel per answer made from it, each with its own other details."""
    base = shared_scene(rng, kind, difficulty, exclude)
    if base is None:
        return None
    out = []
    for answer in answers:
        panel = kind.realise(rng, base, answer, difficulty, exclude)
        panel = panel and vary(rng, panel, difficulty.other_details, difficulty, exclude)
        if panel is None:
            return None
        out.append(panel)
    return base, out


# target_answer "shared": how many panels with other answers the pool holds, among the panels and
# among the replacements, spread evenly over the other answers (a layout's other panels show no
# answer more often than that share; generate.shared_answers)
SHARED_POOL = 9


def shared_repeats(others: int) -> int:
    """How often a shared pool holds each of `others` other answers."""
    return -(-SHARED_POOL // others)


def _shared_set(rng, source: str, set_id: str, kind: Kind, difficulty: PanelDifficulty, dups: int,
                exclude: frozenset[str]) -> ImageSet | None:
    """target_answer "shared": a pool of panels that `generate.shared_answers` fills a layout from.
    Panels: the target, one more panel showing the target's answer, then each other answer
    `shared_repeats` times (the near-duplicate group first, `dups` after the target, every panel
    at `procedural_edit`; then fresh scenes); replacements (low_similarity): fresh scenes with
    the target's answer once and each other answer as often; a twin of the target per
    other answer. All checked on the pixels, counts countable."""
    target, *rest, absent = kind.values
    others = list(dict.fromkeys(v for v in rest if v != target))
    answers = [target, target] + [others[i % len(others)] for i in range(shared_repeats(len(others)) * len(others))]
    dups = len(answers) - 1 if dups >= MAX_PANELS - 1 else dups
    made = _group(rng, kind, answers[:dups + 1], difficulty, exclude)
    if made is None:
        return None
    base, panels = made
    em = difficulty.detail_size or difficulty.min_size
    if not all(drawn_as(kind, p, ans, em) for p, ans in zip(panels, answers)):
        return None
    if not kind.colour and not all(legible_count(p) for p in panels):
        return None
    replacement_answers = [target] + answers[2:]
    for answer in answers[dups + 1:] + replacement_answers:  # a fresh scene is drawn again till one fits
        for _ in range(_TRIES):
            panel = _fresh(rng, kind, answer, difficulty, exclude)
            if (panel is not None and drawn_as(kind, panel, answer, em)
                    and (kind.colour or legible_count(panel))):
                panels.append(panel)
                break
        else:
            return None
    first = panels[0]
    twin_of = {v: kind.twin(rng, first, base, v, difficulty, exclude) for v in others}
    if any(t is None or not drawn_as(kind, t, v, em) for v, t in twin_of.items()):
        return None
    if not kind.colour and not all(legible_count(t) for t in twin_of.values()):
        return None
    twin_png = {v: _rendered(t) for v, t in twin_of.items()}
    encoded = [_rendered(p) for p in panels]
    ids = [f"{set_id}:{i}" for i in range(len(panels))]
    n = len(answers)
    return ImageSet(
        source=source, set_id=set_id, question=kind.question,
        panels=tuple(encoded[:n]), answers=tuple(answers), panel_ids=tuple(ids[:n]),
        replacements=tuple(encoded[n:]), replacement_answers=tuple(replacement_answers),
        replacement_ids=tuple(ids[n:]),
        absent_answer=absent,
        detail_size=base.scene.object(base.xs[0]).size, crop_side=first.crop[2],
        objects=sum(meets(footprint(o), first.crop) for o in first.scene.objects),
        near_duplicate=tuple(0 < i <= dups for i in range(n)),
        twins=tuple(twin_png.get(a, b"") if i else b"" for i, a in enumerate(answers)),
        shared=True,
    )


def _image_set(rng, source: str, set_id: str, kind: Kind, difficulty: PanelDifficulty, dups: int,
               exclude: frozenset[str]) -> ImageSet | None:
    """Panels: the near-duplicate group (the target and `dups` others), then fresh scenes up to
    MAX_PANELS, then MAX_PANELS - 1 fresh low_similarity replacements; all checked on the pixels."""
    target, a, b, absent = kind.values
    answers = [target] + other_answers(rng, (a, b), 2 * MAX_PANELS - 2)
    made = _group(rng, kind, answers[:dups + 1], difficulty, exclude)
    if made is None:
        return None
    base, panels = made
    for answer in answers[dups + 1:]:
        panel = _fresh(rng, kind, answer, difficulty, exclude)
        if panel is None:
            return None
        panels.append(panel)
    em = difficulty.detail_size or difficulty.min_size
    if not all(drawn_as(kind, p, ans, em) for p, ans in zip(panels, answers)):
        return None
    k, first = MAX_PANELS, panels[0]
    twins: list[bytes] = []
    made_twins: list[Panel] = []
    if difficulty.neighbours == "twins":  # the target's panel showing each other panel's answer
        made_twins = [kind.twin(rng, first, base, ans, difficulty, exclude) for ans in answers[1:k]]
        if any(t is None or not drawn_as(kind, t, ans, em) for t, ans in zip(made_twins, answers[1:k])):
            return None
        twins = [b""] + [_rendered(t) for t in made_twins]
    if not kind.colour and not all(legible_count(p) for p in panels + made_twins):
        return None
    encoded = [_rendered(p) for p in panels]
    ids = [f"{set_id}:{i}" for i in range(len(panels))]
    return ImageSet(
        source=source, set_id=set_id, question=kind.question,
        panels=tuple(encoded[:k]), answers=tuple(answers[:k]), panel_ids=tuple(ids[:k]),
        replacements=tuple(encoded[k:]), replacement_answers=tuple(answers[k:]), replacement_ids=tuple(ids[k:]),
        absent_answer=absent,
        detail_size=base.scene.object(base.xs[0]).size, crop_side=first.crop[2],
        objects=sum(meets(footprint(o), first.crop) for o in first.scene.objects),
        near_duplicate=tuple(0 < i <= dups for i in range(k)),
        twins=tuple(twins),
    )


# glyphs that draw several of their kind: a count of them has two answers (the pills icon, a capsule and a tablet)
UNCOUNTABLE = frozenset({"pill"})


def _entry(rng: np.random.Generator, count: bool, version: str) -> CatalogueEntry:
    entries = [e for e in question_objects(version) if e.name not in IRREGULAR_PLURALS
               and (not count or plural(e.name) and e.name not in UNCOUNTABLE)]
    return entries[int(rng.integers(len(entries)))]


def excluded(name: str, version: str) -> frozenset[str]:
    """`name` and what no panel of a question about it draws besides its own objects: names of
    catalogue `version` that contain it or that it contains, its look-alikes (the catalogue's and
    `PANEL_LOOKALIKES`)."""
    said = {n for n in (e.name for e in load_catalogue(version)) if contains(n, name) or contains(name, n)}
    return frozenset(said | read_as(name, version)).union(*(g for g in PANEL_LOOKALIKES if name in g))


def kept_out(kind: Kind, difficulty: PanelDifficulty) -> frozenset[str]:
    """What no panel of a set asking `kind` draws: `excluded`, and where the Xs stand in a group of
    one colour, every kind of the X's category (its kin: careful readers counted a pink SIM card
    among pink keyboards, an igloo among tents)."""
    out = excluded(kind.entry.name, difficulty.catalogue)
    if kind.clustered(difficulty):
        out |= {e.name for e in load_catalogue(difficulty.catalogue) if e.category == kind.entry.category}
    return out


def edit_set(rng: np.random.Generator, set_id: str, difficulty: PanelDifficulty) -> ImageSet | None:
    """MagicBrush-like: every panel is one scene with the X in its colour (at `asked` scene: Xs
    added or taken away, as the scene question asks) and details of its own."""
    scene = difficulty.asked == "scene"
    count = scene and difficulty.scene_question == "count"
    entry = _entry(rng, count, difficulty.catalogue)
    shared = difficulty.target_answer == "shared"
    make = _shared_set if shared else _image_set
    n = 5 if shared else 4
    kind = (colour_kind(rng, entry, difficulty.catalogue, n) if not scene
            else count_kind(rng, entry, difficulty.max_count, n, difficulty.counts == "run") if count
            else presence_kind(entry))
    return make(rng, "procedural_edit", set_id, kind, difficulty, MAX_PANELS - 1, kept_out(kind, difficulty))


def scene_set(rng: np.random.Generator, set_id: str, difficulty: PanelDifficulty) -> ImageSet | None:
    """VQAv2-like: the X's colour, or (the difficulty's scene question) its count or presence (at
    `asked` scene, always the latter), with `difficulty.near_duplicates` panels from the target's
    scene and fresh scenes for the rest."""
    colour = rng.random() < 0.5 and difficulty.asked == "mixed"
    entry = _entry(rng, not colour and difficulty.scene_question == "count", difficulty.catalogue)
    shared = difficulty.target_answer == "shared"
    n = 5 if shared else 4
    kind = (colour_kind(rng, entry, difficulty.catalogue, n) if colour
            else count_kind(rng, entry, difficulty.max_count, n, difficulty.counts == "run")
            if difficulty.scene_question == "count"
            else presence_kind(entry))
    return (_shared_set if shared else _image_set)(rng, "procedural_scene", set_id, kind, difficulty,
                                                   difficulty.near_duplicates, kept_out(kind, difficulty))


def _recoloured(panel: Panel, answer: str) -> Panel | None:
    """The panel with its one X in colour `answer`; None where that colour would not stand out of the surface."""
    (uid,) = panel.xs
    scene = panel.scene
    if not stands_out(answer, surface_colour(scene)):
        return None
    return dataclasses.replace(panel,
                               scene=scene.replace_object(uid, dataclasses.replace(scene.object(uid), colour=answer)))
