"""MultipanelVQA: multipanel images of 2-8 subfigures and three question styles."""

from benchkit import __version__
from multipanelvqa.scoring import score

__all__ = ["__version__", "score"]
