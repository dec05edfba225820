"""The commonality track from annotated photos: instance and category, by classical cut-outs.

Image a is a photo P; image b starts as another photo Q in which nothing is annotated with any
of P's names. Annotations are all that is known of a photo, so only annotated names may be
claimed shared: the options name four small objects of P, each the only one of its name in P.
Each option gets a seeded free spot in Q, where image b holds a cut-out (the object's mask:
the source's segmentation, else GrabCut's; `Composite`: its colours matched to Q's light, a
contact shadow under it) sized as the photos' size ratio gives it: in the candidate's image b the shared object (for
instance P's very object, for category another object of that name from a third photo R), in
every other image b, the E pair's included, a stand-in, so that an inserted look never tells
the answer. As for every row (`dicobench.rows`), all four candidates are built and checked before
the letter picks one, so neither a rejection nor an option text depends on the answer.
"""

from __future__ import annotations

import math
import weakref
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from dicobench.checks import Rejected, check_difference_pixels
from dicobench.editors.models import Backends
from dicobench.editors.photo.classical import Composite, Mask, changed_box, crop
from dicobench.editors.photo.instructed import blends_references, reference_blend
from dicobench.editors.scene import capitalised, kind_phrase
from dicobench.kit.photos.model import Photo, PhotoObject
from dicobench.kit.photos.sources import PhotoSource
from dicobench.kit.scene.geometry import Box, apart, bounding, contains, inset
from dicobench.rows import AgainstNoneImageB, Candidate, Inputs, Proposal, cue, generator, made
from dicobench.schema import SOURCE_SEPARATOR
from dicobench.sources.photo_objects import MAX_OBJECT_AREA, MIN_OBJECT_PIXELS, load_photo, normalised, region_mask
from dicobench.tasks import NUM_EDITS
from dicobench.tasks.registry import Task

MAX_SOURCE_AREA = 0.05  # objects cut from other photos than P: larger ones would shrink over 2x to fit image b
SIZE_JITTER = (0.85, 1.15)  # an inserted object's size against the one the photos' size ratio gives
SPOT_TRIES = 100
PICK_TRIES = 8  # photos looked at (and decoded) for one stand-in or other instance
BLEND_GAP = 40  # px between spots when an editor blends inserts in: its feathered reach stays apart


@dataclass(frozen=True)
class Sharing:
    """What a row's candidate shares with image a: P's very object (instance) or another object
    of its name, from a third photo (category)."""

    task: str
    same_object: bool

    def label(self, name: str) -> str:
        return f"{name}: same instance" if self.same_object else f"{name}: same kind, another instance"

    def sentence(self, name: str) -> str:
        phrase = kind_phrase(name)  # "a mug"; a plural name ("scissors") takes no article
        verb = "are" if phrase == name else "is"
        return (f"The same {name} {verb} in both images." if self.same_object
                else f"{capitalised(phrase)} {verb} in both images.")


@dataclass(frozen=True)
class NameIndex:
    """The source's annotated names, read once: which photos can give a row, and from where."""

    names: tuple[frozenset[str], ...]  # each photo's names
    unique: tuple[frozenset[str], ...]  # those on one editable object only in that photo: an option can name them
    photos: dict[str, tuple[int, ...]]  # the photos holding each name

    def option_names(self, sharing: Sharing, p: int) -> frozenset[str]:
        """P's names an option may use; category also needs another photo with the name."""
        if not sharing.same_object:
            return frozenset(n for n in self.unique[p] if len(self.photos[n]) > 1)
        return self.unique[p]


_INDEXES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def name_index(source: PhotoSource) -> NameIndex:
    """The source's index, built once per process from its annotations (no pixels are decoded)."""
    index = _INDEXES.get(source)
    if index is None:
        objects = [source.annotations(i) for i in range(len(source))]
        counts = [Counter(n for n in (normalised(o.name) for o in found) if n) for found in objects]
        editable = [{normalised(o.name) for o in found if o.editable} for found in objects]
        photos = defaultdict(list)
        for i, count in enumerate(counts):
            for name in count:
                photos[name].append(i)
        index = NameIndex(tuple(frozenset(c) for c in counts),
                          tuple(frozenset(n for n, k in c.items() if k == 1 and n in e)
                                for c, e in zip(counts, editable)),
                          {n: tuple(v) for n, v in photos.items()})
        _INDEXES[source] = index
    return index


