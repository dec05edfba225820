"""Text-only baselines shared by the track tests: heuristics that read only a row's options
must not beat chance (1 in 5) by more than a 99.9% binomial band."""

from __future__ import annotations

from collections import Counter
from typing import Iterable

from dicobench.schema import LETTERS

STRATEGIES = {
    "longest": lambda opts: max(range(5), key=lambda i: len(opts[i])),
    "shortest": lambda opts: min(range(4), key=lambda i: len(opts[i])),
    "first_alphabetical": lambda opts: min(range(4), key=lambda i: opts[i]),
    "most_common_words": lambda opts: max(range(4), key=lambda i: sum(w in " ".join(opts) for w in opts[i].split())),
    # the option whose opening words (which name its object) the fewest other options share: the odd one out
    "odd_one_out": lambda opts: min(range(4), key=lambda i: sum(opts[j].split()[:4] == opts[i].split()[:4] for j in range(4))),
}


def assert_at_chance(rows: Iterable[tuple[list[str], str]]) -> int:
    """Check every strategy over (options, correct letter) rows; return how many rows there were."""
    hits, made = Counter(), 0
    for options, letter in rows:
        made += 1
        for name, pick in STRATEGIES.items():
            hits[name] += LETTERS[pick(options)] == letter
    sd = (made * 0.2 * 0.8) ** 0.5
    for name, count in hits.items():
        assert count <= made * 0.2 + 3.3 * sd, (name, count, made)
    return made
