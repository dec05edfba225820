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


def run_script(folder: Path, code: str) -> subprocess.CompletedProcess:
    """`code` run as a script file (the way spawned workers run the main module again), with a
    deadline: the failure this guards against is a build that never ends."""
    script = folder / "make.py"
    script.write_text(code)
    return subprocess.run([sys.executable, str(script)], cwd=folder, capture_output=True, text=True, timeout=120)


BUILD = ('dicobench.build("out", dicobench.BuildConfig(per_task=1, tasks=["attribute", "entity"], num_proc=2, '
         'progress=False))')


def test_a_script_that_builds_at_its_top_level_gets_one_error_naming_the_fix(tmp_path):
    proc = run_script(tmp_path, f"import dicobench\n\n{BUILD}\n")
    assert proc.returncode == 1
    assert proc.stderr.strip().splitlines()[-1] == (
        "dicobench.kit.errors.UserError: make.py:3 starts a build at the top level of the script, which every worker "
        'process runs again: put the call under `if __name__ == "__main__":` (or pass num_proc=1 to build without '
        "worker processes)")
    assert "RuntimeError" not in proc.stderr and not (tmp_path / "out").exists()  # refused before any worker started


def test_a_guarded_script_builds_with_workers(tmp_path):
    proc = run_script(tmp_path, f'import dicobench\n\n\ndef main():\n    {BUILD}\n\n\n'
                                'if __name__ == "__main__":\n    main()\n')
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert sorted(p.parent.name for p in (tmp_path / "out").glob("*/test-*.parquet")) == ["attribute", "entity"]


def test_workers_that_cannot_start_raise_instead_of_being_started_again(tmp_path):
    """However the main script fails when a worker runs it again, the build ends with one error."""
    code = ("import operator\nfrom dicobench.kit.engines.local import map_jobs\n\n"
            "if __name__ == '__main__':\n    print(list(map_jobs(operator.neg, [1, 2, 3], num_proc=2)))\n"
            "else:\n    raise SystemExit('not in a worker')\n")
    proc = run_script(tmp_path, code)
    assert proc.returncode == 1 and "UserError: a build worker process exited before finishing its job" in proc.stderr


def test_a_killed_worker_raises():
    """A worker that dies mid-job (here: exits) ends the build with the error (in a process of its
    own with a deadline: a plain multiprocessing Pool waits for the lost job forever)."""
    code = ("import os\nfrom dicobench.kit.engines.local import map_jobs\n"
            "list(map_jobs(os._exit, [3, 3, 3], num_proc=2))")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1 and "UserError: a build worker process exited before finishing its job" in proc.stderr