def offers(sharing: Sharing, source: PhotoSource) -> bool:
    """Whether the source's annotations can give the task's rows at all: some photo with four
    names an option can use, and another photo sharing none of its names."""
    index = name_index(source)
    return any(len(index.option_names(sharing, p)) >= NUM_EDITS
               and any(q != p and not index.names[q] & index.names[p] for q in range(len(index.names)))
               for p in range(len(index.names)))


def choose_photos(rng: np.random.Generator, sharing: Sharing, index: NameIndex) -> tuple[int, int]:
    """P among the photos with enough nameable objects, Q among those sharing no name with P."""
    eligible = [p for p in range(len(index.names)) if len(index.option_names(sharing, p)) >= NUM_EDITS]
    if not eligible:
        raise Rejected("too_few_candidates", f"no photo has {NUM_EDITS} names usable for {sharing.task}")
    p = eligible[rng.integers(len(eligible))]
    unrelated = [q for q in range(len(index.names)) if q != p and not index.names[q] & index.names[p]]
    if not unrelated:
        raise Rejected("no_unrelated_photo", f"every photo shares a name with photo {p}")
    return p, unrelated[rng.integers(len(unrelated))]


def alone(obj: PhotoObject, objects: tuple[PhotoObject, ...]) -> bool:
    """No other annotated object shares `obj`'s box, unless it is a much larger one around it
    (the table a cup stands on): a cut-out must carry one named thing only."""
    def around(o: PhotoObject) -> bool:
        return contains(o.box, obj.box) and o.box[2] * o.box[3] >= 4 * obj.box[2] * obj.box[3]
    return all(o is obj or apart(obj.box, o.box, 0) or around(o) for o in objects)


def usable(photo: Photo, accept: Callable[[str], bool], max_area: float) -> list[PhotoObject]:
    """The objects with an accepted name that a cut-out can show: large enough to see, at most
    `max_area` of the photo (image b allows 1%: larger ones would shrink too much), alone."""
    h, w = photo.pixels.shape[:2]
    return [o for o in photo.objects
            if o.editable and normalised(o.name) and accept(normalised(o.name)) and alone(o, photo.objects)
            and MIN_OBJECT_PIXELS <= o.box[2] * o.box[3] <= max_area * h * w]


def area(pixels: np.ndarray) -> int:
    return pixels.shape[0] * pixels.shape[1]


@dataclass
class Photos:
    """What a row draws from: the source, its index, P and Q, and each photo decoded at most once."""

    source: PhotoSource
    index: NameIndex
    p: int
    q: int
    backends: Backends = field(default_factory=Backends)  # an editor that blends cut-outs in, if any
    loaded: dict[int, Photo] = field(default_factory=dict)
    used: set[tuple[str, Box]] = field(default_factory=set)  # (photo id, box) of the objects inserted so far

    def load(self, i: int) -> Photo:
        if i not in self.loaded:
            self.loaded[i] = load_photo(self.source, i)
        return self.loaded[i]

    def pick(self, rng: np.random.Generator, indices: list[int], accept: Callable[[str], bool]
             ) -> tuple[Photo, PhotoObject] | None:
        """A seeded unused object with an accepted name from the first of up to PICK_TRIES
        seeded photos among `indices` that has one."""
        for i in rng.permutation(len(indices))[:PICK_TRIES]:
            photo = self.load(indices[i])
            objects = [o for o in usable(photo, accept, MAX_SOURCE_AREA) if (photo.id, o.box) not in self.used]
            if objects:
                return photo, objects[rng.integers(len(objects))]
        return None

    def other_instance(self, rng: np.random.Generator, name: str) -> tuple[Photo, PhotoObject] | None:
        """An object called `name` from a third photo R (never Q: Q has none of P's names)."""
        return self.pick(rng, [r for r in self.index.photos[name] if r != self.p], lambda n: n == name)

    def filler(self, rng: np.random.Generator) -> tuple[Photo, PhotoObject] | None:
        """An object whose name is none of P's, from a photo other than P and Q."""
        banned = self.index.names[self.p]
        return self.pick(rng, [j for j, names in enumerate(self.index.names)
                               if j not in (self.p, self.q) and names - banned],
                         lambda n: n not in banned)


@dataclass(frozen=True)
class CutOut:
    photo: Photo  # where the object is cut from
    name: str
    box: Box
    mask: Mask  # in `photo`'s pixels
    scale: float  # from `photo` to image b

    @property
    def size(self) -> float:
        """Its box's area once inserted."""
        return self.box[2] * self.box[3] * self.scale ** 2


