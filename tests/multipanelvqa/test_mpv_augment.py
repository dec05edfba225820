"""Augmentations: each changes the pixels it should and nothing else; positions survive."""

import numpy as np
import pytest
from PIL import Image

from multipanelvqa.composite import augment as A
from multipanelvqa.composite.compose import HEADER_HEIGHT, Composition, chessboard, render
from multipanelvqa.composite.layouts import generate_layouts
from multipanelvqa.composite.positions import caption_numbers, describe_positions
from multipanelvqa.schema import AUGMENTATIONS

COLOURS = [(200, 30, 30), (30, 160, 30), (30, 30, 200), (200, 200, 30), (120, 30, 160), (30, 160, 160), (90, 90, 90),
           (220, 120, 30)]
GREY = (128, 128, 128)


@pytest.fixture(scope="module")
def layouts():
    return generate_layouts(0)


def spec_of(layout):
    return Composition.of(layout, [Image.new("RGB", (120, 90), COLOURS[i]) for i in range(layout.num_panels)])


def answers_of(n):
    return ("red",) + ("blue",) * (n - 1)


def no_overlap_inside(boxes, size=1000):
    mask = np.zeros((size, size), int)
    for x, y, w, h in boxes:
        assert 0 <= x and 0 <= y and x + w <= size and y + h <= size
        mask[y : y + h, x : x + w] += 1
    return mask.max() <= 1


def test_enlarge_scales_uniformly_and_keeps_positions(layouts):
    for layout in layouts:
        spec = spec_of(layout)
        big = A.Enlarge(margin=20)(spec)
        assert no_overlap_inside(big.boxes)
        scales = {round(b[2] / a[2], 2) for a, b in zip(spec.boxes, big.boxes)}
        assert max(scales) - min(scales) <= 0.02 and min(scales) >= 1
        assert describe_positions(big.boxes) == describe_positions(layout.boxes)
        x0 = min(b[0] for b in layout.boxes)
        x1 = max(b[0] + b[2] for b in layout.boxes)
        y0 = min(b[1] for b in layout.boxes)
        y1 = max(b[1] + b[3] for b in layout.boxes)
        side = min(1000, max(x1 - x0, y1 - y0) + 40)
        assert min(scales) == pytest.approx(1000 / side, abs=0.02)
    two = A.Enlarge(margin=20)(spec_of(layouts[0]))
    assert two.boxes[0][2] > 1.5 * layouts[0].boxes[0][2], "a two-panel layout grows a lot"


