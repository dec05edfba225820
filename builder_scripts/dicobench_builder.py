"""`from builder_scripts.dicobench_builder import DiCoBench` (from a checkout): `dicobench.datasets_builder`'s."""

from dicobench.datasets_builder import DiCoBench, DiCoBenchConfig

__all__ = ["DiCoBench", "DiCoBenchConfig"]
