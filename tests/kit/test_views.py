"""The crop views of the resolution ablation: windows that hold the cues, keep the aspect ratio
and are the same for both images."""

import numpy as np
import pytest
from PIL import Image

from dicobench.kit.eval.views import CONTEXT, MIN_SCALE, apply_view, crop_box


def cue(x, y, w, h, image=0):
    return {"image": image, "bbox": [x, y, w, h], "label": "thing"}


def inside(box, size):
    return 0 <= box[0] < box[2] <= size[0] and 0 <= box[1] < box[3] <= size[1]


@pytest.mark.parametrize("size", [(2000, 1200), (1200, 1800)])
def test_window_holds_the_cue_with_the_image_aspect_and_context(size):
    c = cue(900, 500, 60, 50)
    left, top, right, bottom = box = crop_box(size, [c])
    assert inside(box, size)
    assert left <= 900 and top <= 500 and right >= 960 and bottom >= 550
    w, h = right - left, bottom - top
    assert w / size[0] == pytest.approx(h / size[1], abs=0.002)  # the resize back never distorts
    assert w >= MIN_SCALE * size[0] - 1 and w >= CONTEXT * 60 - 1 and h >= CONTEXT * 50 - 1
    assert abs((left + right) / 2 - 930) <= 1 and abs((top + bottom) / 2 - 525) <= 1  # centred on the cue


def test_window_slides_inside_at_the_border_and_grows_with_the_cues():
    size = (1600, 1000)
    corner = crop_box(size, [cue(1580, 980, 20, 20)])
    assert inside(corner, size) and corner[2:] == (1600, 1000)
    assert corner[2] - corner[0] == 400  # MIN_SCALE of the width, not shrunk by the border
    # a spatial-relation pair: the object sits elsewhere in each image; one window holds both
    apart = crop_box(size, [cue(100, 100, 50, 50, image=0), cue(700, 400, 50, 50, image=1)])
    assert apart[0] <= 100 and apart[1] <= 100 and apart[2] >= 750 and apart[3] >= 450
    assert crop_box(size, [cue(0, 0, 900, 100)]) == (0, 0, 1600, 1000)  # large cues: the whole image


def test_rows_without_cues_get_a_centred_window_of_the_typical_size():
    left, top, right, bottom = crop_box((2000, 1000), [])
    assert (right - left, bottom - top) == (500, 250)
    assert (left + right) / 2 == 1000 and (top + bottom) / 2 == 500


def test_views_crop_both_images_at_the_same_place():
    rng = np.random.default_rng(0)
    a = Image.fromarray(rng.integers(0, 256, (800, 1200, 3), dtype=np.uint8))
    b = Image.fromarray(np.asarray(a)[:, :, ::-1].copy())
    cues = [cue(600, 300, 40, 40), cue(600, 300, 40, 40, image=1)]
    full = apply_view([a, b], cues, "full")
    assert full[0] is a and full[1] is b
    crop_a, crop_b = apply_view([a, b], cues, "crop")
    box = crop_box(a.size, cues)
    assert crop_a.size == (box[2] - box[0], box[3] - box[1]) == crop_b.size
    assert np.array_equal(np.asarray(crop_a), np.asarray(a)[box[1]:box[3], box[0]:box[2]])
    assert np.array_equal(np.asarray(crop_b), np.asarray(crop_a)[:, :, ::-1])
    resized = apply_view([a, b], cues, "crop-resize")
    assert [r.size for r in resized] == [a.size, b.size]
    with pytest.raises(ValueError, match="unknown view"):
        apply_view([a, b], cues, "zoom")
