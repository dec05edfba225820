"""DiCoBench's fixed vocabulary and `datasets` features (docs/ARCHITECTURE.md, "Schemas").

The tracks and tasks come from `dicobench.tasks.registry`, in its frozen order: a task's position
is its `task` ClassLabel value and seeds its rows. The task names are live views of the registry,
so a task registered later (`dicobench.tasks.registry.register_task`) is in them."""

from __future__ import annotations

from typing import TYPE_CHECKING

from dicobench.tasks.registry import TASK_REGISTRY, get_task
from dicobench.tasks.registry import TRACKS as _TRACKS

if TYPE_CHECKING:
    import datasets  # type hints only: `datasets` (and pandas) load when first used

TRACKS = tuple(t.name for t in _TRACKS)
DIFFERENCE_TASKS = TASK_REGISTRY.names(lambda t: t.track.name == "difference")
COMMONALITY_TASKS = TASK_REGISTRY.names(lambda t: t.track.name == "commonality")
TASKS = TASK_REGISTRY.names()
CONFIGS = TASK_REGISTRY.names(after=("all",))
CONFIG_COLUMN = "task"  # the column naming each row's config: a config is a task
LETTERS = ("A", "B", "C", "D", "E")
MANIFEST_DIR = ".dicobench"  # a build's manifests, inside it
SOURCE_SEPARATOR = "|"  # a `source` naming several photos (photo commonality rows) joins their ids

QUESTIONS = {t.name: t.question for t in _TRACKS}
NONE_OPTIONS = {t.name: t.none_option for t in _TRACKS}

PROMPT_TEMPLATE = (
    "{question}\nOptions:\nA. {o0}\nB. {o1}\nC. {o2}\nD. {o3}\nE. {o4}\n"
    "Answer with the option's letter from the given choices directly."
)


def track_of(task: str) -> str:
    return get_task(task).track.name


def features() -> datasets.Features:
    import datasets  # deferred: `import dicobench` should not load datasets and pandas

    return datasets.Features(
        {
            "id": datasets.Value("string"),
            "track": datasets.ClassLabel(names=list(TRACKS)),
            "task": datasets.ClassLabel(names=list(TASKS)),
            "image_a": datasets.Image(),
            "image_b": datasets.Image(),
            "question": datasets.Value("string"),
            "options": datasets.List(datasets.Value("string"), length=5),
            "answer": datasets.ClassLabel(names=list(LETTERS)),
            "cues": datasets.List(
                {
                    "image": datasets.Value("int8"),
                    "bbox": datasets.List(datasets.Value("int32"), length=4),
                    "label": datasets.Value("string"),
                }
            ),
            "changed_area": datasets.Value("float32"),
            "source": datasets.Value("string"),
            "seed": datasets.Value("int64"),
            "generator": datasets.Value("string"),
        }
    )


def prompt_text(question: str, options) -> str:
    return PROMPT_TEMPLATE.format(question=question, **{f"o{i}": o for i, o in enumerate(options)})
