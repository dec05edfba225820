"""Where shard jobs run: worker processes on this machine, or a Ray cluster.

A build is a list of independent shard jobs (`fn(job) -> stats`, `fn` generating and writing
one shard), so both engines only distribute jobs; neither knows what a shard contains, and
the same job gives the same bytes on either.
"""

from __future__ import annotations

import ctypes
import multiprocessing as mp
import os
import platform
import sys
from typing import Callable, Iterator, Sequence, TypeVar

from dicobench.kit.errors import UserError

ENGINES = ("local", "ray")
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
    engine: str = "local",
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
    with mp.get_context("spawn").Pool(procs, initializer=keep_freed_memory) as pool:
        yield from pool.imap_unordered(fn, jobs, chunksize=1)


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
