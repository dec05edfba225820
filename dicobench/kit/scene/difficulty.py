"""How hard a procedural build is: five axes of the scenes and their edits, and named presets.

The paper's gap comes from tiny cues in cluttered 2K images: a person with zoom finds them, a
model that shrinks the input to its viewer's size does not. Each field below is one dial on
that mechanism; a preset sets them all. `easy` is the first release's world (the same scenes
and edits for the same seed, byte for byte); `hard`, the default, keeps every cue visible at
full size while most of it is gone after shrinking the pair to 1024 px; `extreme` goes to 4K
canvases with several hundred objects.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field, fields

from dicobench.kit.io.imageio import WRITERS
from dicobench.kit.scene.camera import CameraBounds
from dicobench.kit.scene.catalogue import VERSIONS

DISTRACTORS = ("objects", "pairs")


def dial(axis: str, doc: str, default, later: bool = False):
    """A settings field that is a difficulty dial: the CLI makes it an option, the card lists it.

    `later` marks a dial added after builds first recorded their manifests: at its default it
    changes nothing, so a manifest leaves it out there and such a build still resumes."""
    return field(default=default, metadata={"axis": axis, "doc": doc, "later": later})


class Dials:
    """What every frozen settings class of dials shares (its `preset` names where it came from)."""

    def with_axes(self, **values):
        """These settings with some fields set apart (None leaves a field as it is)."""
        values = {k: v for k, v in values.items() if v is not None}
        changed = dataclasses.replace(self, **values) if values else self
        return self if changed == self else dataclasses.replace(changed, preset="custom")

    def manifest(self) -> dict:
        """The dials as a build's manifest records them: a later dial at its default is left out."""
        return {k: v for k, v in dataclasses.asdict(self).items()
                if not (self.__dataclass_fields__[k].metadata.get("later")
                        and v == self.__dataclass_fields__[k].default)}

    @classmethod
    def axis_fields(cls):
        """(field, axis, doc) for every dial, in declaration order (the CLI and the card read it)."""
        return [(f, f.metadata["axis"], f.metadata["doc"]) for f in fields(cls) if "axis" in f.metadata]


