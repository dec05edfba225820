"""MultipanelVQA as the review and study pages see it (`dicobench.kit.people.webapp`): the views of
a row and the review criteria, which the card's review section also counts (the definition,
`multipanelvqa.benchmark`, hands them to the pages)."""

from __future__ import annotations

from multipanelvqa.schema import CHOICE_LETTERS

# What the paper's people checked of every question (MultipanelVQA, 3.2 and A.3).
CRITERIA = (
    ("answer", "Answer correctness: the answer is right for the image"),
    ("position", "Unambiguous position: the description names exactly one subfigure"),
    ("quality", "Image quality: every panel legible, no rendering faults"),
)


def _choices(row: dict) -> list[dict]:
    return [{"letter": l, "text": t} for l, t in zip(CHOICE_LETTERS, row["choices"])]


def review_view(row: dict) -> dict:
    boxes = [{"image": 0, "bbox": s["bbox"], "target": k == row["target_index"],  # the page's 100% centres the target
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
