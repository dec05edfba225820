"""Difference reasoning: a visual trace (prints, a spill, a crack...) implies an unseen event."""

from __future__ import annotations

from dicobench.edits.traces import add_trace, kinds_for
from dicobench.tasks import collect


def propose(rng, scene):
    seen_kinds: set[str] = set()

    def make(obj, used):
        kinds = kinds_for(obj)
        fresh = [k for k in kinds if k.name not in seen_kinds] or kinds
        kind = fresh[rng.integers(len(fresh))]
        edit = add_trace(rng, scene, obj, kind)
        if edit is not None:
            seen_kinds.add(kind.name)
        return edit

    return collect(rng, scene, make)
