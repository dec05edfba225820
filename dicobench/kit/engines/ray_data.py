"""The Ray engine: Ray Data maps a shard function over shard jobs on a Ray cluster.

Ray does the scheduling, retries after lost workers and spreading over nodes; each job
writes its own shard (the same atomic writer as the local engine, so names, bytes and
sidecar stats match), and only the small stats come back to the driver. Jobs travel
pickled, so any picklable job and module-level function work.
"""

from __future__ import annotations

import contextlib
import logging
import pickle
from typing import Callable, Iterator, Sequence

from dicobench.kit.errors import UserError, first_line

INSTALL = "--engine ray needs Ray Data: pip install 'dicobench[scale]' (or pip install 'ray[data]')"


def require_ray():
    try:
        import ray
        import ray.data  # noqa: F401  (ray without the data extra lacks it)
    except ImportError:
        raise UserError(INSTALL) from None
    return ray


@contextlib.contextmanager
def _connected(address: str | None, num_cpus: int | None):
    """Use the running Ray session, or join `address` (a cluster, e.g. auto or ray://host:port),
    or start a local Ray with `num_cpus`; shut down only what was started here."""
    ray = require_ray()
    if ray.is_initialized():
        yield ray
        return
    try:
        if address is None:
            ray.init(num_cpus=num_cpus, include_dashboard=False, logging_level=logging.WARNING)
        else:
            ray.init(address=address, logging_level=logging.WARNING)
    except (ConnectionError, ValueError, RuntimeError) as exc:
        raise UserError(f"cannot connect to Ray at {address or 'a new local instance'}: {first_line(exc)}") from None
    try:
        yield ray
    finally:
        ray.shutdown()


class _Apply:
    """The Ray Data row function: unpickle a job, run it, pickle its result. A UserError
    comes back as a value: Ray would wrap it in its own exception and lose its type."""

    def __init__(self, fn: Callable):
        self.fn = fn

    def __call__(self, row: dict) -> dict:
        try:
            return {"result": pickle.dumps(self.fn(pickle.loads(row["job"]))), "error": None}
        except UserError as exc:
            return {"result": None, "error": str(exc)}


def ray_map(fn: Callable, jobs: Sequence, *, address: str | None = None, num_cpus: int | None = None) -> Iterator:
    """`fn` over `jobs` with Ray Data, one block (task) per job, one CPU each; results as done."""
    with _connected(address, num_cpus) as ray:
        context = ray.data.DataContext.get_current()
        context.enable_progress_bars = False  # the build shows its own bar
        context.print_on_execution_start = False
        items = [{"job": pickle.dumps(job)} for job in jobs]
        dataset = ray.data.from_items(items, override_num_blocks=len(items)).map(_Apply(fn), num_cpus=1)
        for row in dataset.iter_rows():
            if row["error"] is not None:
                raise UserError(row["error"])
            yield pickle.loads(row["result"])