@dataclass(frozen=True)
class Difficulty(Dials):
    """Every dial of a procedural scene and its edits (frozen: part of the build options)."""

    preset: str = "easy"  # the preset these values came from, or "custom" once a field is set apart
    min_canvas: int = dial("resolution", "shortest long side of a canvas, px", 1600)
    max_canvas: int = dial("resolution", "longest long side of a canvas, px (up to 8192)", 2048)
    min_size: int = dial("cue scale", "smallest glyph em size of an object, px", 34)
    max_size: int = dial("cue scale", "largest glyph em size of an object, px", 92)
    cue_max_size: int = dial("cue scale",
                             "edits and shared objects only use objects up to this em size, px (0: any)", 0)
    min_objects: int = dial("clutter", "fewest objects in a scene", 25)
    max_objects: int = dial("clutter", "most objects of distinct names in a scene (two scenes of a commonality row "
                                       "share none: keep it under half the catalogue)", 80)
    same_kind: int = dial("clutter", "further objects in a difference scene, each of the name of an editable object, "
                                      "in a clearly different colour and beside it (options then name such objects by "
                                      "their look)", 0)
    overlap: float = dial("clutter", "share of an object's width and height a neighbour may cover on each side "
                                      "(0: objects keep apart)", 0.0)
    palette: int = dial("clutter", "named colours one scene draws its objects from (0: all), so that similar-coloured "
                                    "objects stand near every cue", 0)
    marks: int = dial("background", "unnamed small marks (specks, dots, scratches) per megapixel of surface", 0)
    grain: float = dial("background", "per-pixel grain of the surface, levels (standard deviation)", 0.0)
    cell: int = dial("background", "side of the surface's texture cells, px: texture, marks and grain are drawn at "
                                    "1/cell of the canvas and enlarged, which keeps a page of rows within the Dataset "
                                    "Viewer's limit (objects and edits stay at full resolution)", 1)
    recolour_distance: float = dial("subtlety",
                                    "least Lab distance between a recoloured object's old and new colour", 40.0)
    move_reach: int = dial("subtlety", "how far from its reference a moved object may land, px", 260)
    trace_opacity: float = dial("subtlety", "opacity of surface traces (prints, spills, crumbs), times their own", 1.0)
    trace_scale: float = dial("subtlety", "length of trails and size of spills and scatters, times their own", 1.0)
    distractors: str = dial("subtlety", "options A-D of a difference row: objects (four objects, one edit each) or "
                                         "pairs (two objects, two edits each: seeing where the change is does not say "
                                         "what it is); rows of turns, flips, look-alike replacements or turned-back "
                                         "trails take four objects either way",
                            "objects")
    parts: float = dial("subtlety", "share of attribute edits that change one part of an object (one half of a "
                                    "two-tone object, its stripes or its dots) while the rest stays; such edits may "
                                    "take objects up to twice the cue scale, since only the part changes (0: whole "
                                    "objects only)", 0.0, later=True)
    turns: float = dial("subtlety", "share of attribute rows whose options are four striped objects, each with its "
                                    "stripes turned the other way (same colours and shares, so the object looks the "
                                    "same once the pair is shrunk to a model's input, while with zoom the stripes "
                                    "plainly cross), where the scene has four objects of 36 px or more to stripe, "
                                    "some first drawn striped in their own colours in both images (0: none)", 0.0,
                        later=True)
    flips: float = dial("subtlety", "share of spatial relation rows whose options are four objects of at least 32 px "
                                    "whose outline is not its own mirror image, each flipped left to right where it "
                                    "stands (same place and colours, so the pair looks much the same once shrunk, "
                                    "while with zoom the shape plainly points the other way), where the scene has "
                                    "four (0: none)", 0.0, later=True)
    swaps: float = dial("subtlety", "share of entity rows whose options are four objects, each replaced, in place and "
                                    "in its colour, by an object of another name whose outline shrunk to 8 px is much "
                                    "like its own (so the pair looks the same once shrunk, while with zoom the kind "
                                    "plainly differs), where the scene has four (0: none)", 0.0, later=True)
    turnbacks: float = dial("subtlety", "share of difference reasoning rows whose options are four objects, each with "
                                        "a trail of shoe prints leading up to it in both images, each trail "
                                        "turned to lead away from it (the same prints in the same places, so the pair "
                                        "looks the same once shrunk, while with zoom every print plainly points the "
                                        "other way), where the scene has room (0: none)", 0.0, later=True)
    doubles: float = dial("subtlety", "share of category, instance and spatial grounding rows in which image 2 holds, "
                                      "for each option, an object of another kind whose outline shrunk to 8 px is "
                                      "much like the one the option names: in category rows drawn as its other "
                                      "instance would be, in instance rows in its very look at the cue scale (the "
                                      "options' objects unmarked, at the cue scale too) where its copy would lie, in "
                                      "spatial grounding rows in its look where it would stand (its own, for the "
                                      "candidate, where it stood), and a candidate draws its own as its kind (so at a "
                                      "glance every option seems true, while with zoom only the answer's is), where "
                                      "the scene has four such objects; a draw without them is drawn again, plain "
                                      "or not, so under 1 fewer rows hold them (0.75: about three rows in five) "
                                      "(0: none)", 0.0, later=True)
    near_misses: float = dial("subtlety", "share of spatial grounding rows in which every option's image-2 object "
                                          "stands one grid cell (a sixth of the side) off its partner's place, "
                                          "along a row or a column, and a candidate moves its own onto the place "
                                          "(close enough that a glance has to judge positions, while measured only "
                                          "the answer's is in place), where the scene has room (0: none)", 0.0,
                              later=True)
    decoys: int = dial("decoys", "copies, elsewhere in both images and unchanged, of every state an option names "
                                 "(its object before and after the edit, a moved object's relation, a trace by its "
                                 "object), this many per state on average: the text then says what kind of change to "
                                 "look for, never where; an object's states share this many times their number, split "
                                 "at random with at least one each, so that counting them in one image says little "
                                 "about which option changed (0: none, options name each object as the only one of "
                                 "its look)", 0, later=True)
    catalogue: str = dial("names and looks", "objects and looks scenes draw from: first-release, or audited (no name "
                                             "containing another, no glyphs alike at cue size, patterns and markings "
                                             "only where a person sees them; dicobench.kit.scene.catalogue)",
                          "first-release")
    # not a dial of the scenes: the PNG compress level builds at this difficulty write unless told
    # otherwise (lossless at any level; `easy` keeps the first release's 1, the others pay for a
    # 100-row page within the Dataset Viewer's limit, see dicobench.kit.release.viewer)
    png_level: int = 1
    # ... and the PNG writer (dicobench.kit.io.imageio.encode_png): `hard` and `extreme` take `sub-up`
    # (zlib-ng) at levels 5 and 6, smaller than Pillow's level 6 on their renders in a fraction of its
    # time; `easy` keeps Pillow's, the first release's bytes (benchmarks/bench_png.py)
    png_writer: str = "pillow"
    # not dials either: the bounds each image's camera is drawn within (dicobench.kit.scene.camera), and
    # whether builds at this difficulty shoot through cameras unless told (`--camera`); `easy`
    # writes the clean renders, as the first release did, and records the first cameras' colour bounds
    # (its manifests hold them, so its folders resume); `--camera on` shoots it with `CameraBounds()`
    camera: CameraBounds = CameraBounds(gain=0.01, white_balance=0.007)
    camera_on: bool = False

    def __post_init__(self) -> None:
        problems = []
        if self.catalogue not in VERSIONS:
            problems.append(f"catalogue must be one of {', '.join(VERSIONS)}, got {self.catalogue!r}")
        if self.png_writer not in WRITERS:
            problems.append(f"png writer must be one of {', '.join(WRITERS)}, got {self.png_writer!r}")
        if self.distractors not in DISTRACTORS:
            problems.append(f"distractors must be one of {', '.join(DISTRACTORS)}, got {self.distractors!r}")
        if not 256 <= self.min_canvas <= self.max_canvas <= 8192:
            problems.append(f"canvas long sides must satisfy 256 <= min <= max <= 8192 "
                            f"(got {self.min_canvas}, {self.max_canvas})")
        if not 8 <= self.min_size <= self.max_size:
            problems.append(f"object sizes must satisfy 8 <= min <= max (got {self.min_size}, {self.max_size})")
        if self.cue_max_size and self.cue_max_size < self.min_size:
            problems.append(f"cue-max-size {self.cue_max_size} is below the smallest object ({self.min_size})")
        if not 1 <= self.min_objects <= self.max_objects <= 1000:
            problems.append(f"object counts must satisfy 1 <= min <= max <= 1000 "
                            f"(got {self.min_objects}, {self.max_objects})")
        if not 0 <= self.same_kind <= 1000 - self.max_objects:
            problems.append(f"same-kind objects must be within 0-{1000 - self.max_objects} (1000 objects in all), "
                            f"got {self.same_kind}")
        if not 0 <= self.overlap <= 0.25:
            problems.append(f"overlap must be within 0-0.25, got {self.overlap}")
        if self.palette and not 3 <= self.palette <= 12:
            problems.append(f"palette must be 0 (all) or 3-12 colours, got {self.palette}")
        if self.marks < 0 or self.grain < 0 or not 0 < self.trace_opacity <= 1 or not 0.2 <= self.trace_scale <= 1 \
                or self.move_reach < 40:
            problems.append("marks and grain must be >= 0, trace opacity within (0, 1], trace scale within 0.2-1, "
                            "move reach >= 40")
        if not 1 <= self.cell <= 4:
            problems.append(f"cell must be within 1-4 px, got {self.cell}")
        shares = {"parts": self.parts, "turns": self.turns, "flips": self.flips, "swaps": self.swaps,
                  "turnbacks": self.turnbacks, "doubles": self.doubles, "near_misses": self.near_misses}
        if not all(0 <= share <= 1 for share in shares.values()) or not 0 <= self.decoys <= 4:
            problems.append(f"{', '.join(shares)} must be within 0-1 and decoys within 0-4, got "
                            f"{', '.join(f'{v:g}' for v in shares.values())} and {self.decoys}")
        if not 10 <= self.recolour_distance <= 60:
            problems.append(f"recolour distance must be within 10-60, got {self.recolour_distance}")
        if problems:
            raise ValueError("; ".join(problems))

    def describe(self) -> str:
        """One line for the card and the `generator` column."""
        return (f"{self.preset}: long side {self.min_canvas}-{self.max_canvas} px, objects {self.min_objects}-"
                f"{self.max_objects} of {self.min_size}-{self.max_size} px"
                + (f" (cues up to {self.cue_max_size} px)" if self.cue_max_size else "")
                + (f", {self.same_kind} same-kind objects" if self.same_kind else "")
                + f", overlap {self.overlap:g}, palette {self.palette or 'all'}, marks {self.marks}/Mpx, grain "
                  f"{self.grain:g}" + (f" on {self.cell} px cells" if self.cell > 1 else "")
                + f", recolour distance {self.recolour_distance:g}, move reach {self.move_reach} px, "
                  f"trace opacity {self.trace_opacity:g}, trace scale {self.trace_scale:g}"
                + ("" if self.distractors == "objects" else f", {self.distractors} of options")
                + (f", part edits {self.parts:g}" if self.parts else "")
                + (f", four stripes turned in attribute rows (share {self.turns:g})" if self.turns else "")
                + (f", four objects flipped in spatial relation rows (share {self.flips:g})" if self.flips else "")
                + (f", four look-alike replacements in entity rows (share {self.swaps:g})" if self.swaps else "")
                + (f", four trails turned back in difference reasoning rows (share {self.turnbacks:g})"
                   if self.turnbacks else "")
                + (f", glance doubles in category, instance and spatial grounding rows (share {self.doubles:g})"
                   if self.doubles else "")
                + (f", near misses in spatial grounding rows (share {self.near_misses:g})" if self.near_misses else "")
                + (f", {self.decoys} decoys per named state on average" if self.decoys else "")
                + ("" if self.catalogue == "first-release" else f", {self.catalogue} catalogue"))


