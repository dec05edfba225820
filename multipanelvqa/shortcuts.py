"""Shortcuts a MultipanelVQA build must not offer, measured without a model.

- Text alone: simple strategies that read only a row's question (and Q3's choices) and never
  the image. Each question type has its chance level (Q1 yes/no 1/2, Q3 one of four letters
  1/4, Q2 one guess per question template); a strategy above it is a text shortcut.
- Pixels alone: among the panels that repeat the target's scene (near duplicates), the one
  whose pixels differ most from the others. If that is the target more often than chance
  (1 in the group's size), a model finds the answer panel without reading any object.

Pure functions of rows and images: `benchmarks/bench_mpv_difficulty.py` and the tests call them.
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter, defaultdict
from typing import Callable, Iterable, Sequence

import numpy as np
from PIL import Image

from multipanelvqa.questions.common import FILLERS, words_in, words_shared_with_others
from multipanelvqa.schema import CHOICE_LETTERS

THUMB = 64  # side every panel is shrunk to before panels are compared


def _words(text: str) -> int:
    return len(text.split())


Q1_STRATEGIES: dict[str, Callable[[str], str]] = {
    "always yes": lambda q: "yes",
    "always no": lambda q: "no",
    "any yes, all no": lambda q: "no" if "for all the subfigures" in q.casefold() else "yes",
}


def _first(choices: Sequence[str], keep: Callable[[int], bool]) -> int:
    return next((i for i in range(len(choices)) if keep(i)), 0)


def _ranked(key: Callable[[str], object], rank: int) -> Callable[[Sequence[str], str], int]:
    """The choice at `rank` (0 the smallest) when the choices are sorted by `key`, ties by letter."""
    return lambda c, q: sorted(range(len(c)), key=lambda i: (key(c[i]), i))[rank]


def _stem(question: str) -> str:
    """A Q3's question without its lettered choices (its first line)."""
    return question.split("\n", 1)[0]


def _most(score: Callable[[Sequence[str], str, int], float], sign: int = 1) -> Callable[[Sequence[str], str], int]:
    """The choice with the highest (sign -1: lowest) score, ties by letter."""
    return lambda c, q: max(range(len(c)), key=lambda i: (sign * score(c, q, i), -i))


def _shared_with_others(c: Sequence[str], q: str, i: int) -> float:
    return words_shared_with_others(c, i)


_RANKS = ("shortest", "second shortest", "second longest", "longest")
# Q3: each strategy reads the choices and the question (never the image) and names a choice's index
Q3_STRATEGIES: dict[str, Callable[[Sequence[str], str], int]] = {
    **{f"{name} in words": _ranked(_words, r) for r, name in enumerate(_RANKS)},
    **{f"{name} in characters": _ranked(len, r) for r, name in enumerate(_RANKS)},
    "most words shared with the question": _most(lambda c, q, i: len(words_in(c[i]) & words_in(_stem(q)))),
    "most words shared with the other choices": _most(_shared_with_others),
    "fewest words shared with the other choices": _most(_shared_with_others, -1),
    "alphabetically first": lambda c, q: min(range(len(c)), key=lambda i: (c[i].casefold(), i)),
    "alphabetically last": lambda c, q: max(range(len(c)), key=lambda i: (c[i].casefold(), -i)),
    "first choice that is no filler": lambda c, q: _first(c, lambda i: c[i] not in FILLERS),
    "always a": lambda c, q: 0,
}

_TEMPLATE = re.compile(r"^Look at (?:the .+?|subfigure \d+)\. (What color is|Is there|How many)\b")


def q2_template(question: str) -> str:
    """The common question's template of a Q2 ("What color is", "Is there", "How many", else "other")."""
    m = _TEMPLATE.match(question)
    return m.group(1) if m else "other"


def _half(common_question: str) -> int:
    """Which half of the image sets a common question's set is in (a stable hash of its text)."""
    return hashlib.sha1(common_question.encode()).digest()[0] % 2


def _common(question: str) -> str:
    """A Q2's common question (what its image set asks every panel)."""
    return question.split(". ", 1)[-1]


