"""Named declarations, in registration order: the one shape behind every extension point (tasks,
photo sources, editors, MultipanelVQA augmentations).

A `Registry` holds small typed declarations under unique names; `register` adds one at the end
(positions are never reused, since a DiCoBench task's position seeds its rows) and
`registered(...)` adds one for the length of a `with` block, the way a test or a one-off script
extends a benchmark without leaking into what runs after it. `names()` is a live, read-only view
that compares like a tuple, so module constants such as `dicobench.schema.TASKS` follow the
registry without being recomputed by every reader.
"""

from __future__ import annotations

import contextlib
import dataclasses
import importlib
from typing import Any, Callable, Generic, Iterator, Sequence, TypeVar

T = TypeVar("T")


def resolve(ref: str):
    """The object a "module:attribute" path names (what `Ref.load` imports)."""
    module, _, name = ref.partition(":")
    return getattr(importlib.import_module(module), name)


@dataclasses.dataclass(frozen=True)
class Ref:
    """A module attribute named "module:attribute", imported when first used (and then by Python's
    module cache): a definition names its heavy parts without importing them."""

    path: str

    def __post_init__(self):
        module, _, name = self.path.partition(":")
        if not module or not name:
            raise ValueError(f"expected module:attribute, got {self.path!r}")

    @property
    def module(self) -> str:
        """The module part of the path (what a harness export copies or imports by name)."""
        return self.path.partition(":")[0]

    @property
    def attribute(self) -> str:
        return self.path.partition(":")[2]

    def load(self) -> Any:
        return resolve(self.path)

    def __call__(self, *args, **kwargs):
        return self.load()(*args, **kwargs)


class Registry(Generic[T]):
    """Declarations of one kind (`what` names it in errors), keyed by name."""

    def __init__(self, what: str, entries: Sequence[tuple[str, T]] = ()):
        self.what = what
        self._entries: dict[str, T] = {}
        for name, entry in entries:
            self.register(name, entry)

    def register(self, name: str, entry: T) -> T:
        """Add `entry` under `name`, after every other; a name is registered once."""
        if not isinstance(name, str) or not name:
            raise ValueError(f"a {self.what} name is a non-empty string, got {name!r}")
        if name in self._entries:
            raise ValueError(f"{self.what} {name!r} is already registered")
        self._entries[name] = entry
        return entry

    def unregister(self, name: str) -> T:
        """Remove `name` again (a plug-in's or a test's entry; built-in ones stay in place)."""
        return self._entries.pop(name)

    @contextlib.contextmanager
    def registered(self, name: str, entry: T) -> Iterator[T]:
        """`entry` registered under `name` inside the block only."""
        self.register(name, entry)
        try:
            yield entry
        finally:
            self.unregister(name)

    def get(self, name: str) -> T:
        try:
            return self._entries[name]
        except (KeyError, TypeError):
            raise ValueError(f"unknown {self.what} {name!r}; expected one of {', '.join(self._entries)}") from None

    def __contains__(self, name: object) -> bool:
        return name in self._entries

    def __iter__(self) -> Iterator[T]:
        return iter(list(self._entries.values()))

    def __len__(self) -> int:
        return len(self._entries)

    def for_spec(self, spec: str) -> T | None:
        """The entry a "prefix:rest" spec names (`--source coco:FILE`, `--editor diffusers:ID`);
        None when its prefix is not registered or nothing follows it."""
        prefix, _, rest = spec.partition(":")
        return self._entries.get(prefix) if rest else None

    def items(self) -> list[tuple[str, T]]:
        return list(self._entries.items())

    def names(self, keep: Callable[[T], bool] | None = None, before: tuple[str, ...] = (),
              after: tuple[str, ...] = ()) -> "Names":
        """A live view of the names (of the entries `keep` accepts), between fixed `before` and `after`."""
        return Names(lambda: before + tuple(n for n, e in self._entries.items() if keep is None or keep(e)) + after)


def usages(forms: Sequence[str]) -> str:
    """Spec forms for a message: "folder:DIR, vstar:DIR or coco:FILE"."""
    return ", ".join(forms[:-1]) + " or " + forms[-1] if len(forms) > 1 else "".join(forms)


class Names(Sequence[str]):
    """A read-only tuple of names computed on each use from a registry: indexing, `index`, `in`,
    `len`, iteration and `+` behave as on a tuple, and it equals the tuple of its names."""

    def __init__(self, current: Callable[[], tuple[str, ...]]):
        self._current = current

    def __getitem__(self, index):
        return self._current()[index]

    def __len__(self) -> int:
        return len(self._current())

    def __iter__(self) -> Iterator[str]:
        return iter(self._current())

    def __contains__(self, name: object) -> bool:
        return name in self._current()

    def __add__(self, other: tuple) -> tuple:
        return self._current() + tuple(other)

    def __radd__(self, other: tuple) -> tuple:
        return tuple(other) + self._current()

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Names):
            other = other._current()
        return self._current() == other if isinstance(other, tuple) else NotImplemented

    def __hash__(self) -> int:
        return hash(self._current())

    def __repr__(self) -> str:
        return repr(self._current())
