"""Functional relations between catalogue objects, for the commonality reasoning task.

The paper's four kinds: combination (the two make one thing: a key opens its padlock, a
trailer is towed by its truck), supply (one provides the
energy or resource the other depends on), embedding (one is shaped to fit into the other)
and cooperation (the two work together on one task). Each entry is directed (x, y): x
powers, fits into, ... y. The table is also what keeps other cross-image pairs unrelated,
so it lists every relation between catalogue objects we know of, not only the ones a
question will use. Font Awesome Free draws no nail, screw, socket or torch, so the
paper's hammer/nail-style examples appear here as their nearest drawable counterparts.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from dicobench.kit.scene.catalogue import named_in

KINDS = ("combination", "supply", "embedding", "cooperation")


@dataclass(frozen=True)
class Relation:
    x: str
    y: str
    kind: str
    verb: str  # "{x} {verb} {y}": how a person says it (cooperation is symmetric: "are used together")


_TABLE: dict[str, list[tuple[str, str, str]]] = {
    "combination": [
        ("key", "padlock", "opens"), ("key", "handcuffs", "unlocks"), ("gemstone", "ring", "is set in"),
        ("cheese", "bread slice", "goes on"), ("bacon", "bread slice", "goes on"),
        ("trailer", "pickup truck", "is towed by"),
        ("trailer", "tractor", "is towed by"), ("caravan", "car", "is towed by"), ("sleigh", "horse", "is pulled by"),
    ],
    "supply": [
        ("battery", "walkie-talkie", "powers"), ("battery", "toy robot", "powers"),
        ("battery", "radio", "powers"), ("battery", "calculator", "powers"),
        ("charging station", "car", "charges"), ("fuel pump", "car", "fuels"),
        ("fuel pump", "motorcycle", "fuels"), ("fuel pump", "tractor", "fuels"), ("fuel pump", "truck", "fuels"),
        ("solar panel", "car battery", "charges"), ("plug", "laptop", "powers"), ("plug", "electric fan", "powers"),
        ("plug", "television", "powers"), ("bone", "dog", "feeds"), ("carrot", "horse", "feeds"),
        ("whole fish", "cat", "feeds"), ("food bowl", "dog", "feeds"), ("gas stove", "pot and pan", "heats"),
        ("faucet", "bathtub", "fills"), ("faucet", "sink", "fills"),
    ],
    "embedding": [
        ("memory card", "camera", "fits into"), ("SIM card", "phone", "fits into"),
        ("floppy disk", "desktop computer", "fits into"), ("RAM stick", "desktop computer", "fits into"),
        ("hard drive", "server rack", "fits into"), ("film strip", "film camera", "fits into"),
        ("coins", "piggy bank", "fit into"), ("credit card", "wallet", "fits into"),
        ("banknote", "wallet", "fits into"), ("bookmark", "book", "fits into"),
        ("sheet of paper", "envelope", "fits into"), ("credit card", "cash register", "fits into"),
    ],
    "cooperation": [
        ("paintbrush", "paint palette", ""), ("paint roller", "paint bucket", ""),
        ("keyboard", "computer mouse", ""), ("laptop", "computer mouse", ""), ("syringe", "test tube", ""),
        ("pencil", "ruler", ""), ("pencil", "eraser", ""), ("compass", "map", ""),
        ("tape roll", "cardboard box", ""), ("pen", "sheet of paper", ""), ("chess knight", "chessboard", ""),
        ("chess pawn", "chessboard", ""), ("chess king", "chessboard", ""),
    ],
}

# Relations the audited catalogue adds where the audit dropped or renamed an object of a relation above
# (the whole fish became the fish, the pen and sheet of paper a fountain pen and a document, ...).
_AUDITED_EXTRA: dict[str, list[tuple[str, str, str]]] = {
    "supply": [("fish", "cat", "feeds"), ("solar panel", "battery", "charges")],
    "embedding": [("film strip", "camera", "fits into")],
    "cooperation": [("fountain pen", "document", "")],
}


def _rows(table: dict[str, list[tuple[str, str, str]]]) -> tuple[Relation, ...]:
    return tuple(Relation(x, y, kind, verb) for kind, rows in table.items() for x, y, verb in rows)


RELATIONS: tuple[Relation, ...] = _rows(_TABLE)  # the first release's


@functools.lru_cache(maxsize=None)
def relations(version: str = "first-release") -> tuple[Relation, ...]:
    """The relations between objects of a catalogue version, in the order above."""
    if version == "first-release":
        return RELATIONS
    renamed = []
    for rel in RELATIONS:
        x, y = named_in(version, rel.x), named_in(version, rel.y)
        if x is not None and y is not None:
            renamed.append(Relation(x, y, rel.kind, rel.verb))
    extra = [r for r in _rows(_AUDITED_EXTRA) if r not in renamed]
    return tuple(sorted(renamed + extra, key=lambda r: KINDS.index(r.kind)))


@functools.lru_cache(maxsize=None)
def _by_pair(version: str) -> dict[frozenset[str], Relation]:
    return {frozenset((r.x, r.y)): r for r in relations(version)}


def related(a: str, b: str, version: str = "first-release") -> Relation | None:
    """The relation between two objects, whichever order they are given in."""
    return _by_pair(version).get(frozenset((a, b)))


@functools.lru_cache(maxsize=None)
def partners(name: str, version: str = "first-release") -> frozenset[str]:
    return frozenset(r.y if r.x == name else r.x for r in relations(version) if name in (r.x, r.y))


def statement(rel: Relation, image_of_x: int) -> str:
    """The option text stating that `rel` links an object of image 1 with one of image 2."""
    x = f"the {rel.x} in image {image_of_x}"
    y = f"the {rel.y} in image {3 - image_of_x}"
    if rel.kind == "cooperation":
        first, second = (x, y) if image_of_x == 1 else (y, x)
        return f"{first[0].upper()}{first[1:]} and {second} are used together."
    return f"{x[0].upper()}{x[1:]} {rel.verb} {y}."
