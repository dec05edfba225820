"""How long the commands take to answer `--help` and `--version`, against starting Python itself.

Runs each command line in a fresh interpreter (`sys.executable`, so the checkout's packages as
this one imports them), `--repeat` times, and keeps the best wall-clock time (the least
disturbed by other jobs on the machine): `python -c pass` (the baseline, in the same run),
`import dicobench`, `dicobench --help`, `dicobench --version`, `multipanelvqa --help` and
`multipanelvqa --version` (each through its console script's `main`). Prints the seconds of
each, the ratio to the baseline and the time above it (what the command itself costs). Run it
from the checkout's root: `python -c` imports the packages from the current folder.

    python benchmarks/bench_startup.py [--repeat 10]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time

CASES = {
    "python -c pass": "pass",
    "import dicobench": "import dicobench",
    "dicobench --help": "from dicobench.cli.main import main; main(['--help'])",
    "dicobench --version": "from dicobench.cli.main import main; main(['--version'])",
    "multipanelvqa --help": "from multipanelvqa.cli.main import main; main(['--help'])",
    "multipanelvqa --version": "from multipanelvqa.cli.main import main; main(['--version'])",
}


def best_time(code: str, repeat: int) -> float:
    """The fastest of `repeat` runs of `python -c code`, in seconds (a nonzero exit is an error;
    `--help` and `--version` exit 0)."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        subprocess.run([sys.executable, "-c", code], check=True, stdout=subprocess.DEVNULL)
        times.append(time.perf_counter() - start)
    return min(times)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=10, help="runs of each command line; the best is kept")
    args = parser.parse_args(argv)
    figures = {name: best_time(code, args.repeat) for name, code in CASES.items()}
    baseline = figures["python -c pass"]
    print(f"best of {args.repeat} runs each, in a fresh interpreter")
    print(f"{'command':<26}{'seconds':>9}{'x baseline':>12}{'above it (s)':>14}")
    for name, seconds in figures.items():
        print(f"{name:<26}{seconds:>9.3f}{seconds / baseline:>12.1f}{seconds - baseline:>14.3f}")


if __name__ == "__main__":
    main()
