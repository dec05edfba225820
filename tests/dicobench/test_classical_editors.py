import numpy as np
import pytest

skdata = pytest.importorskip("skimage.data")
cv2 = pytest.importorskip("cv2")

from dicobench.checks import MIN_VISIBLE_PIXELS, VISIBLE_STEP, check_difference_pixels  # noqa: E402
from dicobench.editors.photo.classical import (  # noqa: E402
    Insert,
    Move,
    Paste,
    Recolour,
    Remove,
    Trace,
    changed_box,
    crack_pattern,
    crop,
    object_mask,
    pattern_mask,
    stain_pattern,
)

# skimage's coffee photo (400x600): the spoon's handle region and the saucer's rim
COFFEE_SPOT = (218, 252, 17, 11)
ASTRONAUT_BADGE = (345, 424, 27, 36)
ASTRONAUT_NAME_TAG = (278, 338, 52, 36)  # blue, on the orange suit


@pytest.fixture(scope="module")
def coffee():
    return skdata.coffee()


@pytest.fixture(scope="module")
def astronaut():
    return skdata.astronaut()


def support(pixels, mask) -> np.ndarray:
    """Full-image boolean map of where the mask allows changes (its dilated, feathered support)."""
    out = np.zeros(pixels.shape[:2], bool)
    crop(out, mask.window)[...] = mask.alpha > 0
    return out


def assert_edit_confined(before, edited, allowed):
    diff = (before != edited.pixels).any(axis=2)
    assert diff.any()
    assert not (diff & ~allowed).any(), "a pixel outside the dilated mask changed"
    ys, xs = np.nonzero(diff)
    assert edited.changed == (xs.min(), ys.min(), xs.max() - xs.min() + 1, ys.max() - ys.min() + 1)
    step = np.abs(before.astype(int) - edited.pixels.astype(int)).max(axis=2)
    assert (step >= VISIBLE_STEP).sum() >= MIN_VISIBLE_PIXELS


def test_object_mask_covers_the_object_and_stays_near_its_box(astronaut):
    mask = object_mask(astronaut, ASTRONAUT_BADGE, feather=1.5)
    hard = mask.hard()
    x, y, w, h = ASTRONAUT_BADGE
    assert 0.2 * w * h <= hard.sum() <= w * h
    allowed = support(astronaut, mask)
    ys, xs = np.nonzero(allowed)
    assert xs.min() >= x - 6 and xs.max() < x + w + 6 and ys.min() >= y - 6 and ys.max() < y + h + 6
    assert ((mask.alpha > 0) & (mask.alpha < 1)).any()  # feathered
    assert np.array_equal(object_mask(astronaut, ASTRONAUT_BADGE, feather=1.5).alpha, mask.alpha)  # deterministic


@pytest.mark.parametrize("photo, box", [("coffee", COFFEE_SPOT), ("astronaut", ASTRONAUT_BADGE)])
def test_recolour_shifts_hue_inside_the_mask_only(photo, box, request):
    pixels = request.getfixturevalue(photo)
    mask = object_mask(pixels, box)
    edited = Recolour(hue_degrees=150, chroma_scale=1.5, min_chroma=40)(pixels, mask)
    assert_edit_confined(pixels, edited, support(pixels, mask))
    # hue moved on the object's core: compare mean a/b direction in Lab
    core = mask.hard()
    lab = [cv2.cvtColor(crop(p, mask.window), cv2.COLOR_RGB2LAB)[core][:, 1:].astype(float).mean(0) - 128
           for p in (pixels, edited.pixels)]
    assert np.linalg.norm(lab[1] - lab[0]) > 20
    area = check_difference_pixels(pixels, edited.pixels, False,
                                   [{"bbox": list(edited.changed), "image": 1, "label": "x"}])
    assert 0 < area < 0.01


def test_remove_fills_the_object_from_its_surroundings(astronaut):
    mask = object_mask(astronaut, ASTRONAUT_BADGE)
    edited = Remove(radius=5)(astronaut, mask)
    assert_edit_confined(astronaut, edited, support(astronaut, mask))
    # the filled hole looks like its surroundings: its mean colour moves towards the ring around the box
    hole = mask.hard()
    ring = (mask.alpha == 0)
    before = crop(astronaut, mask.window)[hole].astype(float).mean(0)
    after = crop(edited.pixels, mask.window)[hole].astype(float).mean(0)
    around = crop(astronaut, mask.window)[ring].astype(float).mean(0)
    assert np.linalg.norm(after - around) < np.linalg.norm(before - around)


