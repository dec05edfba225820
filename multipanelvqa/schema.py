"""MultipanelVQA's fixed vocabulary and `datasets` features (docs/ARCHITECTURE.md, "Schemas")."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import datasets  # type hints only: `datasets` (and pandas) load when first used

from multipanelvqa.augmentations import AUGMENTATION_REGISTRY, ORIGINAL

# live views of the declared configs (multipanelvqa.augmentations), so registered ones are in them
AUGMENTATIONS = AUGMENTATION_REGISTRY.names(lambda a: a is not ORIGINAL)
SYNTHETIC_CONFIGS = AUGMENTATION_REGISTRY.names()
CONFIGS = AUGMENTATION_REGISTRY.names(after=("real_world", "all"))
DEFAULT_CONFIG = "all"
CONFIG_COLUMN = "augmentation"  # the column naming each row's config: a config is an augmentation (or real_world)
QUESTION_TYPES = ("q1", "q2", "q3")
LAYOUT_STYLES = ("splash", "grid_same", "grid_mixed")
SUBSETS = ("synthetic", "real_world")
SOURCES = ("procedural_edit", "procedural_scene", "magicbrush", "vqav2", "imported")
CHOICE_LETTERS = ("a", "b", "c", "d")
CANVAS = 1000
MANIFEST_DIR = ".multipanelvqa"  # a build's manifests, inside it


def features() -> datasets.Features:
    import datasets  # deferred: `multipanelvqa --help` should not load datasets and pandas

    return datasets.Features(
        {
            "id": datasets.Value("string"),
            "image": datasets.Image(),
            "question_type": datasets.ClassLabel(names=list(QUESTION_TYPES)),
            "question": datasets.Value("string"),
            "answer": datasets.Value("string"),
            "choices": datasets.List(datasets.Value("string")),
            "subset": datasets.ClassLabel(names=list(SUBSETS)),
            "source": datasets.Value("string"),
            "augmentation": datasets.Value("string"),
            "layout_id": datasets.Value("int32"),
            "layout_style": datasets.ClassLabel(names=list(LAYOUT_STYLES)),
            "num_subfigures": datasets.Value("int8"),
            "subfigures": datasets.List(
                {
                    "bbox": datasets.List(datasets.Value("int32"), length=4),
                    "position": datasets.Value("string"),
                    "source_id": datasets.Value("string"),
                }
            ),
            "target_index": datasets.Value("int8"),
            "seed": datasets.Value("int64"),
        }
    )
