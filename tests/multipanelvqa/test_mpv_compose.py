"""Composition geometry: panels land exactly in their boxes, background, captions, fonts."""

import io

import numpy as np
import pytest
from PIL import Image, ImageFont

from multipanelvqa.composite.compose import Composition, chessboard, compose, fit_font, render, transform_boxes
from multipanelvqa.composite.layouts import Layout, generate_layouts

COLOURS = [(200, 30, 30), (30, 160, 30), (30, 30, 200), (200, 200, 30), (120, 30, 160), (30, 160, 160), (90, 90, 90),
           (220, 120, 30)]


def solid(i, size=(160, 120)):
    return Image.new("RGB", size, COLOURS[i])


def panel_mask(boxes, size=1000):
    mask = np.zeros((size, size), bool)
    for x, y, w, h in boxes:
        mask[y : y + h, x : x + w] = True
    return mask


@pytest.fixture(scope="module")
def layouts():
    return generate_layouts(0)


@pytest.mark.parametrize("lid", [6, 76, 146])
def test_panels_fill_exactly_their_boxes(layouts, lid):
    layout = layouts[lid]
    img = compose(layout, [solid(i) for i in range(layout.num_panels)])
    assert img.size == (1000, 1000) and img.mode == "RGB"
    a = np.asarray(img)
    for i, (x, y, w, h) in enumerate(layout.boxes):
        assert (a[y : y + h, x : x + w] == COLOURS[i]).all()
    assert (a[~panel_mask(layout.boxes)] == 255).all(), "white background elsewhere"


def test_panels_are_centre_cropped_not_stretched():
    # Three vertical stripes; a square box keeps the middle one.
    stripes = Image.new("RGB", (300, 100), (255, 0, 0))
    stripes.paste((0, 255, 0), (100, 0, 200, 100))
    stripes.paste((0, 0, 255), (200, 0, 300, 100))
    img = compose(Layout(0, "splash", ((100, 100, 200, 200), (400, 100, 200, 200))), [stripes, solid(0)])
    centre = np.asarray(img)[110:290, 110:290].astype(int)
    assert np.abs(centre - (0, 255, 0)).max() <= 2


def test_render_is_deterministic_bytes(layouts):
    layout = layouts[100]
    spec = Composition.of(layout, [solid(i) for i in range(layout.num_panels)])

    def png(im):
        buf = io.BytesIO()
        im.save(buf, format="PNG")
        return buf.getvalue()

    assert png(render(spec)) == png(render(spec))


def test_chessboard_pattern():
    a = np.asarray(chessboard(1000, 50))[..., 0]
    assert set(np.unique(a)) == {0, 255}
    assert a[0, 0] == 255 and a[0, 50] == 0 and a[50, 0] == 0 and a[50, 50] == 255
    assert a[49, 49] == 255 and a[0, 999] == 0
    assert (a == 0).mean() == pytest.approx(0.5)
    with pytest.raises(ValueError):
        chessboard(100, 0)


def test_compose_on_chessboard_keeps_panels(layouts):
    layout = layouts[10]
    a = np.asarray(compose(layout, [solid(i) for i in range(layout.num_panels)], chessboard=40))
    expected = np.asarray(chessboard(1000, 40))
    outside = ~panel_mask(layout.boxes)
    assert (a[outside] == expected[outside]).all()
    for i, (x, y, w, h) in enumerate(layout.boxes):
        assert (a[y : y + h, x : x + w] == COLOURS[i]).all()


def test_captions_drawn_inside_their_panel_corner(layouts):
    layout = layouts[76]
    panels = [solid(i) for i in range(layout.num_panels)]
    plain = np.asarray(compose(layout, panels)).astype(int)
    marked = np.asarray(compose(layout, panels, captions=[str(i + 1) for i in range(layout.num_panels)])).astype(int)
    changed = np.abs(plain - marked).sum(-1) > 0
    assert not changed[~panel_mask(layout.boxes)].any(), "marks stay inside the panels"
    for x, y, w, h in layout.boxes:
        corner = marked[y : y + h // 3, x : x + w // 3]
        assert (corner == 255).all(-1).sum() > 50, "white label box"
        assert (corner.sum(-1) < 150).sum() > 10, "dark digits"
        assert not changed[y + h // 2 :, x + w // 2 : x + w].any(), "rest of the panel untouched"


def test_length_mismatch_is_an_error(layouts):
    with pytest.raises(ValueError):
        compose(layouts[0], [solid(0)])
    with pytest.raises(ValueError):
        compose(layouts[0], [solid(0), solid(1)], captions=["1"])


def test_offline_font_fits_or_refuses():
    f = fit_font("12", 100, 30)
    assert isinstance(f, ImageFont.FreeTypeFont) and f.size == 30
    small = fit_font("a fairly long answer", 120, 40)
    left, _, right, _ = small.getbbox("a fairly long answer")
    assert right - left <= 120 and small.size < 40
    with pytest.raises(ValueError):
        fit_font("x" * 200, 50, 20)


def test_transform_boxes_keeps_touching_edges():
    boxes = [(100, 100, 203, 203), (303, 100, 203, 203), (100, 303, 406, 406)]
    out = transform_boxes(boxes, (90, 90, 430, 430), (0, 0, 1000, 1000))
    assert out[0][0] + out[0][2] == out[1][0]
    assert out[0][1] + out[0][3] == out[2][1]
    with pytest.raises(ValueError):
        transform_boxes(boxes, (0, 0, 10, 20), (0, 0, 10, 10))
