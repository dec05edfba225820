"""Instance markings fitted to the body: never clipped, never read as one another."""

import dataclasses

import numpy as np
from PIL import Image, ImageFilter

from dicobench.kit.scene.audit import marking_reads
from dicobench.kit.scene.catalogue import load_catalogue
from dicobench.kit.scene.glyphs import body
from dicobench.kit.scene.legibility import legible
from dicobench.kit.scene.markings import MARKINGS, fitted_area, fixed_area, placement, read_marking
from dicobench.kit.scene.model import PlacedObject
from dicobench.kit.scene.palette import COLOURS
from dicobench.kit.scene.render import object_patch

WOOD = (178, 128, 80)


def _disc(h, w, cx, cy, r):
    yy, xx = np.mgrid[0:h, 0:w]
    return (xx - cx) ** 2 + (yy - cy) ** 2 < r * r


def _grown(mask):
    return np.asarray(Image.fromarray(mask.astype(np.uint8) * 255).filter(ImageFilter.MaxFilter(3))) > 127


def test_read_marking_goes_by_the_pieces_and_their_shapes():
    assert read_marking(_disc(40, 40, 20, 20, 5)) == "sticker"
    spots = _disc(40, 40, 8, 8, 3.4) | _disc(40, 40, 30, 10, 3.4) | _disc(40, 40, 18, 30, 3.4)
    assert read_marking(spots) == "spots"
    bar = np.zeros((40, 60), bool)
    bar[17:24, 2:58] = True
    assert read_marking(bar) == "band"
    assert read_marking(bar & ~_disc(40, 60, 30, 20, 4)) == "band"  # a band a hole cuts in two
    assert read_marking(bar & ~_disc(40, 60, 30, 20, 4) & ~_disc(40, 60, 13, 20, 4)
                        & ~_disc(40, 60, 47, 20, 4)) != "band"
    half = _disc(40, 40, 20, 20, 8) & (np.mgrid[0:40, 0:40][0] < 21)  # a sticker the outline cuts in half
    assert read_marking(half) == "unclear"
    touching = _disc(40, 40, 10, 10, 3.4) | _disc(40, 40, 15, 14, 3.4)  # spots that meet are one blob
    assert read_marking(touching) != "spots"
    clipped = spots & (np.mgrid[0:40, 0:40][0] < 29)  # the outline cuts one spot to a bit
    assert read_marking(clipped) == "unclear"
    assert read_marking(np.zeros((5, 5), bool)) == "none"


def test_the_reviews_server_rack():
    # the review: purple spots on a teal server rack read as one blob, a sticker. At the first
    # release's places the spots ran into the rack's LED holes and the gap between its units (no
    # ring of body colour round them). Now the rack takes no spots at all (its LEDs are dots of
    # a spot's size), and its sticker keeps its ring and reads as one
    mask = body("server rack", 48)
    fixed = fixed_area("spots", 48, *mask.shape) & mask
    assert (_grown(fixed) & ~mask).any()
    assert placement("server rack", "spots") is None
    rack = PlacedObject(0, "server rack", "teal", 48, 0, 0, accent="purple", marking="spots", marking_fit=True)
    assert not legible(rack, WOOD)
    sticker = dataclasses.replace(rack, marking="sticker", shading=0.0, shadow=0.0)
    area, fits = fitted_area("server rack", 48, "sticker")
    assert fits and not (_grown(area) & ~mask).any()
    assert legible(sticker, WOOD) and read_marking(_accent(sticker)) == "sticker"


def _accent(obj):
    patch = object_patch(obj)
    colour = np.asarray(patch.rgb)
    near_accent = np.abs(colour - COLOURS[obj.accent]).sum(axis=2) < np.abs(colour - COLOURS[obj.colour]).sum(axis=2)
    return near_accent & (patch.alpha > 0.5)


def test_fitted_markings_lie_wholly_on_the_body_with_body_colour_round_them():
    for entry in load_catalogue("audited")[::3]:
        for size in (48, 50, 52, 61, 72):
            mask = body(entry.name, size)
            for marking in MARKINGS:
                area, fits = fitted_area(entry.name, size, marking)
                if not fits:
                    continue
                assert area.shape == mask.shape and area.any()
                assert not (area & ~mask).any(), (entry.name, size, marking)  # never clipped
                if marking != "band":  # a disc never touches the outline or a hole, diagonals included
                    assert not (_grown(area) & ~mask).any(), (entry.name, size, marking)


def test_no_disc_marking_where_the_glyphs_own_dots_pass_for_it():
    # a review row's blue dice with black spots: the spots were three more pips. Spots are not drawn
    # among a glyph's own round holes of about their size, a sticker not among two or more
    for name in ("dice", "paint palette", "bowling ball", "toy robot", "server rack", "fish"):
        assert placement(name, "spots") is None, name
    for name in ("paint palette", "bowling ball", "toy robot", "calculator"):
        assert placement(name, "sticker") is None, name
    assert placement("dice", "sticker") is not None  # five times a pip's size: no pip
    assert placement("fish", "sticker") is not None  # one eye: one dot


def test_a_marking_keeps_its_place_on_the_body_at_every_size():
    # an instance is drawn at two sizes in a row's two images: its sticker stays where it was
    found = [e.name for e in load_catalogue("audited") if placement(e.name, "sticker") is not None][:20]
    assert len(found) == 20
    for name in found:
        centres = []
        for size in (48, 60, 72):
            ys, xs = np.nonzero(fitted_area(name, size, "sticker")[0])
            h, w = body(name, size).shape
            centres.append(((xs.mean() - 2) / (w - 5), (ys.mean() - 2) / (h - 5)))
        assert np.ptp(np.array(centres), axis=0).max() < 0.04, name


def test_no_drawn_marking_reads_as_another():
    """The audit's measure (`dicobench catalogue --markings`), on every audited glyph at a hard
    instance's sizes, upright and turned: each marking the audited rules draw reads as itself."""
    reads = marking_reads(load_catalogue("audited"), (48, 52), fitted=True)
    assert {m for m, _ in reads} == set(MARKINGS)
    assert {key: n for key, n in reads.items() if key[0] != key[1]} == {}
    assert all(reads[m, m] >= 150 for m in MARKINGS)  # room left for every marking on many glyphs
    first = marking_reads(load_catalogue("audited"), (48, 52), fitted=False, drawn_only=False)
    assert sum(n for (m, r), n in first.items() if m != r) > 0.2 * sum(first.values())  # the first release's places
