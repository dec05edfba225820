"""`dicobench catalogue`: the objects scenes draw, their look-alikes, and the audit's contact sheets."""

from __future__ import annotations

import argparse
from pathlib import Path

from dicobench.kit.cli.argtypes import positive_int
from dicobench.kit.io.outputs import output_folder


def register(sub: argparse._SubParsersAction) -> None:
    from dicobench.kit.scene.catalogue import VERSIONS

    p = sub.add_parser("catalogue",
                       help="list the object catalogue, draw its contact sheets, rank its look-alike glyphs",
                       description="List every object a catalogue version draws (name, category, the names the truth "
                                   "checks treat as look-alikes). --sheet draws every object in every look at cue "
                                   "size (as drawn and enlarged; looks the audited rules never draw at that size "
                                   "struck through) so that anyone can audit it in minutes; --similar ranks the "
                                   "glyph pairs whose silhouettes are most alike; --markings reads every instance "
                                   "marking from its pixels and counts how often one reads as another.")
    p.add_argument("--version", default="audited", choices=list(VERSIONS),
                   help="audited (the hard presets', default) or first-release (easy's)")
    p.add_argument("--size", type=positive_int, default=22,
                   help="glyph size to draw and compare at, px (default 22, a hard cue)")
    p.add_argument("--sheet", type=Path, default=None, metavar="DIR",
                   help="write the contact sheet pages (PNG) into DIR")
    p.add_argument("--similar", type=int, default=0, metavar="N", help="print the N most alike glyph pairs")
    p.add_argument("--markings", action="store_true",
                   help="read each marking (sticker, band, spots) as drawn on every object at the sizes marked "
                        "objects are drawn at, turned, from its pixels alone, and print what each reads as")
    p.set_defaults(func=_catalogue)


def _catalogue(args: argparse.Namespace) -> int:
    from dicobench.kit.scene.catalogue import load_catalogue, lookalikes

    entries = load_catalogue(args.version)
    if args.sheet is not None:
        from dicobench.kit.scene.contact_sheet import catalogue_pages

        folder = output_folder(args.sheet, "--sheet")
        pages = catalogue_pages(sorted(entries, key=lambda e: (e.category, e.name)), args.size,
                                rules=args.version == "audited")
        for number, page in enumerate(pages, 1):
            page.save(folder / f"catalogue-{args.version}-{args.size}px-{number:02d}.png")
        print(f"wrote {len(pages)} pages of {len(entries)} objects to {folder}")
    if args.similar:
        from dicobench.kit.scene.audit import silhouette_similarity

        for score, a, b in silhouette_similarity(entries, args.size)[: args.similar]:
            verdict = "look-alikes" if b in lookalikes(a, args.version) else "told apart"
            print(f"{score:.3f}  {a} / {b}  ({verdict})")
    if args.markings:
        from dicobench.kit.scene.audit import marking_reads
        from dicobench.kit.scene.markings import MARKINGS, SIZES

        reads = marking_reads(entries, SIZES, fitted=args.version == "audited")
        where = ("fitted to the body, where the audited rules draw them" if args.version == "audited"
                 else "at the first release’s places, everywhere")
        print(f"markings read from their pixels: {len(entries)} objects at {', '.join(map(str, SIZES))} px, "
              f"upright and turned 40 degrees ({where})")
        for marking in MARKINGS:
            total = sum(n for (m, _), n in reads.items() if m == marking)
            got = ", ".join(f"{read} {n}" for (m, read), n in sorted(reads.items(), key=lambda kv: -kv[1])
                            if m == marking)
            share = reads[marking, marking] / total if total else 0.0
            print(f"{marking}\t{total} drawn\tread as itself {share:.1%}\t({got})")
    if args.sheet is None and not args.similar and not args.markings:
        for e in sorted(entries, key=lambda e: (e.category, e.name)):
            alike = ", ".join(sorted(lookalikes(e.name, args.version)))
            print(f"{e.name}\t{e.category}\t{e.icon}" + (f"\tlook-alikes: {alike}" if alike else ""))
    return 0