def test_enlarge_pixels_match_crop_and_resize(layouts):
    layout = layouts[3]
    spec = spec_of(layout)
    enlarged = np.asarray(render(A.Enlarge(margin=20)(spec))).astype(int)
    x0 = min(b[0] for b in layout.boxes) - 20
    y0 = min(b[1] for b in layout.boxes) - 20
    x1 = max(b[0] + b[2] for b in layout.boxes) + 20
    y1 = max(b[1] + b[3] for b in layout.boxes) + 20
    side = max(x1 - x0, y1 - y0)
    left = min(max(0, (x0 + x1 - side) // 2), 1000 - side)
    top = min(max(0, (y0 + y1 - side) // 2), 1000 - side)
    reference = render(spec).crop((left, top, left + side, top + side)).resize((1000, 1000), Image.Resampling.NEAREST)
    differ = np.abs(enlarged - np.asarray(reference).astype(int)).sum(-1) > 0
    assert differ.mean() < 0.01, "only edge pixels may differ"


def test_chessboard_background_is_black_and_white(layouts):
    layout = layouts[150]
    img = np.asarray(render(A.Chessboard(square=50)(spec_of(layout))))
    mask = np.zeros((1000, 1000), bool)
    for x, y, w, h in layout.boxes:
        mask[y : y + h, x : x + w] = True
    bg = img[~mask]
    assert set(np.unique(bg)) == {0, 255}
    assert (bg == np.asarray(chessboard(1000, 50))[~mask]).all()
    assert 0.3 < (bg[:, 0] == 0).mean() < 0.7
    for i, (x, y, w, h) in enumerate(layout.boxes):
        assert (img[y : y + h, x : x + w] == COLOURS[i]).all()


def test_text_hint_writes_question_and_answers(layouts):
    layout = layouts[146]
    spec = spec_of(layout)
    hinted = A.TextHint("What color is the car?", answers_of(layout.num_panels))(spec)
    assert hinted.header == "What color is the car?" and hinted.hints == answers_of(layout.num_panels)
    assert no_overlap_inside(hinted.boxes)
    assert all(y >= HEADER_HEIGHT for _, y, _, _ in hinted.boxes), "the question covers no panel"
    assert describe_positions(hinted.boxes) == describe_positions(layout.boxes)
    img = np.asarray(render(hinted)).astype(int)
    band = img[:HEADER_HEIGHT]
    assert (band.sum(-1) < 150).sum() > 100, "question text in the header"
    for i, (x, y, w, h) in enumerate(hinted.boxes):
        bottom = img[y + h - h // 6 : y + h, x : x + w]
        assert (bottom.sum(-1) < 150).sum() > 20, "answer text on the panel"
        top = img[y : y + h // 2, x : x + w]
        assert (top == COLOURS[i]).all(), "the rest of the panel is untouched"
    with pytest.raises(ValueError):
        A.TextHint("q?", ("red",))(spec)


def test_captions_number_panels_in_reading_order(layouts):
    layout = layouts[146]
    spec = A.Captions()(spec_of(layout))
    assert spec.captions == tuple(str(n) for n in caption_numbers(layout.boxes))
    assert A.Captions(template="({n})")(spec_of(layout)).captions[0].startswith("(")
    img = np.asarray(render(spec)).astype(int)
    for x, y, w, h in layout.boxes:
        assert (img[y : y + h // 4, x : x + w // 4].sum(-1) < 150).sum() > 10


def test_low_similarity_replaces_all_but_the_target(layouts):
    layout = layouts[5]
    n = layout.num_panels
    op = A.LowSimilarity(tuple(Image.new("RGB", (50, 50), GREY) for _ in range(n - 1)), ("green",) * (n - 1), "red")
    img = np.asarray(render(op(spec_of(layout))))
    for i, (x, y, w, h) in enumerate(layout.boxes):
        assert (img[y : y + h, x : x + w] == (COLOURS[0] if i == 0 else GREY)).all()
    with pytest.raises(ValueError, match="target"):
        A.LowSimilarity(op.replacements, ("green",) * (n - 2) + (" Red",), "red")(spec_of(layout))
    with pytest.raises(ValueError):
        A.LowSimilarity(op.replacements[:1], ("green",), "red")(spec_of(layout))


def test_for_config_covers_every_synthetic_augmentation(layouts):
    layout = layouts[14]  # three panels: room to enlarge
    n = layout.num_panels
    spec = spec_of(layout)
    inputs = dict(
        question="What color is the car?",
        answers=answers_of(n),
        replacements=[Image.new("RGB", (8, 8), GREY)] * (n - 1),
        replacement_answers=["green"] * (n - 1),
    )
    base = np.asarray(render(spec))
    assert (np.asarray(render(A.for_config("original")(spec))) == base).all()
    for name in AUGMENTATIONS:
        out = render(A.for_config(name, **inputs)(spec))
        again = render(A.for_config(name, **inputs)(spec))
        assert out.tobytes() == again.tobytes(), name
        assert out.size == (1000, 1000) and out.tobytes() != base.tobytes(), name
    with pytest.raises(ValueError):
        A.for_config("text_hint")
    with pytest.raises(ValueError):
        A.for_config("real_world")


def test_sequential_applies_in_order(layouts):
    spec = spec_of(layouts[30])
    both = A.Sequential((A.Chessboard(square=25), A.Captions()))(spec)
    assert both.chessboard == 25 and len(both.captions) == layouts[30].num_panels
