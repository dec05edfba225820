"""The prompt every runner sends for a MultipanelVQA row: the composite, then the question.

The paper gives no separate evaluation prompt: its questions end with what is expected
("Please answer yes/no.", "Please select one."). We add one line so replies are easy to
score by rule: the letter alone for Q3 (whose text lists the choices), a word or short
phrase for Q1 and Q2.
"""

from __future__ import annotations

from multipanelvqa.schema import QUESTION_TYPES

INSTRUCTIONS = {
    "q1": "Answer the question using a single word or phrase.",
    "q2": "Answer the question using a single word or phrase.",
    "q3": "Answer with the option's letter from the given choices directly.",
}


def prompt(row: dict) -> tuple[list, str]:
    """([image], text) for a dataset row; question_type may be its name or its ClassLabel index."""
    qtype = row["question_type"]
    qtype = QUESTION_TYPES[qtype] if isinstance(qtype, int) else qtype
    return [row["image"]], f"{row['question']}\n{INSTRUCTIONS[qtype]}"