def test_move_removes_here_and_pastes_there(astronaut):
    mask = object_mask(astronaut, ASTRONAUT_BADGE)
    dx, dy = -80, -100
    edited = Move(dx, dy)(astronaut, mask)
    allowed = support(astronaut, mask)
    allowed |= np.roll(np.roll(allowed, dy, axis=0), dx, axis=1)
    assert_edit_confined(astronaut, edited, allowed)
    # the object is where it was sent (Poisson blending keeps its gradients, not its exact colours)
    x, y, w, h = ASTRONAUT_BADGE
    original = astronaut[y : y + h, x : x + w].mean(2)
    pasted = edited.pixels[y + dy : y + dy + h, x + dx : x + dx + w].mean(2)
    assert np.corrcoef(original.ravel(), pasted.ravel())[0, 1] > 0.7
    # and is gone from where it was
    assert not np.array_equal(edited.pixels[y : y + h, x : x + w], astronaut[y : y + h, x : x + w])


def test_paste_outside_the_image_is_refused(coffee):
    mask = object_mask(coffee, COFFEE_SPOT)
    with pytest.raises(ValueError, match="leaves"):
        Paste(coffee, 1000, 0)(coffee, mask)


@pytest.mark.parametrize("poisson", [True, False])
@pytest.mark.parametrize("scale", [0.7, 1.3])
def test_insert_from_another_photo_changes_only_the_placed_mask(astronaut, coffee, poisson, scale):
    mask = object_mask(astronaut, ASTRONAUT_NAME_TAG)
    op = Insert(astronaut, (380, 20), scale, poisson=poisson)
    placed = op.placed(mask)
    assert placed.window == (380, 20, round(mask.window[2] * scale), round(mask.window[3] * scale))
    edited = op(coffee, mask)
    assert_edit_confined(coffee, edited, support(coffee, placed))
    # the object is there, at its new size: its core matches the cut-out rescaled
    core = placed.alpha >= 0.99
    own = cv2.resize(np.ascontiguousarray(mask.under(astronaut)), placed.window[2:])[core].mean(1)
    assert np.corrcoef(own, crop(edited.pixels, placed.window)[core].mean(1))[0, 1] > 0.9


def test_insert_keeps_the_objects_colours_only_without_poisson_blending(astronaut, coffee):
    """Poisson blending pulls colours towards the new surroundings: a look is lost."""
    mask = object_mask(astronaut, ASTRONAUT_NAME_TAG)
    shift = {}
    for poisson in (True, False):
        op = Insert(astronaut, (400, 10), 1.3, poisson=poisson)
        placed = op.placed(mask)
        core = placed.alpha >= 0.99
        own = cv2.resize(np.ascontiguousarray(mask.under(astronaut)), placed.window[2:],
                         interpolation=cv2.INTER_CUBIC)[core]
        got = crop(op(coffee, mask).pixels, placed.window)[core]
        shift[poisson] = np.abs(got.astype(float).mean(0) - own.astype(float).mean(0)).max()
    assert shift[False] < 1 and shift[True] > 10


def test_insert_outside_the_image_is_refused(astronaut, coffee):
    with pytest.raises(ValueError, match="leaves"):
        Insert(astronaut, (550, 10), 1.0)(coffee, object_mask(astronaut, ASTRONAUT_NAME_TAG))


@pytest.mark.parametrize("pattern", [crack_pattern, stain_pattern])
def test_trace_darkens_under_its_pattern_only(coffee, pattern):
    rng = np.random.default_rng(3)
    mask = pattern_mask(pattern(rng, 40, 50), (300, 100), coffee.shape, feather=1.0)
    edited = Trace(strength=0.9)(coffee, mask)
    assert_edit_confined(coffee, edited, support(coffee, mask))
    diff = (coffee != edited.pixels).any(axis=2)
    assert (edited.pixels[diff].astype(int).sum(1) <= coffee[diff].astype(int).sum(1)).all()  # multiply only darkens


def test_trace_pattern_is_clipped_at_the_frame(coffee):
    mask = pattern_mask(np.ones((30, 30), np.float32), (585, 390), coffee.shape, feather=0)
    assert mask.window == (585, 390, 15, 10)
    edited = Trace()(coffee, mask)
    assert changed_box(coffee, edited.pixels) == (585, 390, 15, 10)
