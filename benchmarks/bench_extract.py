"""Responses per second of `extract_choice` over a realistic mix of model outputs, on one core.

Target: a million responses in under a minute. Run: python benchmarks/bench_extract.py [N]
"""

from __future__ import annotations

import random
import sys
import time

from dicobench.kit.eval.extract import extract_choice

OPTIONS = [
    "The mug on the desk changed from red to blue",
    "The lamp moved to the left of the sofa",
    "A small dog was added near the door",
    "The clock disappeared from the wall",
    "There is no visible difference between the two images",
]
REASONING = (
    "Let me compare the two images carefully. In Image 1 the desk holds a mug, a lamp and a clock. "
    "In Image 2 the mug looks the same, the lamp is in the same place, and the clock is still there. "
) * 6

# (weight, template): most replies from instruction-following models are a bare letter.
MIX = [
    (50, "{L}"),
    (8, "{L}."),
    (5, "({L})"),
    (8, "The answer is ({L})."),
    (5, "Answer: {l}"),
    (6, "{L}. {text}"),
    (4, "<think>" + REASONING + "</think>\n{L}"),
    (4, REASONING + "Therefore, the correct answer is {L}."),
    (3, "{text}."),
    (2, "<answer>{L}</answer>"),
    (2, "I'm sorry, I can't determine the difference between these images."),
    (2, "It could be {L} or E."),
    (1, "A. " + OPTIONS[0] + "\nB. " + OPTIONS[1] + "\nC. " + OPTIONS[2] + "\nD. " + OPTIONS[3]
        + "\nE. " + OPTIONS[4]),
]


def make(n: int, seed: int = 0) -> list[str]:
    rng = random.Random(seed)
    templates = rng.choices([t for _, t in MIX], weights=[w for w, _ in MIX], k=n)
    out = []
    for t in templates:
        i = rng.randrange(5)
        out.append(t.format(L="ABCDE"[i], l="abcde"[i], text=OPTIONS[i]))
    return out


def main(n: int = 200_000) -> None:
    responses = make(n)
    start = time.perf_counter()
    read = [extract_choice(r, OPTIONS) for r in responses]
    seconds = time.perf_counter() - start
    rate = n / seconds
    unparsed = sum(r is None for r in read) / n
    print(f"{n} responses in {seconds:.2f} s: {rate:,.0f} responses/s on one core "
          f"(1,000,000 in {1e6 / rate:.1f} s; target < 60 s); unparsed {100 * unparsed:.1f}%")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 200_000)
