"""MultipanelVQA as the review and study pages see it (`dicobench.kit.people.webapp`)."""

from __future__ import annotations

from dicobench.kit.people.webapp.spec import BenchmarkSpec
from multipanelvqa.card import MANIFEST_DIR
from multipanelvqa.schema import CHOICE_LETTERS, CONFIGS, features

# What the paper's people checked of every question (MultipanelVQA, 3.2 and A.3).
CRITERIA = (
    ("answer", "Answer correctness: the answer is right for the image"),
    ("position", "Unambiguous position: the description names exactly one subfigure"),
    ("quality", "Image quality: every panel legible, no rendering faults"),
)


def _choices(row: dict) -> list[dict]:
    return [{"letter": l, "text": t} for l, t in zip(CHOICE_LETTERS, row["choices"])]


def review_view(row: dict) -> dict:
    boxes = [{"image": 0, "bbox": s["bbox"],
              "label": f"{k + 1}. {s['position']}" + (" (target)" if k == row["target_index"] else "")}
             for k, s in enumerate(row["subfigures"])]
    return {
        "id": row["id"],
        "seed": row["seed"],
        "group": row["augmentation"],
        "question": row["question"],
        "options": _choices(row),
        "answer": row["answer"],
        "boxes": boxes,
        "meta": {"question_type": row["question_type"], "config": row["augmentation"], "source": row["source"],
                 "layout": f"{row['layout_id']} ({row['layout_style']}, {row['num_subfigures']} subfigures)",
                 "subset": row["subset"], "seed": str(row["seed"])},
    }


def study_view(row: dict) -> dict:
    """The question, and Q3's choices: free text for Q1 and Q2; no subfigures, source or answer."""
    return {"question": row["question"], "options": _choices(row)}


SPEC = BenchmarkSpec(
    name="multipanelvqa",
    manifest_dir=MANIFEST_DIR,
    configs=tuple(c for c in CONFIGS if c != "all"),
    image_columns=("image",),
    image_labels=("Multipanel image",),
    group_column="augmentation",
    criteria=CRITERIA,
    review_view=review_view,
    study_view=study_view,
    columns=tuple(features()),
    study_group="question_type",
)
