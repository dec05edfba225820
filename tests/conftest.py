import numpy as np
import pytest

from dicobench.build import build


@pytest.fixture(scope="session")
def small_build(tmp_path_factory):
    """A tiny DiCoBench build shared by the tests that only read it (2 rows per task)."""
    out = tmp_path_factory.mktemp("dicobench") / "bench"
    build(out, per_task=2, seed=0, num_proc=1, progress=False)
    return out


@pytest.fixture
def rng():
    return np.random.default_rng(1234)
