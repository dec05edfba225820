"""DiCoBench: generate, ship and score the multi-image fine-grained perception benchmark."""

from benchkit import __version__
from benchkit.metric_modules import MODULES
from dicobench.build import build
from dicobench.prompting import prompt
from dicobench.scoring import score

METRIC = str(MODULES / "dicobench_accuracy")  # evaluate.load(METRIC) from any directory

__all__ = ["__version__", "METRIC", "build", "prompt", "score"]
