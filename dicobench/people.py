"""DiCoBench as the review and study pages see it (`dicobench.kit.people.webapp`): the views of a
row and the review criteria, which the card's review section also counts (the definition,
`dicobench.benchmark`, hands them to the pages)."""

from __future__ import annotations

from dicobench.schema import LETTERS

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
    return {"question": row["question"],
            "options": [{"letter": l, "text": t} for l, t in zip(LETTERS, row["options"])]}
