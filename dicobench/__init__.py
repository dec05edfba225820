"""DiCoBench: generate, ship and score the multi-image fine-grained perception benchmark."""

from pathlib import Path

from dicobench.kit import __version__
from dicobench.kit.lazy import lazy_attributes
from dicobench.build import build  # eager: the submodule `dicobench.build` would otherwise shadow the function

# evaluate.load(METRIC) from any directory: the folder dicobench.kit.release.metric_modules ships
METRIC = str(Path(__file__).parent / "kit" / "release" / "evaluate_modules" / "dicobench_accuracy")

# The rest of the API loads on first use, so `import dicobench` and the worker processes of a build
# do not pay for scoring and evaluation (matplotlib, pandas, the Hub client) up front.
_LAZY = {"cameras": "dicobench.shots", "evaluate": "dicobench.evaluation", "prompt": "dicobench.prompting",
         "score": "dicobench.scoring", "score_predictions": "dicobench.results",
         "leaderboard": "dicobench.leaderboards",
         "Judge": "dicobench.kit.eval.judge", "Report": "dicobench.kit.eval.report",
         "write_report": "dicobench.kit.eval.report"}

__all__ = ["__version__", "METRIC", "Judge", "Report", "build", "cameras", "evaluate", "leaderboard", "prompt", "score",
           "score_predictions", "write_report"]


__getattr__ = lazy_attributes(__name__, _LAZY)
