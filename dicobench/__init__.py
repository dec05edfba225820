"""DiCoBench: generate, ship and score the multi-image fine-grained perception benchmark."""

from benchkit import __version__
from dicobench.build import build
from dicobench.evaluation import evaluate
from dicobench.prompting import prompt
from dicobench.scoring import score

__all__ = ["__version__", "build", "evaluate", "prompt", "score"]
