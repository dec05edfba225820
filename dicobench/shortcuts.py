"""Text-only shortcuts a DiCoBench build must not offer, measured without a model.

Each strategy reads only a row's five options (never the images) and picks a letter. The
options are built so that none of them beats chance (1 in 5): the correct letters are
balanced, E is as often right as any other letter, and a difference row's options name two
objects twice each (or four objects once), so counting which object the options mention, or
which option is the odd one out, says nothing. Pure functions of rows: the tests and
`benchmarks/bench_text_only.py` call them.

>>> from dicobench.shortcuts import text_only
>>> rows = [{"task": "attribute", "options": ["The red mug became blue.", "The red mug became green.",
...          "The black key became white.", "The black key became pink.", "There is no visible difference"],
...          "answer": 0}]
>>> text_only(rows)["attribute"]["longest"]
0.0
"""

from __future__ import annotations

import math
from collections import defaultdict
from typing import Callable, Iterable, Sequence

from dicobench.schema import LETTERS, TASKS

CHANCE = 1 / len(LETTERS)

STRATEGIES: dict[str, Callable[[Sequence[str]], int]] = {
    "longest": lambda opts: max(range(5), key=lambda i: len(opts[i])),
    "shortest": lambda opts: min(range(4), key=lambda i: len(opts[i])),
    "first alphabetical": lambda opts: min(range(4), key=lambda i: opts[i]),
    "most common words": lambda opts: max(range(4), key=lambda i: sum(w in " ".join(opts) for w in opts[i].split())),
    # the option whose opening words (which name its object) the fewest other options share
    "odd one out": lambda opts: min(range(4), key=lambda i: sum(opts[j].split()[:4] == opts[i].split()[:4]
                                                                  for j in range(4))),
    "always E": lambda opts: 4,
}


def chance_band(n: int, z: float = 3.3) -> float:
    """The highest accuracy chance reaches over `n` rows with a binomial band of `z` standard
    deviations (3.3: one strategy in a thousand passes by luck)."""
    return CHANCE + z * math.sqrt(CHANCE * (1 - CHANCE) / n) if n else float("nan")


def text_only(rows: Iterable[dict]) -> dict[str, dict[str, float]]:
    """Per task (and "overall"): `n`, the `band` chance stays under, and each strategy's
    accuracy. `rows` carry `task` (name or index), `options` and `answer` (letter or index)."""
    hits: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    counts: dict[str, int] = defaultdict(int)
    for row in rows:
        task = row["task"] if isinstance(row["task"], str) else TASKS[row["task"]]
        answer = row["answer"] if isinstance(row["answer"], int) else LETTERS.index(row["answer"])
        for group in (task, "overall"):
            counts[group] += 1
            for name, pick in STRATEGIES.items():
                hits[group][name] += pick(row["options"]) == answer
    order = [t for t in TASKS if t in counts] + ["overall"] * bool(counts)
    return {group: {"n": counts[group], "band": chance_band(counts[group]),
                    **{name: hits[group][name] / counts[group] for name in STRATEGIES}} for group in order}
