"""DiCoBench as the review and study pages see it (`dicobench.kit.people.webapp`)."""

from __future__ import annotations

from dicobench.kit.people.webapp.spec import BenchmarkSpec
from dicobench.card import MANIFEST_DIR
from dicobench.schema import LETTERS, TASKS, features

# The paper's four review criteria (DiCoBench, 3.2.3).
CRITERIA = (
    ("fidelity", "Textual fidelity: the edit is what the options say"),
    ("naturalness", "Visual naturalness: no blur, artefacts or boundary damage"),
    ("distinguishability", "Mutual distinguishability: options A-D are distinct"),
    ("scale", "Scale: the changed region stays under 5% of the image"),
)


def review_view(row: dict) -> dict:
    return {
        "id": row["id"],
        "seed": row["seed"],
        "group": row["task"],
        "question": row["question"],
        "options": [{"letter": l, "text": t} for l, t in zip(LETTERS, row["options"])],
        "answer": row["answer"],
        "boxes": [{"image": c["image"], "bbox": c["bbox"], "label": c["label"]} for c in row["cues"]],
        "meta": {"task": row["task"], "track": row["track"], "source": row["source"],
                 "changed_area": f"{100 * row['changed_area']:.3f}%", "seed": str(row["seed"]),
                 "generator": row["generator"]},
    }


def study_view(row: dict) -> dict:
    """The question and its options only: no id, task, cue, source or answer."""
    return {"question": row["question"], "options": [{"letter": l, "text": t} for l, t in zip(LETTERS, row["options"])]}


SPEC = BenchmarkSpec(
    name="dicobench",
    manifest_dir=MANIFEST_DIR,
    configs=TASKS,
    image_columns=("image_a", "image_b"),
    image_labels=("Image 1", "Image 2"),
    group_column="task",
    criteria=CRITERIA,
    review_view=review_view,
    study_view=study_view,
    columns=tuple(features()),
    study_group="task",
)
