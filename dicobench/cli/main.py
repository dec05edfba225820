"""The `dicobench` command: the subcommands DiCoBench's definition lists (`dicobench.benchmark`),
each module imported only when its command runs."""

from __future__ import annotations

import sys

from dicobench.benchmark import BENCHMARK
from dicobench.kit.cli.commands import benchmark_parser, run_benchmark


def parser():
    """The `dicobench` parser with every subcommand (the docs' CLI reference is generated from it)."""
    return benchmark_parser(BENCHMARK)


def main(argv=None) -> int:
    return run_benchmark(BENCHMARK, argv)


if __name__ == "__main__":
    sys.exit(main())
