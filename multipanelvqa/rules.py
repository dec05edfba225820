"""MultipanelVQA's answer rules and the paper's judge prompts (Appendix D, Table 6): what decides
one answer. Only the standard library and `dicobench.kit.eval.extract` are imported, so
`multipanelvqa export lmms-eval` can write this module into a task folder as it is.
"""

from __future__ import annotations

import re
from typing import Sequence

from dicobench.kit.eval.extract import extract_choice  # export: inline

CHOICE_LETTERS = "abcd"

# Appendix D, Table 6 (a): Q1 and Q2 answers.
PROMPT_ANSWER = (
    "For question: {question}\n"
    "Compare the following answers:\n"
    "Text 1: {output}\n"
    "Text 2: {gt}\n"
    "Does the first one contain all key information in the second one? (yes/no)\n"
    "Answer:"
)
# Appendix D, Table 6 (b): Q3 multiple choice.
PROMPT_CHOICE = (
    "For question: {question}\n"
    "Ground truth: {gt}\n"
    "Model predicted answer: {output}\n"
    "Based on the question and the ground truth answer, is the model's predicted answer correct? "
    "If multi-choice is provided, think about which choice is selected by the model, is it correct? "
    "(please answer yes/no)"
)

_NUMBERS = {
    w: str(i)
    for i, w in enumerate(
        "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen "
        "sixteen seventeen eighteen nineteen twenty".split()
    )
}
_PUNCT = re.compile(r"[^\w\s.]|(?<!\d)\.|\.(?!\d)")
_ARTICLES = {"a", "an", "the"}


def normalise(text: str) -> str:
    """Lower case, no punctuation or articles, number words as digits."""
    words = _PUNCT.sub(" ", text.lower()).split()
    return " ".join(_NUMBERS.get(w, w) for w in words if w not in _ARTICLES)


def rule_verdict(prediction: str | None, reference: str, question_type: str,
                 choices: Sequence[str] = ()) -> bool | None:
    """True or False when the rules can tell; None when only a judge could."""
    if not prediction or not prediction.strip():
        return False
    if question_type == "q3":
        letter = reference.strip().strip("()[]. ").lower()
        if len(letter) == 1 and letter in CHOICE_LETTERS:
            read = extract_choice(prediction, list(choices) or None, letters=CHOICE_LETTERS)
            return None if read is None else read == letter
    pred, ref = normalise(prediction), normalise(reference)
    if pred and pred == ref:
        return True
    if ref in ("yes", "no"):
        said = _yes_no(pred)
        return None if said is None else said == ref
    if ref.replace(".", "", 1).isdigit():
        numbers = {w for w in pred.split() if w.replace(".", "", 1).isdigit()}
        return None if len(numbers) != 1 else numbers.pop() == ref
    return None


def _yes_no(normalised: str) -> str | None:
    words = normalised.split()
    if words and words[0] in ("yes", "no"):
        return words[0]
    said = {w for w in words if w in ("yes", "no")}
    return said.pop() if len(said) == 1 else None


def judge_prompt(question: str, prediction: str, reference: str, question_type: str,
                 choices: Sequence[str] = ()) -> str:
    if question_type != "q3":
        return PROMPT_ANSWER.format(question=question, output=prediction, gt=reference)
    if choices and not all(c in question for c in choices):
        question += "\n" + "\n".join(f"{letter}. {c}" for letter, c in zip(CHOICE_LETTERS, choices))
    return PROMPT_CHOICE.format(question=question, output=prediction, gt=reference)


def judge_verdict(reply: str | None) -> bool | None:
    """The judge's yes/no; None when it said neither (or both)."""
    said = _yes_no(normalise(reply)) if reply else None
    return None if said is None else said == "yes"
