"""DiCoBench's error analysis (the paper's Figure 7) from the letters read, without a judge.

Every wrong answer that was scored falls into one of four types, the paper's categories as far
as the letter alone can tell them apart:
- `missed_cue`: E ("no visible difference/commonality") on a row that has a cue (loss of visual cues);
- `ex_nihilo`: one of A-D on an E row (hallucination from nothing);
- `wrong_option`: another of A-D (factual descriptive hallucination);
- `unparsed`: no answer could be read (refusals and unreadable replies: miscellaneous).
"""

from __future__ import annotations

from typing import Sequence

from dicobench.schema import LETTERS, TASKS

ERROR_TYPES = ("missed_cue", "ex_nihilo", "wrong_option", "unparsed")
NONE_LETTER = LETTERS[-1]


def error_type(parsed: str | None, reference: str) -> str | None:
    """The type of a wrong answer; None when the answer is right."""
    if parsed == reference:
        return None
    if parsed is None:
        return "unparsed"
    if parsed == NONE_LETTER:
        return "missed_cue"
    if reference == NONE_LETTER:
        return "ex_nihilo"
    return "wrong_option"


def error_types(parsed: Sequence[str | None], references: Sequence[str], tasks: Sequence[str] | None = None,
                scored: Sequence[bool] | None = None) -> dict:
    """`{"overall": {type: count, "errors": total}, "per_task": {task: {...}}}` over the scored rows."""
    def empty() -> dict:
        return {**{kind: 0 for kind in ERROR_TYPES}, "errors": 0}

    overall, per_task = empty(), {}
    for i, (p, r) in enumerate(zip(parsed, references)):
        if scored is not None and not scored[i]:
            continue
        kind = error_type(p, r)
        groups = [overall]
        if tasks is not None:
            groups.append(per_task.setdefault(tasks[i], empty()))
        for g in groups:
            if kind:
                g[kind] += 1
                g["errors"] += 1
    order = {t: k for k, t in enumerate(TASKS)}
    return {"overall": overall, "per_task": dict(sorted(per_task.items(), key=lambda kv: order.get(kv[0], 99)))}
