"""The photo sources a build's `--source PREFIX:...` can name, declared once each in
`PHOTO_SOURCES`: the built-in `folder:`, `vstar:`, `hf:` (`dicobench.kit.photos.sources`) and
`coco:` (`dicobench.kit.photos.coco`); `register_photo_source` adds one (its spec prefix, licence,
Hub id and the tasks it can give). The registry lives apart from the sources so that it can name
every one of them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from dicobench.kit.errors import UserError
from dicobench.kit.photos.coco import CocoSource
from dicobench.kit.photos.model import SizePolicy
from dicobench.kit.photos.sources import FolderSource, HubSource, PhotoSource, VStarSource
from dicobench.kit.registry import Registry, usages
from dicobench.kit.release.licences import VSTAR, Licence


@dataclass(frozen=True)
class PhotoSourceKind:
    """A kind of photo source, declared once: the spec prefix it answers (`folder` for
    `folder:DIR`), how to open the rest of the spec, and what the card and the build need to know
    about its photos without opening it.

    `licence` is the licence its photos come under when the toolkit knows it (V*'s terms), else
    None: the owners', stated with `push --license` or per photo by an annotation file.
    `hub_id(rest)` is the Hub dataset the photos extend (the card's `source_datasets`), None when
    they come from nowhere public. `tasks` limits the photo tasks it can give (None: every task
    with a photo proposer that its photos offer)."""

    prefix: str
    open: Callable[[str, SizePolicy], PhotoSource]  # (the spec after "<prefix>:", size policy) -> source
    usage: str  # the spec's form in messages, e.g. "folder:DIR"
    licence: Licence | None = None
    hub_id: Callable[[str], str | None] = field(default=lambda rest: None)
    tasks: tuple[str, ...] | None = None

    def source_dataset(self, spec: str) -> str:
        """The `source_datasets` entry of a card built from `spec`."""
        found = self.hub_id(spec.partition(":")[2])
        return f"extended|{found}" if found else "extended"


def _hub(rest: str, policy: SizePolicy) -> PhotoSource:
    repo, _, split = rest.partition(":")
    return HubSource(repo, split or "train", policy)


def _coco(rest: str, policy: SizePolicy) -> PhotoSource:
    annotations, _, images = rest.partition(":")
    return CocoSource(annotations, images or None, policy)


PHOTO_SOURCES: Registry[PhotoSourceKind] = Registry("photo source", [(k.prefix, k) for k in (
    PhotoSourceKind("folder", FolderSource, "folder:DIR"),
    PhotoSourceKind("vstar", VStarSource, "vstar:DIR", licence=VSTAR, hub_id=lambda rest: "craigwu/vstar_bench"),
    PhotoSourceKind("hf", _hub, "hf:REPO[:SPLIT]", hub_id=lambda rest: rest.partition(":")[0]),
    PhotoSourceKind("coco", _coco, "coco:ANNOTATIONS.json[:IMAGES_DIR]"),
)])


def register_photo_source(kind: PhotoSourceKind) -> PhotoSourceKind:
    """Make `--source <prefix>:...` open photos with `kind.open` (see `PhotoSourceKind`)."""
    if ":" in kind.prefix or kind.prefix == "procedural":
        raise ValueError(f"a photo source prefix is a word without ':', other than procedural; got {kind.prefix!r}")
    return PHOTO_SOURCES.register(kind.prefix, kind)


def source_usages() -> str:
    """Every registered spec form, for messages ("folder:DIR, vstar:DIR, ... or coco:...")."""
    return usages([k.usage for k in PHOTO_SOURCES])


def open_source(spec: str, policy: SizePolicy = SizePolicy()) -> PhotoSource:
    """A registered spec (the build's `--source`): `folder:DIR`, `vstar:DIR`, `hf:REPO[:SPLIT]`,
    `coco:ANNOTATIONS.json[:IMAGES_DIR]` or one added with `register_photo_source`."""
    kind = PHOTO_SOURCES.for_spec(spec)
    if kind is None:
        raise UserError(f"unknown photo source {spec!r}; expected {source_usages()}")
    return kind.open(spec.partition(":")[2], policy)
