"""MultipanelVQA in VLMEvalKit's image-MCQ columns (`multipanelvqa export vlmevalkit`).

`category` is the question type, `l2-category` the augmentation. Q3's choices a-d fill
columns `A`-`D` and its answer is the upper-case letter, as VLMEvalKit expects; scoring maps
it back to a-d (and reads a reply's letter in either case). Q1/Q2 rows have no options and
their free-form answer. Scored by MultipanelVQA's rules, as `multipanelvqa score` without a judge.
"""

from __future__ import annotations

from dicobench.kit.eval.harnesses.vlmevalkit import Flavour
from multipanelvqa.prompting import prompt
from multipanelvqa.schema import CHOICE_LETTERS, CONFIG_COLUMN
from multipanelvqa.scoring import score

MCQ = "ABCD"


def _row(row: dict) -> dict:
    q3 = row["question_type"] == "q3"
    choices = list(row["choices"] or []) if q3 else []
    return {"question": row["question"], **{x: (choices[i] if i < len(choices) else "") for i, x in enumerate(MCQ)},
            "E": "", "answer": row["answer"].upper() if q3 else row["answer"],
            "category": row["question_type"], "l2-category": row["augmentation"]}


def _answer(line: dict) -> str:
    """The reference as MultipanelVQA writes it: Q3's letter back in a-d."""
    answer = str(line["answer"])
    return answer.lower() if line["category"] == "q3" and answer.lower() in CHOICE_LETTERS else answer


def _from_line(line: dict) -> dict:
    return {"image": None, "question": line["question"], "question_type": line["category"]}


def _score(lines: list[dict]) -> dict:
    return score([line["prediction"] for line in lines], [_answer(line) for line in lines],
                 [line["question"] for line in lines], [line["category"] for line in lines],
                 choices=[[line[x] for x in MCQ if line.get(x)] for line in lines],
                 augmentations=[line["l2-category"] for line in lines])


VLMEVALKIT = Flavour(name="MultipanelVQA", images=("image",), row=_row, prompt=prompt, from_line=_from_line,
                     score=_score, config_column=CONFIG_COLUMN)
