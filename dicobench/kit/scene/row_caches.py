"""Caches of drawn pixels that live for one row: each is registered where it is made, and
`clear` forgets them all (a build calls it between rows, whose scenes share nothing), so a new
cache cannot be missed by a hand-kept list."""

from __future__ import annotations

import functools
from typing import Callable, TypeVar

F = TypeVar("F", bound=Callable)
_CACHES: list = []


def per_row(maxsize: int) -> Callable[[F], F]:
    """`functools.lru_cache(maxsize)`, registered for `clear`."""
    def wrap(function: F) -> F:
        cached = functools.lru_cache(maxsize=maxsize)(function)
        _CACHES.append(cached)
        return cached
    return wrap


def clear() -> None:
    for cached in _CACHES:
        cached.cache_clear()
