"""MultipanelVQA: multipanel images of 2-8 subfigures and three question styles."""

from benchkit import __version__
from benchkit.release.metric_modules import MODULES
from multipanelvqa.build import build
from multipanelvqa.evaluation import evaluate
from multipanelvqa.prompting import prompt
from multipanelvqa.scoring import score

METRIC = str(MODULES / "multipanelvqa_accuracy")  # evaluate.load(METRIC) from any directory

__all__ = ["__version__", "METRIC", "build", "evaluate", "leaderboard", "prompt", "score"]


def leaderboard(results, out, *, human=()):
    """The leaderboard of `results` (result folders or scores.json files) written to `out`, as the
    `leaderboard` command writes it: (the table, the files written)."""
    from multipanelvqa.cli.leaderboard import make_leaderboard  # deferred: charts need matplotlib, scoring does not

    return make_leaderboard(results, out, human=human)
