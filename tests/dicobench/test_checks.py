import numpy as np
import pytest

from dicobench.checks import Reason, Rejected, check_difference_pair, check_options


def _pair(change_box=(10, 10, 20, 20), step=80):
    a = np.full((300, 400, 3), 100, np.uint8)
    b = a.copy()
    x, y, w, h = change_box
    b[y : y + h, x : x + w] += step
    return a, b


def test_accepts_a_visible_change_inside_its_cue():
    a, b = _pair()
    area = check_difference_pair(a, b, False, [{"image": 1, "bbox": [5, 5, 30, 30]}])
    assert area == pytest.approx(400 / 120000)


@pytest.mark.parametrize(
    "cues, box, step, reason",
    [
        ([{"image": 1, "bbox": [50, 50, 10, 10]}], (10, 10, 20, 20), 80, "change_outside_cues"),
        ([{"image": 1, "bbox": [0, 0, 100, 100]}], (0, 0, 100, 100), 80, "cue_too_large"),
        ([{"image": 1, "bbox": [5, 5, 30, 30]}], (10, 10, 20, 20), 3, "change_not_visible"),
        ([{"image": 1, "bbox": [5, 5, 30, 30]}], (0, 0, 0, 0), 80, "no_change"),
    ],
)
def test_rejects(cues, box, step, reason):
    a, b = _pair(box, step)
    with pytest.raises(Rejected) as err:
        check_difference_pair(a, b, False, cues)
    assert err.value.reason == Reason("check", reason)


def test_none_pairs_must_be_identical():
    a, b = _pair()
    assert check_difference_pair(a, a, True, []) == 0.0
    with pytest.raises(Rejected):
        check_difference_pair(a, b, True, [])


def test_option_checks():
    none = "There is no visible difference between the two images"
    check_options(["a", "b", "c", "d", none], ["x", "y", "z", "w"], none)
    with pytest.raises(Rejected):
        check_options(["a", "a", "c", "d", none], ["x", "y", "z", "w"], none)
    with pytest.raises(Rejected):
        check_options(["a", "b", "c", "d", none], ["x", "x", "z", "w"], none)
    check_options(["a", "b", "c", "d", none], ["x", "y", "y", "x"], none)  # paired distractors: two objects twice
    with pytest.raises(Rejected, match="subjects_not_balanced"):
        check_options(["a", "b", "c", "d", none], ["x", "x", "x", "w"], none)


@pytest.mark.parametrize("step, box", [(80, (10, 10, 20, 20)), (3, (10, 10, 20, 20)), (80, (0, 0, 0, 0))])
@pytest.mark.parametrize("cues", [[{"image": 1, "bbox": [5, 5, 30, 30]}], [{"image": 1, "bbox": [50, 50, 10, 10]}],
                                  [{"image": 1, "bbox": [0, 0, 200, 200]}]])
def test_the_part_of_a_pair_gives_the_whole_pairs_verdict(step, box, cues):
    from dicobench.checks import check_difference_pixels

    def verdict(*args, **kwargs):
        try:
            return check_difference_pixels(*args, **kwargs)
        except Rejected as rej:
            return rej.reason

    a, b = _pair(box, step)
    part = (4, 6, 40, 30)  # holds every changed pixel
    x, y, w, h = part
    whole = verdict(a, b, False, cues, within=part)
    assert verdict(a[y : y + h, x : x + w], b[y : y + h, x : x + w], False, cues, within=part,
                   size=(300, 400)) == whole


def test_differing_finds_every_changed_pixel_and_only_those():
    from dicobench.checks import differing

    rng = np.random.default_rng(0)
    a = rng.integers(0, 256, (120, 90, 3), dtype=np.uint8)
    assert differing(a, a.copy()) is None
    for _ in range(20):
        b = a.copy()
        ys, xs, chs = rng.integers(0, 120, 5), rng.integers(0, 90, 5), rng.integers(0, 3, 5)
        b[ys, xs, chs] ^= 1  # one channel of a few pixels
        mask, top, left = differing(a, b)
        whole = np.zeros(a.shape[:2], bool)
        whole[top : top + mask.shape[0], left : left + mask.shape[1]] = mask
        assert np.array_equal(whole, (a != b).any(axis=2))
        assert (top, left) == (ys.min(), xs.min()) and mask.shape == (ys.max() - top + 1, xs.max() - left + 1)
