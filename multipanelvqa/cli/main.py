"""The `multipanelvqa` command: the subcommands MultipanelVQA's definition lists
(`multipanelvqa.benchmark`), each module imported only when its command runs."""

from __future__ import annotations

import sys

from dicobench.kit.cli.commands import benchmark_parser, run_benchmark
from multipanelvqa.benchmark import BENCHMARK


def parser():
    """The `multipanelvqa` parser with every subcommand (the docs' CLI reference is generated from it)."""
    return benchmark_parser(BENCHMARK)


def main(argv=None) -> int:
    return run_benchmark(BENCHMARK, argv)


if __name__ == "__main__":
    sys.exit(main())
