"""MultipanelVQA: multipanel images of 2-8 subfigures and three question styles."""

from pathlib import Path

from dicobench.kit import __version__
from dicobench.kit.lazy import lazy_package

# evaluate.load(METRIC) from any directory: the folder dicobench.kit.release.metric_modules ships
METRIC = str(Path(__file__).parent.parent / "dicobench" / "kit" / "release" / "evaluate_modules" / "multipanelvqa_accuracy")

# The API loads on first use (see dicobench/__init__.py).
_LAZY = {"BuildConfig": "multipanelvqa.build_config", "build": "multipanelvqa.build",
         "evaluate": "multipanelvqa.evaluation", "prompt": "multipanelvqa.prompting", "score": "multipanelvqa.scoring", "score_predictions": "multipanelvqa.results",
         "leaderboard": "multipanelvqa.leaderboards", "Judge": "dicobench.kit.eval.judge",
         "Report": "dicobench.kit.eval.report", "write_report": "dicobench.kit.eval.report"}

__all__ = ["__version__", "METRIC", "BuildConfig", "Judge", "Report", "build", "evaluate", "leaderboard", "prompt",
           "score", "score_predictions", "write_report"]


lazy_package(__name__, _LAZY)
