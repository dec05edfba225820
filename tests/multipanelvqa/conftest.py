import pytest

from multipanelvqa.difficulty import HARD
from multipanelvqa.sources.procedural import procedural_set


@pytest.fixture(scope="session")
def hard_sets():
    """`hard` image sets of both procedural sources (the first four of each), and the first count
    set after them: which of a few sets ask counts moves whenever the catalogue's draws do."""
    sets = {(source, i): procedural_set(source, i, 0, difficulty=HARD)
            for source in ("procedural_edit", "procedural_scene") for i in range(4)}
    for i in range(4, 24):
        s = procedural_set("procedural_scene", i, 0, difficulty=HARD)
        if s.question.startswith("How many"):
            return {**sets, ("procedural_scene", i): s}
    pytest.fail("no count set among the first 24 procedural_scene sets")