def text_only(rows: Iterable[dict]) -> dict[str, dict]:
    """Per question type: rows, chance, and each text-only strategy's accuracy.

    Images with two or three panels fill Q3's choices with "none of the subfigures" and "all of
    the subfigures", which are never right (the paper's design): a reader who knows that is at
    1/2 or 1/3 there, so Q3 is also given over images of four panels or more ("q3, 4+ panels").
    Q2's strategy answers every question with the most common answer of its template among the
    rows of the other half of the image sets (a set fills many layouts with one question and one
    answer, so a prior is learnt from other sets, as a model's would be); chance is a uniform
    guess: 1/2 for yes/no, else 1 / the template's distinct answers.
    """
    by_type: dict[str, list[dict]] = defaultdict(list)
    for row in rows:
        by_type[row["question_type"]].append(row)
    out: dict[str, dict] = {}
    if by_type["q1"]:
        q1 = by_type["q1"]
        out["q1"] = {"rows": len(q1), "chance": 0.5, **{name: _share(pick(r["question"]) == r["answer"] for r in q1)
                                                          for name, pick in Q1_STRATEGIES.items()}}
    if by_type["q2"]:
        q2 = by_type["q2"]
        answers: dict[str, dict[str, Counter]] = defaultdict(lambda: defaultdict(Counter))
        for r in q2:
            answers[q2_template(r["question"])][_common(r["question"])][r["answer"].casefold()] += 1
        hits, chances, per = [], [], defaultdict(list)
        for r in q2:
            template = q2_template(r["question"])
            sets = answers[template]
            half = _half(_common(r["question"]))
            rest = sum((c for q, c in sets.items() if _half(q) != half), Counter())
            best = max(rest.values(), default=0)
            tied = [a for a, n in rest.items() if n == best]
            hits.append((r["answer"].casefold() in tied) / len(tied) if tied else 0.0)
            seen = {a for c in sets.values() for a in c}
            chances.append(0.5 if seen <= {"yes", "no"} else 1 / len(seen))
            per[template].append((hits[-1], chances[-1]))
        out["q2"] = {"rows": len(q2), "chance": sum(chances) / len(q2),
                     "most common answer of its template": sum(hits) / len(hits),
                     "templates": {t: {"rows": len(v), "chance": v[0][1], "accuracy": sum(h for h, _ in v) / len(v)}
                                   for t, v in sorted(per.items())}}
    for key, keep in (("q3", lambda r: True), ("q3, 4+ panels", lambda r: r["num_subfigures"] >= len(CHOICE_LETTERS))):
        q3 = [r for r in by_type["q3"] if keep(r)]
        if q3:
            out[key] = {"rows": len(q3), "chance": 1 / len(CHOICE_LETTERS),
                        **{name: _share(CHOICE_LETTERS[pick(r["choices"], r.get("question", ""))] == r["answer"]
                                        for r in q3)
                           for name, pick in Q3_STRATEGIES.items()}}
    return out


def _share(hits: Iterable[bool]) -> float:
    hits = list(hits)
    return sum(hits) / len(hits) if hits else float("nan")


def panel_thumbs(image: Image.Image, boxes: Sequence[Sequence[int]], side: int = THUMB) -> np.ndarray:
    """Each box's pixels shrunk to side x side (box filter), as float32 (n, side, side, 3)."""
    image = image.convert("RGB")
    return np.stack([np.asarray(image.crop((x, y, x + w, y + h)).resize((side, side), Image.Resampling.BOX),
                                dtype=np.float32) for x, y, w, h in boxes])


def odd_one_out(thumbs: np.ndarray, group: Sequence[int], target: int = 0) -> float:
    """1 when `target` is the panel of `group` whose pixels differ most (summed mean absolute
    difference) from the group's others, 0 when another is, a share when tied."""
    group = list(group)
    if target not in group or len(group) < 2:
        raise ValueError("the group must hold the target and at least one other panel")
    t = thumbs[group]
    d = np.abs(t[:, None] - t[None, :]).mean(axis=(2, 3, 4))
    sums = np.round(d.sum(axis=1), 6)
    winners = np.flatnonzero(sums == sums.max())
    return float(group.index(target) in winners) / len(winners)


def answer_odd_one_out(answers: Sequence[str], target: int = 0) -> float:
    """The answers-alone shortcut: pick a panel whose answer to the common question no other panel
    has (at random among several; any panel where none has). 1 when that finds the target, a share
    when it may (the paper's rule: the target alone is unique, so always 1)."""
    counts = {a: sum(b == a for b in answers) for a in answers}
    unique = [i for i, a in enumerate(answers) if counts[a] == 1] or list(range(len(answers)))
    return float(target in unique) / len(unique)


def answer_shared_pick(answers: Sequence[str], target: int = 0) -> float:
    """The opposite answers-alone shortcut: avoid the panels whose answer no other has and pick one
    whose answer another panel shows too (at random among them; any panel where none does). 1 when
    that finds the target, a share when it may: beats chance wherever the target's answer is
    shown twice more often than another panel's is (target_answer "shared" before the target was
    let be the unique one at the rate any panel is)."""
    counts = {a: sum(b == a for b in answers) for a in answers}
    shared = [i for i, a in enumerate(answers) if counts[a] > 1] or list(range(len(answers)))
    return float(target in shared) / len(shared)
