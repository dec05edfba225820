"""The local engine's worker processes."""

import subprocess
import sys
import textwrap

import pytest

from dicobench.kit.engines.local import map_jobs

FAULTS = textwrap.dedent("""
    import resource, sys
    import numpy as np
    if sys.argv[1] == "kept":
        from dicobench.kit.engines.local import keep_freed_memory
        keep_freed_memory()
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    for _ in range(10):  # rows: a few images held at once, then all freed
        images = [np.ones((2048, 1366, 3), np.uint8) for _ in range(5)]
        del images
    print(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before)
""")


def _square(x: int) -> int:
    return x * x


def test_workers_give_every_result():
    assert sorted(map_jobs(_square, list(range(7)), num_proc=2)) == [x * x for x in range(7)]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's allocator")
def test_kept_memory_is_reused_not_faulted_in_again():
    faults = {mode: int(subprocess.run([sys.executable, "-c", FAULTS, mode], capture_output=True, text=True,
                                       check=True).stdout) for mode in ("default", "kept")}
    # each 8 MiB image is about 2,000 pages: faulted in anew row after row by default, reused once kept
    assert faults["default"] > 15_000 and faults["kept"] < faults["default"] / 4
