"""MultipanelVQA: multipanel images of 2-8 subfigures and three question styles."""

from pathlib import Path

from dicobench.kit import __version__
from dicobench.kit.lazy import lazy_attributes
from multipanelvqa.build_config import BuildConfig
from multipanelvqa.build import build  # eager: the submodule `multipanelvqa.build` would otherwise shadow the function

# evaluate.load(METRIC) from any directory: the folder dicobench.kit.release.metric_modules ships
METRIC = str(Path(__file__).parent.parent / "dicobench" / "kit" / "release" / "evaluate_modules" / "multipanelvqa_accuracy")

# The rest of the API loads on first use (see dicobench/__init__.py).
_LAZY = {"evaluate": "multipanelvqa.evaluation", "prompt": "multipanelvqa.prompting", "score": "multipanelvqa.scoring"}

__all__ = ["__version__", "METRIC", "BuildConfig", "build", "evaluate", "leaderboard", "prompt", "score"]


__getattr__ = lazy_attributes(__name__, _LAZY)


def leaderboard(results, out, *, human=()):
    """The leaderboard of `results` (result folders or scores.json files) written to `out`, as the
    `leaderboard` command writes it: (the table, the files written)."""
    from multipanelvqa.cli.leaderboard import make_leaderboard  # deferred: charts need matplotlib, scoring does not

    return make_leaderboard(results, out, human=human)
