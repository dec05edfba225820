"""The tasks of DiCoBench, each declared once: its track, its proposers and its model edits.

A task is one module of proposers plus one `Task` entry in `TASK_REGISTRY` (`register_task` adds
one from outside the package). A proposer turns a
row's seed into a `dicobench.rows.Proposal`; a task has one per source kind it can be built
from (`procedural`: the scene engine, `photos`: a photo source). Proposers are named as
"module:function" and imported on first use, so that reading the vocabulary (schema, scoring)
never imports the scene engine, OpenCV or a model.

THE ORDER OF `TASK_REGISTRY` IS FROZEN: a task's position seeds every one of its rows
(`dicobench.generate.sample_seed`, `letter_schedule`) and is its `task` ClassLabel value.
New tasks go at the end (tests/dicobench/test_registry.py checks the order); `register_task`
only ever appends.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from dicobench.kit.registry import Ref, Registry


@dataclass(frozen=True)
class Track:
    name: str
    question: str
    none_option: str  # option E: the pair changes or shares nothing


DIFFERENCE = Track("difference", "What is the difference between the two images?",
                   "There is no visible difference between the two images")
COMMONALITY = Track("commonality", "What do the two images have in common?",
                    "There is no visible commonality between the two images")
TRACKS = (DIFFERENCE, COMMONALITY)  # frozen as well: the `track` ClassLabel


@dataclass(frozen=True)
class ModelEdit:
    """How an editor build (`--editor`) edits this task's photos: `plan` (a `Ref` to
    `(rng, subject, colour) -> dicobench.editors.photo.instructed.Plan`) writes a template instruction
    whose claim can be checked on the pixels, `llm_kind` is what an instruction-writing LLM is
    asked to do, `cue_in_a` whether the edited object is also boxed in image a (a trace that
    appears has nothing to box there)."""

    plan: Ref
    llm_kind: str
    cue_in_a: bool = True


@dataclass(frozen=True, eq=False)  # one object per task: compared and hashed by identity
class Task:
    name: str
    label: str  # the short column head of the leaderboard's Table 1, e.g. "Attr."
    track: Track
    proposers: dict[str, Ref]  # source kind -> its `(task, seed, opts, inputs) -> Proposal`
    model_edit: ModelEdit | None = None  # None: editor builds keep the classical edit (a mask cannot move things)

    @property
    def question(self) -> str:
        return self.track.question

    @property
    def none_option(self) -> str:
        return self.track.none_option

    def proposer(self, kind: str) -> Callable:
        """The task's proposer for source kind `kind` (imported on first use)."""
        return self.proposers[kind].load()


TASK_REGISTRY: Registry[Task] = Registry("task", [(t.name, t) for t in (
    Task("attribute", "Attr.", DIFFERENCE,
         {"procedural": Ref("dicobench.tasks.attribute:proposal"),
          "photos": Ref("dicobench.sources.photo_difference:recolour_proposal")},
         ModelEdit(Ref("dicobench.editors.photo.instructed:recolour_plan"),
                   "change an attribute of the object (its colour, material or pattern), keeping what it is")),
    Task("entity", "Ent.", DIFFERENCE,
         {"procedural": Ref("dicobench.tasks.entity:proposal"),
          "photos": Ref("dicobench.sources.photo_difference:removal_proposal")},
         ModelEdit(Ref("dicobench.editors.photo.instructed:removal_plan"),
                   "replace the object by a different small object, or remove it")),
    Task("spatial_relation", "Spa.", DIFFERENCE,
         {"procedural": Ref("dicobench.tasks.spatial_relation:proposal"),
          "photos": Ref("dicobench.sources.photo_difference:move_proposal")}),
    Task("difference_reasoning", "Rea.", DIFFERENCE,
         {"procedural": Ref("dicobench.tasks.difference_reasoning:proposal"),
          "photos": Ref("dicobench.sources.photo_difference:trace_proposal")},
         ModelEdit(Ref("dicobench.editors.photo.instructed:trace_plan"),
                   "add a small visual trace that implies a physical event (a crack, a footprint, a stain)",
                   cue_in_a=False)),
    Task("instance", "Ins.", COMMONALITY,
         {"procedural": Ref("dicobench.tasks.instance:proposal"),
          "photos": Ref("dicobench.sources.photo_commonality:instance_proposal")}),
    Task("category", "Cat.", COMMONALITY,
         {"procedural": Ref("dicobench.tasks.category:proposal"),
          "photos": Ref("dicobench.sources.photo_commonality:category_proposal")}),
    Task("spatial_grounding", "Spa.", COMMONALITY, {"procedural": Ref("dicobench.tasks.spatial_grounding:proposal")}),
    Task("commonality_reasoning", "Rea.", COMMONALITY,
         {"procedural": Ref("dicobench.tasks.commonality_reasoning:proposal")}),
)])


def register_task(task: Task) -> Task:
    """Add `task` after every other (its position seeds its rows and is its ClassLabel value).
    Its proposers are imported on first use; worker processes see it when the module that
    registers it is imported there too (a spawn pool re-imports only what the job names)."""
    if task.track not in TRACKS:
        raise ValueError(f"task {task.name!r}: its track must be one of the registry's TRACKS")
    return TASK_REGISTRY.register(task.name, task)


def get_task(name: str) -> Task:
    return TASK_REGISTRY.get(name)


def task_label(name: str) -> str:
    """The task's short label (the leaderboard's column head)."""
    return get_task(name).label


def tasks_from(kind: str) -> tuple[str, ...]:
    """The tasks a source kind can give, in registry order."""
    return tuple(t.name for t in TASK_REGISTRY if kind in t.proposers)
