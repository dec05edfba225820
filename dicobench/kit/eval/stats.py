"""Confidence intervals for accuracies whose rows are correlated within clusters.

Rows built from the same base scene succeed or fail together, so resampling rows would give
intervals that are too narrow. We resample whole clusters (percentile cluster bootstrap),
seeded so that the same inputs always give the same interval.
"""

from __future__ import annotations

from typing import Hashable, Sequence

import numpy as np
from tqdm.auto import tqdm

# Resampled clusters held in memory at once: bounds memory for very large runs.
_CHUNK_CELLS = 4_000_000

MAX_N_BOOT = 1_000_000  # resamples: CIs stop changing long before; more only runs out of memory


def cluster_bootstrap_ci(
    values: Sequence[float],
    clusters: Sequence[Hashable] | None = None,
    *,
    confidence: float = 0.95,
    n_boot: int = 2000,
    seed: int = 0,
) -> tuple[float, float] | None:
    """Percentile interval of the mean of `values`, resampling clusters with replacement.

    Without `clusters` every row is its own cluster. None when there are no rows. A bootstrap
    that takes more than one chunk of resamples shows a progress bar where stderr is a terminal.
    """
    if not 1 <= n_boot <= MAX_N_BOOT:
        raise ValueError(f"n_boot must be between 1 and {MAX_N_BOOT:,}, not {n_boot}")
    y = np.asarray(values, dtype=np.float64)
    if y.size == 0:
        return None
    if clusters is None:
        sums, counts = y, np.ones_like(y)
    else:
        if len(clusters) != y.size:
            raise ValueError(f"clusters has {len(clusters)} entries for {y.size} values")
        _, group = np.unique(np.asarray([str(c) for c in clusters]), return_inverse=True)
        sums = np.bincount(group, weights=y)
        counts = np.bincount(group).astype(np.float64)
    g = sums.size
    rng = np.random.default_rng(seed)
    means = np.empty(n_boot)
    chunk = max(1, _CHUNK_CELLS // g)
    with tqdm(total=n_boot, desc=f"bootstrap ({g} clusters)", unit="resample", leave=False,
              disable=None if chunk < n_boot else True) as bar:  # None: shown where stderr is a terminal
        for start in range(0, n_boot, chunk):
            stop = min(n_boot, start + chunk)
            pick = rng.integers(0, g, size=(stop - start, g))
            means[start:stop] = sums[pick].sum(axis=1) / counts[pick].sum(axis=1)
            bar.update(stop - start)
    alpha = (1.0 - confidence) / 2.0
    low, high = np.quantile(means, [alpha, 1.0 - alpha])
    return float(low), float(high)
