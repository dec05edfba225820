"""MultipanelVQA: multipanel images of 2-8 subfigures and three question styles."""

from benchkit import __version__
from multipanelvqa.build import build
from multipanelvqa.evaluation import evaluate
from multipanelvqa.prompting import prompt
from multipanelvqa.scoring import score

__all__ = ["__version__", "build", "evaluate", "prompt", "score"]
