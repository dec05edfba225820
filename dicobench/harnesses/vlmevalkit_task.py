"""DiCoBench in VLMEvalKit's image-MCQ columns (`dicobench export vlmevalkit`): `category` is the
task, `l2-category` the track, `A`-`E` the options; scored as `dicobench score` scores."""

from __future__ import annotations

from dicobench.kit.eval.harnesses.vlmevalkit import LETTERS, Flavour
from dicobench.prompting import prompt
from dicobench.schema import CONFIG_COLUMN
from dicobench.scoring import score


def _row(row: dict) -> dict:
    return {"question": row["question"], **dict(zip(LETTERS, row["options"])), "answer": row["answer"],
            "category": row["task"], "l2-category": row["track"]}


def _from_line(line: dict) -> dict:
    return {"image_a": None, "image_b": None, "question": line["question"], "options": [line[x] for x in LETTERS]}


def _score(lines: list[dict]) -> dict:
    return score([line["prediction"] for line in lines], [line["answer"] for line in lines],
                 [line["category"] for line in lines], [[line[x] for x in LETTERS] for line in lines])


VLMEVALKIT = Flavour(name="DiCoBench", images=("image_a", "image_b"), row=_row, prompt=prompt, from_line=_from_line,
                     score=_score, config_column=CONFIG_COLUMN)
