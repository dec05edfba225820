"""The `dicobench` command: the subcommands DiCoBench's definition lists (`dicobench.benchmark`),
each module imported only when its command runs."""

from __future__ import annotations

import functools
import sys

from dicobench.benchmark import BENCHMARK
from dicobench.kit.cli.commands import benchmark_parser, run_benchmark

parser = functools.partial(benchmark_parser, BENCHMARK)  # every subcommand: the docs' CLI reference reads it
main = functools.partial(run_benchmark, BENCHMARK)  # main(argv=None) -> exit status

if __name__ == "__main__":
    sys.exit(main())
