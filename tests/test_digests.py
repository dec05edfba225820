"""Same bytes out: small builds over every generation path give the rows recorded in
tests/fixtures/digests/ (see tests/digests.py for the cases and how to rewrite a fixture when a
change is meant to alter what builds write)."""

import digests
import pytest

SLOW = {"model_edited", "ray"}
NEEDS = {"photos": ("cv2", "skimage"), "model_edited": ("cv2", "skimage", "diffusers"), "ray": ("ray", "ray.data")}


@pytest.mark.parametrize("case", [pytest.param(c, marks=pytest.mark.slow) if c in SLOW else c for c in digests.CASES])
def test_builds_write_the_recorded_rows(case, tmp_path):
    for module in NEEDS.get(case, ()):
        pytest.importorskip(module)
    expected = digests.fixture(case)
    got = digests.CASES[case](tmp_path)
    assert sorted(got) == sorted(expected)
    for config in expected:
        assert got[config]["sidecars"] == expected[config]["sidecars"], config
        assert list(got[config]["rows"]) == list(expected[config]["rows"]), config
        changed = [i for i, d in expected[config]["rows"].items() if got[config]["rows"][i] != d]
        assert not changed, f"{config}: rows {changed[:5]} differ from the fixture"
