"""How hard a MultipanelVQA build's panels are: dials over panel content, questions and position
words, and named presets.

The paper's models fail where a subfigure is hard to read (GPT-4o 75.5% on its synthetic
subset, 49.0% on Q3) while people, who look closely, get 96%. Icon panels with a handful
of large objects make every subfigure easy, and near duplicates that differ only in the
answer's object give the target away; these dials keep the paper's layouts, counts, question
styles and augmentations and change what is in the panels, which second question
procedural_scene asks, Q1's forms, the object catalogue and how the target is named. `easy` is the first release's
panels (the same bytes for the same seed).
"""

from __future__ import annotations

from dataclasses import dataclass

from dicobench.kit.scene.catalogue import VERSIONS
from dicobench.kit.scene.difficulty import Dials, dial

POSITION_WORDS = ("short", "layout")
SCENE_QUESTIONS = ("presence", "count")
Q1_FORMS = ("any_all", "any", "one_breaker")
NEIGHBOURS = ("apart", "twins")
Q3_CHOICES = ("any", "neighbours")
TARGET_ANSWERS = ("unique", "shared")
TARGET_PLACES = ("first", "any")
ASKED = ("mixed", "scene")
COUNT_LAYOUTS = ("apart", "clustered")
COUNTS = ("spread", "run")


