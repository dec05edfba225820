"""The three MultipanelVQA questions of an image, from its common question and answers.

Templates by default (offline, exact, balanced by the caller's schedule); optionally
the paper's GPT-4 prompt (Table 7) through an injected `chat(messages) -> str`.

The target is the one panel whose answer to the common question is unique, so:
Q1 "any subfigure ... is <target answer>?" is yes, "all subfigures ...?" is no, and
"any ... is <an answer no panel has>?" is no. Q2 asks the common question about the
target, named by its position (or its caption number). Q3 asks which subfigure gives
the target's answer, with four choices a-d: the target's position and three other
positions of the same image; images with fewer than four panels fill the rest with
"none of the subfigures" / "all of the subfigures", which are false by construction.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from itertools import combinations, permutations
from typing import Callable, Sequence

import numpy as np

from multipanelvqa.schema import CHOICE_LETTERS

FILLERS = ("none of the subfigures", "all of the subfigures")
YES, NO = "yes", "no"


@dataclass(frozen=True)
class Question:
    question_type: str  # q1, q2 or q3
    question: str  # for q3 it lists the lettered choices, as in the paper
    answer: str
    choices: tuple[str, ...] = ()


def balanced_schedule(n: int, values: Sequence, rng: np.random.Generator) -> list:
    """n items cycling through shuffled rounds of values: counts differ by at most one in every prefix round."""
    out: list = []
    while len(out) < n:
        out.extend(values[i] for i in rng.permutation(len(values)))
    return out[:n]


def _same(a: str, b: str) -> bool:
    return a.strip().casefold() == b.strip().casefold()


def _check_target(answers: Sequence[str], target_index: int, shared: bool = False) -> str:
    """The target's answer; unique among `answers` unless `shared` (target_answer "shared": other
    panels may show it too, none of them a wrong Q3 choice)."""
    target = answers[target_index]
    if not shared and sum(_same(a, target) for a in answers) != 1:
        raise ValueError(f"the target's answer {target!r} must be unique among {list(answers)}")
    return target


def q1(
    common_question: str,
    answers: Sequence[str],
    target_index: int,
    *,
    yes: bool,
    absent_answer: str | None = None,
    other_than: bool = False,
    shared: bool = False,
) -> Question:
    """Yes/no about any or all subfigures; `yes` picks the answer, the caller balances it.

    No comes from "any ... <absent_answer>" when an answer no panel has is given, else
    from "all ... <target answer>" (false because the target's answer is unique).
    `other_than` asks the "all" form that the target breaks (with, where `shared`, the far panel
    that shows its answer too): whether every
    subfigure's answer is other than the target's (no: the target breaks it) or, for yes,
    other than `absent_answer` (no panel has it).
    """
    target = _check_target(answers, target_index, shared)
    if not any(not _same(a, target) for a in answers):
        raise ValueError(f"every panel's answer is the target's {target!r}")
    if other_than:
        value = absent_answer if yes else target
        if value is None:
            raise ValueError("a yes 'all ... other than' question needs an answer no panel has")
        if yes and any(_same(a, value) for a in answers):
            raise ValueError(f"absent answer {value!r} is the answer of a panel")
        text = (f'For all the subfigures, is the answer to the question "{common_question}" something other than '
                f'"{value}"? Please answer yes/no.')
        return Question("q1", text, YES if yes else NO)
    if yes:
        text = _q1_any(common_question, target)
    elif absent_answer is not None:
        if any(_same(a, absent_answer) for a in answers):
            raise ValueError(f"absent answer {absent_answer!r} is the answer of a panel")
        text = _q1_any(common_question, absent_answer)
    else:
        text = (f'Is "{target}" the answer to the question "{common_question}" for all the subfigures? '
                'Please answer yes/no.')
    return Question("q1", text, YES if yes else NO)


def _q1_any(common_question: str, answer: str) -> str:
    return (f'Is there any subfigure for which the answer to the question "{common_question}" is "{answer}"? '
            'Please answer yes/no.')


def q2(common_question: str, target_answer: str, *, position: str | None = None,
       caption: str | None = None) -> Question:
    """The common question about the target, named by its position or (captions_referenced) its caption."""
    if (position is None) == (caption is None):
        raise ValueError("name the target by exactly one of position or caption")
    where = f"the {position}" if position is not None else f"subfigure {caption}"
    return Question("q2", f"Look at {where}. {common_question} Please answer briefly.", target_answer)


# Q3 of the nearest panels: the wrong choices come from the target's Q3_NEAR nearest eligible
# panels. The nearest three each share a row or column word with the target but fewer with one
# another, so the target would share the most words with the other choices (42% of hard rows).
# Each image draws which of the two word-sharing reads its target wins instead: the most shared
# 1/4, the fewest Q3_FEWEST, neither the rest; the nearest 3-set (and an order of it, drawn) where
# the target wins that read is taken, else one where it wins neither, else the nearest that can.
# The fewest-shared outcome is weighted up because fewer images allow it (a short target phrase
# among longer ones): over the hard layouts each read is right about 1 in 4 (set on seed 0's
# layouts; benchmarks/README.md).
Q3_NEAR = 5
Q3_FEWEST = 0.6


def words_in(text: str) -> set[str]:
    """A text's words, lower case (what the word-sharing reads of Q3 compare)."""
    return set(re.findall(r"[a-z]+", text.casefold()))


def words_shared_with_others(choices: Sequence[str], i: int) -> int:
    """How many words choice `i` shares with each other choice, summed."""
    return sum(len(words_in(choices[i]) & words_in(c)) for j, c in enumerate(choices) if j != i)


def _shared_reads(choices: Sequence[str], t: int) -> tuple[bool, bool]:
    """Whether choice `t` is the one sharing the most, and the one sharing the fewest, words with
    the other choices (ties to the earliest letter), as `shortcuts.Q3_STRATEGIES` reads them."""
    score = [words_shared_with_others(choices, i) for i in range(len(choices))]
    most = max(range(len(score)), key=lambda i: (score[i], -i))
    fewest = max(range(len(score)), key=lambda i: (-score[i], -i))
    return most == t, fewest == t


def _near_choices(target: str, near: Sequence[str], slot: int, rng: np.random.Generator) -> list[str]:
    """Q3's four choices, the target at `slot`, three wrong ones drawn from `near` (nearest first,
    fillers when fewer than three) so that no word-sharing read finds the target above chance."""
    u = float(rng.random())
    want = (True, False) if u < 0.25 else (False, True) if u < 0.25 + Q3_FEWEST else (False, False)
    sets = list(combinations(near, 3)) if len(near) >= 3 else [tuple(near) + FILLERS[: 3 - len(near)]]
    found: dict[tuple[bool, bool], list[list[str]]] = {}  # per outcome: the orders of its nearest set
    for three in sets:
        for perm in permutations(three):
            choices = list(perm)
            choices.insert(slot, target)
            options = found.setdefault(_shared_reads(choices, slot), [])
            if not options or set(options[0]) == set(choices):
                options.append(choices)
    options = found[next(o for o in (want, (False, False), *found) if o in found)]
    return options[int(rng.integers(len(options)))]


def q3(
    common_question: str,
    target_answer: str,
    positions: Sequence[str],
    target_index: int,
    *,
    letter: str,
    rng: np.random.Generator,
    order: Sequence[int] | None = None,
    exclude: Sequence[int] = (),
) -> Question:
    """Which subfigure gives the target's answer; the target's position sits at `letter`.
    The wrong choices are three other positions at random, or, given `order` (the other panels'
    indices, nearest the target first), three of the first Q3_NEAR: the target's neighbours, drawn
    so that no word-sharing read finds the target (`_near_choices`). Panels in `exclude` (those
    that show the target's answer too) are never a wrong choice."""
    if letter not in CHOICE_LETTERS:
        raise ValueError(f"letter must be one of {CHOICE_LETTERS}")
    if len(set(positions)) != len(positions):
        raise ValueError("positions must be unique within the image")
    if order is not None:
        if sorted(order) != [i for i in range(len(positions)) if i != target_index]:
            raise ValueError("order must list every other panel once")
        near = [positions[i] for i in order if i not in exclude][:Q3_NEAR]
        choices = _near_choices(positions[target_index], near, CHOICE_LETTERS.index(letter), rng)
    else:
        others = [p for i, p in enumerate(positions) if i != target_index and i not in exclude]
        picked = [others[i] for i in rng.permutation(len(others))[:3]]
        distractors = picked + list(FILLERS[: 3 - len(picked)])
        distractors = [distractors[i] for i in rng.permutation(3)]
        choices = list(distractors)
        choices.insert(CHOICE_LETTERS.index(letter), positions[target_index])
    lines = "\n".join(f"{l}. {c}" for l, c in zip(CHOICE_LETTERS, choices))
    text = (
        f'Which subfigure has "{target_answer}" as the answer to the question "{common_question}"?\n'
        f"{lines}\nPlease select one."
    )
    return Question("q3", text, letter, tuple(choices))


def questions(
    common_question: str,
    answers: Sequence[str],
    target_index: int,
    positions: Sequence[str],
    *,
    q1_yes: bool,
    q3_letter: str,
    rng: np.random.Generator,
    caption: str | None = None,
    absent_answer: str | None = None,
    q1_other_than: bool = False,
    q3_order: Sequence[int] | None = None,
    shared: bool = False,
) -> tuple[Question, Question, Question]:
    """Q1, Q2, Q3 of one image; pass `caption` for captions_referenced (Q2 names the target's number),
    `q1_other_than` for Q1's "all ... other than" form, `q3_order` for Q3's choices of the nearest panels,
    `shared` where other panels show the target's answer too (target_answer "shared"; Q3 offers none of them)."""
    target = _check_target(answers, target_index, shared)
    same = [i for i, a in enumerate(answers) if i != target_index and _same(a, target)]
    position = None if caption is not None else positions[target_index]
    return (
        q1(common_question, answers, target_index, yes=q1_yes, absent_answer=absent_answer, other_than=q1_other_than,
           shared=shared),
        q2(common_question, target, position=position, caption=caption),
        q3(common_question, target, positions, target_index, letter=q3_letter, rng=rng, order=q3_order, exclude=same),
    )


# The paper's Table 7 prompt, verbatim except the last format line: JSON instead of
# "Q1: A1: Q2: A2: Q3: A3:" so the reply can be checked field by field.
QUESTION_PROMPT = (
    "You are asking questions about an multi-panel image composition with multiple subfigures. "
    "You will be given a description of the overall layouts of the subfigures, a common question "
    "and answers to this question for each subfigure.\n"
    "First ask three questions (Q1, Q2, Q3) and then generate ground truth answers (A1, A2, A3) to each question.\n"
    "The second question (Q2) should be the same as the common question provided but specifically targeting "
    "at one subfigure. Make sure to include specific position of the subfigure targeted.\n"
    "The first question (Q1) asks if all or any subfigures have the specific object/attribute mentioned in Q2. "
    "(e.g. Do all the subfigures share certain object? Is there any subfigure that has a certain object?).\n"
    "For both answers A1 and A2, try not to refer to specific positions of subfigures and be concise.\n"
    "For the third question (Q3) make it a multi-choice question with a single answer based on the common "
    "question and answer. The answer (A3) should only be the subfigure targeted.\n"
    "Also generate a,b,c,d four choices and randomly put the correct answer in one of them, and fill the "
    "other choices with x.\n"
    "For the third answer (A3), only put in the label for the correct choice (a,b,c or d). Ask questions "
    "only based on the direct information you get from the provided common question and answers.\n"
    "At the end of each question (Q1, Q1 or Q3), indicate what kind of answer is needed for the question. "
    "(eg. please answer yes/no, please select one).\n"
    "Answers generated should be consice without any explanation.\n"
    'Your output should be a JSON object with the string fields "Q1", "A1", "Q2", "A2", "Q3", "A3".\n'
    "There are {num_subfigure} subfigures in the image. The common question for all subfigures are: {com_question}.\n"
    "The answer from the target subfigure is: {answer_target_subfigure}.\n"
    "The answer for the other subfigures are not the same as the target subfigure. Ask questions about the "
    "target subfigure located at {pos_description}."
)

Chat = Callable[[list[dict]], str]
_FIELDS = ("Q1", "A1", "Q2", "A2", "Q3", "A3")
_FILLER_WORDS = {"the", "in", "from", "subfigure", "of"}


class GenerationError(ValueError):
    """The model's reply is not a valid set of questions."""


def generate_with_llm(
    chat: Chat, *, num_subfigures: int, common_question: str, target_answer: str, position: str
) -> dict[str, str]:
    """Ask the model for Q1-A3 with the paper's prompt; returns the checked fields.

    Q1's yes/no comes from the model here, so a build that needs balance uses the templates.
    """
    prompt = QUESTION_PROMPT.format(
        num_subfigure=num_subfigures,
        com_question=common_question,
        answer_target_subfigure=target_answer,
        pos_description=f"the {position}",
    )
    return parse_generated(chat([{"role": "user", "content": prompt}]), target_answer, position)


def parse_generated(reply: str, target_answer: str, position: str) -> dict[str, str]:
    """Validate a reply: JSON object with the six string fields, A1 yes/no, A2 the target's
    answer, A3 a letter a-d, and Q2 and Q3 naming the target's position."""
    body = re.sub(r"^\s*```(?:json)?\s*|\s*```\s*$", "", reply)
    try:
        data = json.loads(body)
    except json.JSONDecodeError as e:
        raise GenerationError(f"reply is not JSON: {e}") from None
    if not isinstance(data, dict) or any(not isinstance(data.get(k), str) or not data[k].strip() for k in _FIELDS):
        raise GenerationError(f"reply must be an object with non-empty strings {_FIELDS}")
    out = {k: data[k].strip() for k in _FIELDS}
    out["A1"] = out["A1"].strip(" .").casefold()
    out["A3"] = out["A3"].strip(" .()").casefold()
    if out["A1"] not in (YES, NO):
        raise GenerationError(f"A1 must be yes or no, got {data['A1']!r}")
    if out["A3"] not in CHOICE_LETTERS:
        raise GenerationError(f"A3 must be one of a-d, got {data['A3']!r}")
    if target_answer.strip().casefold() not in out["A2"].casefold():
        raise GenerationError(f"A2 {out['A2']!r} is not the target's answer {target_answer!r}")
    words = [w for w in position.casefold().split() if w not in _FILLER_WORDS]
    for key in ("Q2", "Q3"):
        if not all(w in out[key].casefold() for w in words):
            raise GenerationError(f"{key} does not name the target's position {position!r}")
    return out
