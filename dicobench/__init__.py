"""DiCoBench: generate, ship and score the multi-image fine-grained perception benchmark."""

from pathlib import Path

from dicobench.kit import __version__
from dicobench.kit.lazy import lazy_package
from dicobench.kit.registry import Ref

# evaluate.load(METRIC) from any directory: the folder dicobench.kit.release.metric_modules ships
METRIC = str(Path(__file__).parent / "kit" / "release" / "evaluate_modules" / "dicobench_accuracy")

# The API loads on first use, so `import dicobench` (and with it `dicobench --help`) and the worker
# processes of a build do not pay for building, scoring and evaluation (numpy, pyarrow, matplotlib,
# pandas, the Hub client) up front.
_LAZY = {
    "BuildConfig": Ref("dicobench.build_config:BuildConfig"),
    "build": Ref("dicobench.build:build"),
    "cameras": Ref("dicobench.shots:cameras"),
    "evaluate": Ref("dicobench.evaluation:evaluate"),
    "prompt": Ref("dicobench.prompting:prompt"),
    "score": Ref("dicobench.scoring:score"),
    "score_predictions": Ref("dicobench.results:score_predictions"),
    "leaderboard": Ref("dicobench.leaderboards:leaderboard"),
    "Judge": Ref("dicobench.kit.eval.judge:Judge"),
    "Report": Ref("dicobench.kit.eval.report:Report"),
    "write_report": Ref("dicobench.kit.eval.report:write_report"),
}

__all__ = ["__version__", "METRIC", "BuildConfig", "Judge", "Report", "build", "cameras", "evaluate", "leaderboard",
           "prompt", "score", "score_predictions", "write_report"]


lazy_package(__name__, _LAZY)