@dataclass(frozen=True)
class PanelDifficulty(Dials):
    """Every dial of a procedural panel set (frozen: part of the build options)."""

    preset: str = "easy"  # the preset these values came from, or "custom" once a field is set apart
    min_objects: int = dial("clutter", "fewest objects in a panel's scene", 3)
    max_objects: int = dial("clutter", "most objects in a panel's scene", 5)
    min_size: int = dial("object scale", "smallest glyph em size in a panel's scene (520-600 px, drawn at 180-440 px)",
                         80)
    max_size: int = dial("object scale", "largest glyph em size in a panel's scene, px", 120)
    detail_size: int = dial("detail scale", "em size of the object whose colour, count or presence is the answer, in "
                                            "scene px (0: drawn like the others)", 0)
    near_duplicates: int = dial("near duplicates", "procedural_scene: other panels that repeat the target's scene "
                                                   "(procedural_edit panels all do)", 0)
    other_details: int = dial("near duplicates", "other objects each panel of a near-duplicate group changes from the "
                                                 "scene they share (recoloured, moved, removed or one added), the "
                                                 "target's included, so the target is not the odd one out (0: only "
                                                 "the answer's object differs)", 0)
    scene_question: str = dial("question", "procedural_scene's second question: presence ('Is there a ...?': the "
                                           "object in the target alone) or count ('How many ...?': the object in "
                                           "several panels, in other counts)", "presence")
    q1_forms: str = dial("question", "Q1's forms: any_all (the paper's 'any' and 'all'; 'all' is always no, as the "
                                     "target's answer is unique), any ('any' with the target's answer or one no panel "
                                     "has: the text alone tells nothing) or one_breaker (half of each answer 'all', "
                                     "whether every panel's answer is other than one the target alone has, no, or "
                                     "than one no panel has, yes: the target breaks the rule, alone or, at target "
                                     "answer shared, with one far panel, and it differs from its neighbour twins by "
                                     "the asked attribute alone)", "any_all")
    max_count: int = dial("clutter", "count questions: most Xs a panel holds (counts 0 to this; the target's, two "
                                     "others and the absent one drawn alike)", 3, later=True)
    neighbours: str = dial("position", "what the target's layout neighbours (same row, column or diagonal, next to "
                                       "it) show: apart (the set's panels as drawn) or twins (the target's panel with "
                                       "only the asked attribute changed, each to that panel's answer: the wrong "
                                       "neighbour's answer is wrong)", "apart", later=True)
    q3_choices: str = dial("position", "Q3's wrong choices: any (positions of other panels at random) or neighbours "
                                       "(the positions of the panels nearest the target)", "any", later=True)
    target_answer: str = dial("position", "whose answers the target's is among: unique (the paper: the target is the "
                                          "one panel whose answer no other panel has) or shared (a departure from the "
                                          "paper: the target's answer also shows in the panel farthest from it that "
                                          "is no neighbour and no Q3 choice, and each neighbour's answer also shows "
                                          "elsewhere where the layout has room (where it lacks room, the target is "
                                          "one of the panels whose answer is unique at the rate any panel is), so no "
                                          "panel is told by its answer alone and only the position finds the target; "
                                          "needs twins)", "unique", later=True)
    target_place: str = dial("position", "which of the layout's boxes the target takes: first (the paper's first "
                                         "release: the first box the layout generator placed, mostly at a top or left "
                                         "corner, so its position words are short and Q3's shortest choice is right "
                                         "above chance) or any (a box drawn per image, each alike, on its own stream "
                                         "of the image's seed); the rows list the target's subfigure first either way",
                             "first", later=True)
    asked: str = dial("question", "what the procedural sets' common question asks: mixed (procedural_edit the X's "
                                  "colour; procedural_scene its colour in half its sets, the scene question in the "
                                  "rest) or scene (every set of both sources asks the scene question: how many Xs a "
                                  "panel holds, or whether it holds one)", "mixed", later=True)
    count_layout: str = dial("clutter", "where a count panel's X slots stand: apart (each at a spot of its own, "
                                        "COUNT_GAP apart) or clustered (touching one another in one group, the "
                                        "slots a count leaves empty taken by objects of other names, each object "
                                        "showing most of itself: counted object by object, as a person with zoom "
                                        "does)", "apart", later=True)
    counts: str = dial("clutter", "a count set's answers: spread (any of 0 to max count) or run (consecutive counts, "
                                  "round 0 to max count as a circle, so each is as likely: a count off by one is "
                                  "another panel's answer, or no panel's)", "spread", later=True)
    catalogue: str = dial("names and looks", "objects and looks the procedural panels draw from: first-release, or "
                                             "audited (no name containing another, no glyphs alike at their size, "
                                             "patterns only where a person sees them; dicobench.kit.scene.catalogue)",
                          "first-release")
    position_words: str = dial("position words", "short: the shortest unique wording; layout: words as a person reads "
                                                 "the layout (a two-word position only where row and column readings "
                                                 "agree), the row/column wording that takes the layout to follow",
                               "short")

    def __post_init__(self) -> None:
        problems = []
        if not 1 <= self.min_objects <= self.max_objects <= 40:
            problems.append(f"objects per panel must satisfy 1 <= min <= max <= 40 "
                            f"(got {self.min_objects}, {self.max_objects})")
        if not 16 <= self.min_size <= self.max_size <= 160:
            problems.append(f"object sizes must satisfy 16 <= min <= max <= 160 "
                            f"(got {self.min_size}, {self.max_size})")
        if self.detail_size and not 24 <= self.detail_size <= 160:
            problems.append(f"detail size must be 0 or 24-160 px (smaller is unreadable in a 180 px panel), "
                            f"got {self.detail_size}")
        if not 0 <= self.near_duplicates <= 7:
            problems.append(f"near duplicates must be within 0-7, got {self.near_duplicates}")
        if not 1 <= self.max_count <= 8:
            problems.append(f"max count must be within 1-8, got {self.max_count}")
        if not 0 <= self.other_details <= 6:
            problems.append(f"other details must be within 0-6, got {self.other_details}")
        for name, allowed in (("position_words", POSITION_WORDS), ("scene_question", SCENE_QUESTIONS),
                              ("q1_forms", Q1_FORMS), ("catalogue", VERSIONS), ("neighbours", NEIGHBOURS),
                              ("q3_choices", Q3_CHOICES), ("target_answer", TARGET_ANSWERS),
                              ("target_place", TARGET_PLACES), ("asked", ASKED),
                              ("count_layout", COUNT_LAYOUTS), ("counts", COUNTS)):
            if getattr(self, name) not in allowed:
                problems.append(f"{name.replace('_', ' ')} must be one of {', '.join(allowed)}, "
                                f"got {getattr(self, name)!r}")
        if self.target_answer == "shared" and self.neighbours != "twins":
            problems.append("target answer shared needs neighbours twins")
        if self.counts == "run" and self.max_count < 4:
            problems.append(f"counts run needs a max count of 4 or more (five counts), got {self.max_count}")
        if problems:
            raise ValueError("; ".join(problems))

    def describe(self) -> str:
        """One line for the card."""
        return (f"{self.preset}: {self.min_objects}-{self.max_objects} objects of {self.min_size}-{self.max_size} px "
                f"per panel scene, detail {self.detail_size or 'as drawn'}"
                + (" px" if self.detail_size else "")
                + f", {self.near_duplicates} near-duplicate panels (procedural_scene)"
                + (f" differing in {self.other_details} more details each" if self.other_details else "")
                + (f", {self.scene_question} questions (procedural_scene)" if self.asked == "mixed"
                   else f", {self.scene_question} questions (both sources)")
                + (f" of 0-{self.max_count}" if self.scene_question == "count" and self.max_count != 3 else "")
                + (" in a run" if self.counts == "run" and self.scene_question == "count" else "")
                + (", the counted objects clustered"
                   if self.count_layout == "clustered" and self.scene_question == "count" else "")
                + f", Q1 {self.q1_forms.replace('_', '/') if self.q1_forms != 'one_breaker' else 'any/all with one breaker'}"  # noqa: E501
                + (", neighbour twins" if self.neighbours == "twins" else "")
                + (", Q3 choices of neighbours" if self.q3_choices == "neighbours" else "")
                + (", the target's answer shared with a far panel" if self.target_answer == "shared" else "")
                + (", the target at any panel" if self.target_place == "any" else "")
                + f", {self.position_words} position words, {self.catalogue} catalogue")

    @property
    def varied(self) -> bool:
        """Whether procedural sets come from `sources.varied` (the object in several panels,
        near duplicates differing in several details) rather than the first release's builders."""
        return (self.other_details > 0 or self.scene_question != "presence" or self.catalogue != "first-release"
                or self.neighbours != "apart" or self.max_count != 3 or self.target_answer != "unique"
                or self.asked != "mixed" or self.count_layout != "apart" or self.counts != "spread")


EASY = PanelDifficulty()
HARD = PanelDifficulty(preset="hard", min_objects=10, max_objects=14, min_size=44, max_size=72, detail_size=52,
                       near_duplicates=4, other_details=3, scene_question="count", q1_forms="one_breaker",
                       catalogue="audited", position_words="layout", max_count=8, neighbours="twins",
                       q3_choices="neighbours", target_answer="shared", target_place="any", asked="scene",
                       count_layout="clustered", counts="run")
EXTREME = PanelDifficulty(preset="extreme", min_objects=16, max_objects=22, min_size=36, max_size=60, detail_size=40,
                          near_duplicates=7, other_details=4, scene_question="count", q1_forms="one_breaker",
                          catalogue="audited", position_words="layout", max_count=8, neighbours="twins",
                          q3_choices="neighbours", target_answer="shared", target_place="any", asked="scene",
                          count_layout="clustered", counts="run")
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
