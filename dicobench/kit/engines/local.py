"""Where shard jobs run: worker processes on this machine, or a Ray cluster.

A build is a list of independent shard jobs (`fn(job) -> stats`, `fn` generating and writing
one shard), so both engines only distribute jobs; neither knows what a shard contains, and
the same job gives the same bytes on either.
"""

from __future__ import annotations

import ast
import ctypes
import multiprocessing as mp
import os
import platform
import sys
from concurrent.futures import ProcessPoolExecutor, as_completed
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from types import FrameType
from typing import Callable, Iterator, Literal, Sequence, TypeVar, get_args

from dicobench.kit.errors import UserError

Engine = Literal["local", "ray"]  # where shard jobs run: the one definition of the engine names
ENGINES: tuple[Engine, ...] = get_args(Engine)
J = TypeVar("J")
R = TypeVar("R")


def check_engine(engine: str, ray_address: str | None) -> None:
    """Refuse bad engine options before any work starts (and say how to get Ray)."""
    if engine not in ENGINES:
        raise UserError(f"unknown engine {engine!r}; expected one of {', '.join(ENGINES)}")
    if ray_address is not None and engine != "ray":
        raise UserError("--ray-address needs --engine ray")
    if engine == "ray":
        from dicobench.kit.engines.ray_data import require_ray

        require_ray()


def map_jobs(
    fn: Callable[[J], R],
    jobs: Sequence[J],
    *,
    engine: Engine = "local",
    num_proc: int | None = None,
    ray_address: str | None = None,
) -> Iterator[R]:
    """`fn` over `jobs`, results in completion order. `fn` must be a module-level function
    (it is pickled by name). Local: a spawn pool of `num_proc` processes (in-process when 1);
    Ray: one Ray Data task per job on the cluster at `ray_address` (or a local one)."""
    if not jobs:
        return
    check_engine(engine, ray_address)
    if engine == "ray":
        from dicobench.kit.engines.ray_data import ray_map

        yield from ray_map(fn, jobs, address=ray_address, num_cpus=num_proc)
        return
    procs = min(num_proc or os.cpu_count() or 1, len(jobs))
    if procs <= 1:
        yield from map(fn, jobs)
        return
    yield from _in_workers(fn, jobs, procs)


GUARD_FIX = 'put the call under `if __name__ == "__main__":` (or pass num_proc=1 to build without worker processes)'


def _in_workers(fn: Callable[[J], R], jobs: Sequence[J], procs: int) -> Iterator[R]:
    """`fn` over `jobs` in `procs` spawned processes. A worker that dies (it could not start, or it
    was killed) breaks the pool and raises here: a plain `multiprocessing.Pool` would start
    another worker, and another, forever. On any exit before the end, the workers are stopped."""
    refuse_unguarded_main()
    before = set(mp.active_children())
    pool = ProcessPoolExecutor(procs, mp_context=mp.get_context("spawn"), initializer=keep_freed_memory)
    finished = False
    try:
        futures = [pool.submit(fn, job) for job in jobs]
        for future in as_completed(futures):
            yield future.result()
        finished = True
    except BrokenProcessPool:
        raise UserError("a build worker process exited before finishing its job (killed, out of memory, or it could "
                        f"not start: in a script, {GUARD_FIX})") from None
    finally:
        pool.shutdown(wait=finished, cancel_futures=True)
        if not finished:
            stopped = set(mp.active_children()) - before  # the pool's (a Pool's terminate(), by public means)
            for worker in stopped:
                worker.terminate()
            for worker in stopped:  # gone before the caller cleans up after them
                worker.join(timeout=10)


def refuse_unguarded_main() -> None:
    """Refuse to spawn workers from a top-level statement of the main script that is not under
    `if __name__ == "__main__":`. Every spawned worker runs the main script again (as
    `__mp_main__`); that statement would start a build again inside the worker, which fails while
    the worker starts."""
    frame = _main_frame()
    if frame is None or not _rerun_in_workers():
        return
    path, line = frame.f_code.co_filename, frame.f_lineno
    try:
        tree = ast.parse(Path(path).read_text(encoding="utf-8"))
    except (OSError, SyntaxError, ValueError):
        return  # not a file Python can run again: the workers will not run it either
    statement = next((s for s in tree.body if s.lineno <= line <= (s.end_lineno or s.lineno)), None)
    if statement is not None and not _guarded(statement, line):
        raise UserError(f"{Path(path).name}:{line} starts a build at the top level of the script, which every worker "
                        f"process runs again: {GUARD_FIX}")


def _main_frame() -> FrameType | None:
    """The frame of the main script's top-level code on the current stack, if any."""
    frame = sys._getframe(1)
    while frame is not None and not (frame.f_code.co_name == "<module>"
                                     and frame.f_globals.get("__name__") == "__main__"):
        frame = frame.f_back
    return frame


def _rerun_in_workers() -> bool:
    """Whether spawned workers run the main module again: a script file or `python -m module`,
    but not `python -c`, standard input, an interactive session or a package's `__main__`
    (multiprocessing.spawn's own rules)."""
    main = sys.modules.get("__main__")
    name = getattr(getattr(main, "__spec__", None), "name", None)
    if name is not None:
        return not (name == "__main__" or name.endswith(".__main__"))
    path = getattr(main, "__file__", None)
    return path is not None and os.path.splitext(os.path.basename(path))[0] != "ipython"


def _guarded(statement: ast.stmt, line: int) -> bool:
    """Whether `line` lies in the body of `statement` when that is `if __name__ == "__main__":`."""
    if not isinstance(statement, ast.If) or not isinstance(statement.test, ast.Compare):
        return False
    sides = [statement.test.left, *statement.test.comparators]
    names = {s.id for s in sides if isinstance(s, ast.Name)} | {s.value for s in sides if isinstance(s, ast.Constant)}
    if not (names == {"__name__", "__main__"} and isinstance(statement.test.ops[0], ast.Eq)):
        return False
    return any(s.lineno <= line <= (s.end_lineno or s.lineno) for s in statement.body)


# glibc's mallopt parameters and the values a build worker takes
M_TRIM_THRESHOLD, M_MMAP_THRESHOLD = -1, -3
MMAP_THRESHOLD = 32 << 20  # the most glibc allows: a 2K image's arrays (8-25 MB) come from the heap
TRIM_THRESHOLD = 256 << 20  # free memory the heap keeps before giving any back


def keep_freed_memory() -> None:
    """Let a build worker reuse the memory a row frees. A row allocates and frees a few dozen
    8-25 MB image arrays; glibc maps the first ones fresh and, once its threshold has risen, hands
    them out from the heap but trims the heap back to the system whenever enough is free, so image
    after image is faulted in page by page again (about 11,000 page faults and 0.03 CPU s a `hard`
    row, 5% of its time). With a fixed threshold and a heap kept up to 256 MiB they are reused, and
    the peak memory is the same. Spawned workers only (never the caller's process); a no-op
    except on glibc (Linux)."""
    if not sys.platform.startswith("linux") or platform.libc_ver()[0] != "glibc":
        return
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return
    mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD)
    mallopt(M_TRIM_THRESHOLD, TRIM_THRESHOLD)