def cut_out(photo: Photo, obj: PhotoObject, scale: float, area_b: int) -> CutOut:
    """The object's cut-out (its mask, `region_mask`), `scale` lowered where needed to keep it within 1% of image
    b; an object that would come out too small to see is refused."""
    size = obj.box[2] * obj.box[3]
    scale = min(scale, math.sqrt(MAX_OBJECT_AREA * area_b / size))
    if size * scale ** 2 < MIN_OBJECT_PIXELS:
        raise Rejected("object_too_small", normalised(obj.name))
    return CutOut(photo, normalised(obj.name), obj.box, region_mask(photo.pixels, obj), scale)


def jitter(rng: np.random.Generator) -> float:
    return float(rng.uniform(*SIZE_JITTER))


@dataclass(frozen=True)
class Insertion:
    """One insert into Q, kept as the box it changed and that box's new pixels."""

    box: Box
    pixels: np.ndarray


def place_inserts(rng: np.random.Generator, pixels_b: np.ndarray, cuts: list[CutOut], taken: list[Box], gap: int
          ) -> tuple[list[Composite], Box]:
    """Inserts putting every cut-out centred on one seeded spot of image b, and the spot's box:
    inside the frame by `gap`, `gap` apart from the boxes `taken` (Q's objects, earlier spots).
    The cut-outs keep their texture (no Poisson blending): a look is what makes an instance."""
    h, w = pixels_b.shape[:2]
    shapes = [Composite(c.photo.pixels, (0, 0), c.scale).placed(c.mask) for c in cuts]
    feet = [m.support() for m in shapes]
    for _ in range(SPOT_TRIES):
        cx, cy = int(rng.integers(w)), int(rng.integers(h))
        ats = [(cx - f[2] // 2 - f[0], cy - f[3] // 2 - f[1]) for f in feet]
        spot = bounding([(x + f[0], y + f[1], f[2], f[3]) for (x, y), f in zip(ats, feet)])
        windows_inside = all(0 < x and x + m.window[2] < w and 0 < y and y + m.window[3] < h
                             for (x, y), m in zip(ats, shapes))
        if windows_inside and contains(inset((0, 0, w, h), gap), spot) and all(apart(spot, box, gap) for box in taken):
            return [Composite(c.photo.pixels, at, c.scale) for c, at in zip(cuts, ats)], spot
    raise Rejected("no_room_to_insert")


def insert(rng: np.random.Generator, pixels_b: np.ndarray, op: Composite, cut: CutOut, label: str,
           backends: Backends) -> Insertion:
    """Insert the cut-out and check that it changed only pixels under its placed mask (object
    and shadow), visibly.
    With an editor that takes reference images, the editor then blends it in (every insert
    alike, so that a blended look never tells the shared object from a stand-in)."""
    target = op.placed(cut.mask)
    edited = op(pixels_b, cut.mask)
    check_difference_pixels(pixels_b, edited.pixels, False, [cue(1, target.support(), label)], within=target.window)
    pixels, box = edited.pixels, edited.changed
    if blends_references(backends):
        pixels = reference_blend(rng, backends, pixels, target, crop(cut.photo.pixels, cut.box), cut.name)
        box = changed_box(pixels_b, pixels)
        check_difference_pixels(pixels_b, pixels, False, [cue(1, box, label)], within=box)
    return Insertion(box, crop(pixels, box).copy())


def compose(pixels_b: np.ndarray, patches: list[Insertion]) -> np.ndarray:
    """Q with the patches in: their boxes lie apart, so each is what its insert alone made."""
    out = pixels_b.copy()
    for patch in patches:
        crop(out, patch.box)[...] = patch.pixels
    return out


@dataclass(frozen=True)
class Spot:
    name: str
    box_a: Box  # the object in image a
    shared: Insertion  # what the candidate's image b holds at its spot
    stand_in: Insertion  # what every other image b holds there
    cut_from: tuple[tuple[str, Box], ...]  # (photo id, box) of the shared object and the stand-in

    @property
    def box_b(self) -> Box:
        """Every pixel where this candidate's image b differs from the E pair's."""
        return bounding([self.shared.box, self.stand_in.box])


def make_candidate(rng: np.random.Generator, sharing: Sharing, photos: Photos, obj: PhotoObject, taken: list[Box]
                   ) -> tuple[Spot, Box]:
    """The candidate sharing `obj` itself (instance) or its name (category), and its spot.

    Every image b, the E pair's included, holds an insert at every spot, so that an inserted
    look never tells E from the rest: the candidate's shared object, else a stand-in of the same
    size. Instance's stand-in is another object of the same name where a third photo has one
    (a decoy: only the instance tells them apart), category's one of a name P does not have."""
    name = normalised(obj.name)
    photo_a, b = photos.load(photos.p), photos.load(photos.q).pixels
    if sharing.same_object:
        shared = cut_out(photo_a, obj, math.sqrt(area(b) / area(photo_a.pixels)) * jitter(rng), area(b))
        stand_in = photos.other_instance(rng, name) or photos.filler(rng)
    else:
        found = photos.other_instance(rng, name)
        if found is None:
            raise Rejected("no_other_instance", name)
        shared = cut_out(found[0], found[1], math.sqrt(area(b) / area(found[0].pixels)) * jitter(rng), area(b))
        stand_in = photos.filler(rng)
    if stand_in is None:
        raise Rejected("no_stand_in", name)
    photo_s, obj_s = stand_in
    cuts = [shared, cut_out(photo_s, obj_s, math.sqrt(shared.size / (obj_s.box[2] * obj_s.box[3])) * jitter(rng),
                            area(b))]
    gap = max(BLEND_GAP if blends_references(photos.backends) else 8, min(b.shape[:2]) // 50)
    ops, spot = place_inserts(rng, b, cuts, taken, gap)
    patches = [insert(rng, b, op, c, sharing.label(name), photos.backends) for op, c in zip(ops, cuts)]
    return Spot(name, obj.box, patches[0], patches[1], tuple((c.photo.id, c.box) for c in cuts)), spot


def choose_candidates(rng: np.random.Generator, sharing: Sharing, photos: Photos) -> list[Spot]:
    """Four candidates from P's nameable objects in seeded order; one that fails is passed over."""
    names = photos.index.option_names(sharing, photos.p)
    objects = usable(photos.load(photos.p), lambda n: n in names, MAX_OBJECT_AREA)
    taken = [o.box for o in photos.load(photos.q).objects]
    chosen: list[Spot] = []
    for i in rng.permutation(len(objects)):
        try:
            cand, spot = make_candidate(rng, sharing, photos, objects[i], taken)
        except Rejected:
            continue
        chosen.append(cand)
        taken.append(spot)
        photos.used.update(cand.cut_from)
        if len(chosen) == NUM_EDITS:
            return chosen
    raise Rejected("too_few_candidates", f"{len(chosen)} of {NUM_EDITS}")


class SharingProposer:
    """The photo proposer of instance or category (see the module's docstring)."""

    def __init__(self, sharing: Sharing):
        self.sharing = sharing

    def offers(self, source: PhotoSource) -> bool:
        return offers(self.sharing, source)

    def __call__(self, task: Task, seed: int, opts, inputs: Inputs) -> Proposal:
        rng = np.random.default_rng(seed)
        index = name_index(inputs.source)
        sharing, backends = self.sharing, inputs.backends
        photos = Photos(inputs.source, index, *choose_photos(rng, sharing, index), backends)
        photo_a, photo_b = photos.load(photos.p), photos.load(photos.q)
        cands = choose_candidates(rng, sharing, photos)
        none_b = compose(photo_b.pixels, [c.stand_in for c in cands])
        candidates = tuple(
            Candidate(made(compose(photo_b.pixels, [c.stand_in for c in cands if c is not cand] + [cand.shared])),
                      sharing.sentence(cand.name), cand.name,
                      [cue(0, cand.box_a, sharing.label(cand.name)), cue(1, cand.box_b, sharing.label(cand.name))],
                      cand.box_b)
            for cand in cands
        )
        cut_from = sorted({photo_id for c in cands for photo_id, _ in c.cut_from} - {photo_a.id})
        made_by = f"classical {task.name} commonality (OpenCV cut-outs)"
        if blends_references(backends):
            made_by += f"; cut-outs blended in by {backends.editor.name} from reference images"
        return Proposal(photo_a.pixels, none_b, candidates, AgainstNoneImageB(),
                        SOURCE_SEPARATOR.join([photo_a.id, photo_b.id] + cut_from), generator("photos", made_by),
                        max(*photo_a.pixels.shape[:2], *photo_b.pixels.shape[:2]))


instance_proposal = SharingProposer(Sharing("instance", same_object=True))
category_proposal = SharingProposer(Sharing("category", same_object=False))
