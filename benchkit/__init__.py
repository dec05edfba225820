"""Shared parts of the dicobench toolkit: scene engine, writing, scoring helpers, clients."""

__version__ = "0.1.0"
