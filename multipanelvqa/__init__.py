"""MultipanelVQA: multipanel images of 2-8 subfigures and three question styles."""

from pathlib import Path

from dicobench.kit import __version__
from dicobench.kit.lazy import lazy_package
from dicobench.kit.registry import Ref

# evaluate.load(METRIC) from any directory: the folder dicobench.kit.release.metric_modules ships
METRIC = str(Path(__file__).parent.parent / "dicobench" / "kit" / "release" / "evaluate_modules"
             / "multipanelvqa_accuracy")

# The API loads on first use (see dicobench/__init__.py).
_LAZY = {
    "BuildConfig": Ref("multipanelvqa.build_config:BuildConfig"),
    "build": Ref("multipanelvqa.build:build"),
    "evaluate": Ref("multipanelvqa.evaluation:evaluate"),
    "prompt": Ref("multipanelvqa.prompting:prompt"),
    "score": Ref("multipanelvqa.scoring:score"),
    "score_predictions": Ref("multipanelvqa.results:score_predictions"),
    "leaderboard": Ref("multipanelvqa.leaderboards:leaderboard"),
    "Judge": Ref("dicobench.kit.eval.judge:Judge"),
    "Report": Ref("dicobench.kit.eval.report:Report"),
    "write_report": Ref("dicobench.kit.eval.report:write_report"),
}

__all__ = ["__version__", "METRIC", "BuildConfig", "Judge", "Report", "build", "evaluate", "leaderboard", "prompt",
           "score", "score_predictions", "write_report"]


lazy_package(__name__, _LAZY)
