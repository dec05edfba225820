"""DiCoBench: generate, ship and score the multi-image fine-grained perception benchmark."""

from pathlib import Path

from dicobench.kit import __version__
from dicobench.kit.lazy import lazy_attributes
from dicobench.build_config import BuildConfig
from dicobench.build import build  # eager: the submodule `dicobench.build` would otherwise shadow the function

# evaluate.load(METRIC) from any directory: the folder dicobench.kit.release.metric_modules ships
METRIC = str(Path(__file__).parent / "kit" / "release" / "evaluate_modules" / "dicobench_accuracy")

# The rest of the API loads on first use, so `import dicobench` and the worker processes of a build
# do not pay for scoring and evaluation (matplotlib, pandas, the Hub client) up front.
_LAZY = {"cameras": "dicobench.shots", "evaluate": "dicobench.evaluation", "prompt": "dicobench.prompting",
         "score": "dicobench.scoring"}

__all__ = ["__version__", "METRIC", "BuildConfig", "build", "cameras", "evaluate", "leaderboard", "prompt", "score"]


__getattr__ = lazy_attributes(__name__, _LAZY)


def leaderboard(results, out, *, human=()):
    """The leaderboard of `results` (result folders or scores.json files) written to `out`, as the
    `leaderboard` command writes it: (the table, the files written)."""
    from dicobench.cli.leaderboard import make_leaderboard  # deferred: charts need matplotlib, scoring does not

    return make_leaderboard(results, out, human=human)
