"""DiCoBench: generate, ship and score the multi-image fine-grained perception benchmark."""

from pathlib import Path

from dicobench.kit import __version__
from dicobench.kit.lazy import lazy_package

# evaluate.load(METRIC) from any directory: the folder dicobench.kit.release.metric_modules ships
METRIC = str(Path(__file__).parent / "kit" / "release" / "evaluate_modules" / "dicobench_accuracy")

# The API loads on first use, so `import dicobench` (and with it `dicobench --help`) and the worker
# processes of a build do not pay for building, scoring and evaluation (numpy, pyarrow, matplotlib,
# pandas, the Hub client) up front.
_LAZY = {"BuildConfig": "dicobench.build_config", "build": "dicobench.build", "cameras": "dicobench.shots",
         "evaluate": "dicobench.evaluation", "prompt": "dicobench.prompting", "score": "dicobench.scoring",
         "score_predictions": "dicobench.results",
         "leaderboard": "dicobench.leaderboards", "Judge": "dicobench.kit.eval.judge",
         "Report": "dicobench.kit.eval.report", "write_report": "dicobench.kit.eval.report"}

__all__ = ["__version__", "METRIC", "BuildConfig", "Judge", "Report", "build", "cameras", "evaluate", "leaderboard",
           "prompt", "score", "score_predictions", "write_report"]


lazy_package(__name__, _LAZY)
