"""DiCoBench: generate, ship and score the multi-image fine-grained perception benchmark."""

from benchkit import __version__
from benchkit.release.metric_modules import MODULES
from dicobench.build import build
from dicobench.evaluation import evaluate
from dicobench.prompting import prompt
from dicobench.scoring import score
from dicobench.shots import cameras

METRIC = str(MODULES / "dicobench_accuracy")  # evaluate.load(METRIC) from any directory

__all__ = ["__version__", "METRIC", "build", "cameras", "evaluate", "leaderboard", "prompt", "score"]


def leaderboard(results, out, *, human=()):
    """The leaderboard of `results` (result folders or scores.json files) written to `out`, as the
    `leaderboard` command writes it: (the table, the files written)."""
    from dicobench.cli.leaderboard import make_leaderboard  # deferred: charts need matplotlib, scoring does not

    return make_leaderboard(results, out, human=human)
