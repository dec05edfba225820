"""Text-only baselines shared by the track tests: every strategy of `dicobench.shortcuts`
(which reads only a row's options) stays within chance's 99.9% binomial band."""

from __future__ import annotations

from typing import Iterable

from dicobench.shortcuts import STRATEGIES, text_only


def assert_at_chance(rows: Iterable[tuple[list[str], str]]) -> int:
    """Check every strategy over (options, correct letter) rows; return how many rows there were."""
    scores = text_only({"task": "attribute", "options": options, "answer": letter} for options, letter in rows)
    if not scores:
        return 0
    overall = scores["overall"]
    for name in STRATEGIES:
        assert overall[name] <= overall["band"], (name, overall[name], overall["n"])
    return int(overall["n"])