EASY = Difficulty()
HARD = Difficulty(
    preset="hard", min_canvas=1920, max_canvas=2048,
    min_size=18, max_size=52, cue_max_size=24,
    min_objects=90, max_objects=115, same_kind=60, overlap=0.08, palette=5,
    marks=60, grain=3.0, cell=2, png_level=5, png_writer="sub-up",
    recolour_distance=28.0, move_reach=150, trace_opacity=0.7, trace_scale=0.6,
    distractors="pairs", parts=0.4, turns=0.75, flips=0.5, swaps=0.75, turnbacks=0.6, doubles=1.0,
    near_misses=0.75, decoys=3,
    catalogue="audited",
    camera=CameraBounds(), camera_on=True,
)
EXTREME = Difficulty(
    preset="extreme", min_canvas=3840, max_canvas=4096,
    min_size=24, max_size=72, cue_max_size=36,
    min_objects=110, max_objects=125, same_kind=160, overlap=0.12, palette=4,
    marks=120, grain=4.0, cell=2, png_level=6, png_writer="sub-up",
    recolour_distance=22.0, move_reach=160, trace_opacity=0.65, trace_scale=0.7,
    distractors="pairs", parts=0.4, turns=0.75, flips=0.5, swaps=0.75, turnbacks=0.6, doubles=1.0,
    near_misses=0.75, decoys=3,
    catalogue="audited",
    camera=CameraBounds(shift=4.0), camera_on=True,  # 4K canvases: the shift takes the same share of the frame
)
PRESETS = {d.preset: d for d in (EASY, HARD, EXTREME)}
DEFAULT = "hard"


def preset(name: str) -> Difficulty:
    try:
        return PRESETS[name]
    except KeyError:
        raise ValueError(f"unknown difficulty {name!r}; expected one of {', '.join(PRESETS)}") from None
