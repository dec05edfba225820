"""Shared parts of the dicobench toolkit: scene engine, writing, scoring helpers, clients."""

__version__ = "0.1.0"

from dicobench.kit.eval.extract import extract_choice  # noqa: E402

__all__ = ["__version__", "extract_choice"]
