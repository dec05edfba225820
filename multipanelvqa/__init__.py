"""MultipanelVQA: multipanel images of 2-8 subfigures and three question styles."""

from pathlib import Path

from dicobench.kit import __version__
from dicobench.kit.lazy import lazy_attributes
from multipanelvqa.build import build  # eager: the submodule `multipanelvqa.build` would otherwise shadow the function

# evaluate.load(METRIC) from any directory: the folder dicobench.kit.release.metric_modules ships
METRIC = str(Path(__file__).parent.parent / "dicobench" / "kit" / "release" / "evaluate_modules" / "multipanelvqa_accuracy")

# The rest of the API loads on first use (see dicobench/__init__.py).
_LAZY = {"evaluate": "multipanelvqa.evaluation", "prompt": "multipanelvqa.prompting", "score": "multipanelvqa.scoring",
         "score_predictions": "multipanelvqa.results", "leaderboard": "multipanelvqa.leaderboards",
         "Judge": "dicobench.kit.eval.judge", "Report": "dicobench.kit.eval.report",
         "write_report": "dicobench.kit.eval.report"}

__all__ = ["__version__", "METRIC", "Judge", "Report", "build", "evaluate", "leaderboard", "prompt", "score",
           "score_predictions", "write_report"]


__getattr__ = lazy_attributes(__name__, _LAZY)
