"""The local engine's worker processes."""

import platform
import resource
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from dicobench.kit.engines.local import map_jobs

ROWS, IMAGES, SHAPE = 10, 5, (2048, 1366, 3)  # rows of a few 8 MiB images held at once, then all freed


def _row_faults(_: int = 0) -> int:
    """Page faults while allocating, writing and freeing ROWS rows of images."""
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    for _ in range(ROWS):
        images = [np.ones(SHAPE, np.uint8) for _ in range(IMAGES)]
        del images
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before


def _square(x: int) -> int:
    return x * x


def test_workers_give_every_result():
    assert sorted(map_jobs(_square, list(range(7)), num_proc=2)) == [x * x for x in range(7)]


@pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="glibc's allocator")
def test_workers_reuse_the_memory_rows_free():
    code = "import sys; sys.path.insert(0, sys.argv[1]); import test_local_engine as t; print(t._row_faults())"
    plain = int(subprocess.run([sys.executable, "-c", code, str(Path(__file__).parent)],
                               capture_output=True, text=True, check=True).stdout)
    pages = ROWS * IMAGES * np.prod(SHAPE) // resource.getpagesize()
    if plain < pages / 10:
        pytest.skip("this system does not fault freed images in again (huge or large pages)")
    in_workers = list(map_jobs(_row_faults, [0, 1], num_proc=2))
    assert max(in_workers) < plain / 4  # the first row's pages, then the same memory again
