"""Pixel editors behind one protocol, chosen by spec prefix (`--editor diffusers:<model-id>`).

A photo build's instructed edits need only `PixelEditor`: an image, a mask and an instruction
in, the edited image out (`dicobench.editors.photo.instructed`). Each kind of editor is one
`EditorKind` in `EDITOR_KINDS`, which opens it from the rest of the spec; `register_editor`
adds one, e.g. an editor behind a web API or a classical op of one's own.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable, Protocol, runtime_checkable

from dicobench.kit.registry import Registry, usages

if TYPE_CHECKING:
    import numpy as np


@runtime_checkable
class PixelEditor(Protocol):
    """What a photo build asks of an editor. `name` goes into the rows' `generator` column;
    `takes_reference` says whether `edit` accepts `image_reference=[images]` (only then are
    commonality cut-outs blended in by it). `edit` changes only pixels under `mask` (HxW bool)
    of `image` (HxWx3 uint8) and is deterministic in `seed`."""

    name: str
    takes_reference: bool

    def edit(self, image: np.ndarray, mask: np.ndarray, instruction: str, *, seed: int | None = None,
             **extra) -> np.ndarray: ...


@dataclass(frozen=True)
class EditorKind:
    """An editor spec `<prefix>:<rest>`: `open(rest, steps, size)` builds the editor (`steps`
    and `size` are `--edit-steps` and `--edit-size`, None when not given)."""

    prefix: str
    open: Callable[[str, int | None, int | None], PixelEditor]
    usage: str  # the spec's form in messages, e.g. "diffusers:<model-id or folder>"


def _diffusers(rest: str, steps: int | None, size: int | None) -> PixelEditor:
    from dicobench.editors.photo.diffusers_editor import DiffusersEditor  # deferred: torch and diffusers

    return DiffusersEditor(rest, **{k: v for k, v in (("steps", steps), ("size", size)) if v is not None})


EDITOR_KINDS: Registry[EditorKind] = Registry("editor", [
    ("diffusers", EditorKind("diffusers", _diffusers, "diffusers:<model-id or folder>")),
])


def register_editor(kind: EditorKind) -> EditorKind:
    """Make `--editor <prefix>:...` edit photos with `kind.open`'s editor."""
    if ":" in kind.prefix:
        raise ValueError(f"an editor prefix is a word without ':', got {kind.prefix!r}")
    return EDITOR_KINDS.register(kind.prefix, kind)


def editor_usages() -> str:
    return usages([k.usage for k in EDITOR_KINDS])

