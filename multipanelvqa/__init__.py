"""MultipanelVQA: multipanel images of 2-8 subfigures and three question styles."""

from benchkit import __version__
from benchkit.metric_modules import MODULES
from multipanelvqa.build import build
from multipanelvqa.prompting import prompt
from multipanelvqa.scoring import score

METRIC = str(MODULES / "multipanelvqa_accuracy")  # evaluate.load(METRIC) from any directory

__all__ = ["__version__", "METRIC", "build", "prompt", "score"]
