"""How fast the review server opens a row: its JSON and both full-resolution images.

Builds DiCoBench (or reuses `--dir`), starts the review server on loopback and fetches
every row's `/api/row/ID` and `/image/ID/0?v=...`, `/image/ID/1?v=...` over HTTP, as the page does, then
prints the server's start-up (index) time and the median, 95th percentile and maximum time
to open one pair. Target: well under a second per pair for a 768-row build (per task 96).

    python benchmarks/bench_review.py [--per-task 96] [--dir BUILD]
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
import urllib.request
from pathlib import Path


def fetch(url: str) -> bytes:
    with urllib.request.urlopen(url, timeout=30) as r:
        return r.read()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--per-task", type=int, default=96)
    ap.add_argument("--num-proc", type=int, default=2)
    ap.add_argument("--dir", type=Path, help="an existing build (default: build one in a temporary folder)")
    args = ap.parse_args()
    from dicobench import build
    from dicobench.benchmark import BENCHMARK
    from dicobench.kit.people.webapp.launch import review

    with tempfile.TemporaryDirectory() as tmp:
        root = args.dir
        if root is None:
            root = Path(tmp) / "bench"
            t = time.perf_counter()
            build(root, per_task=args.per_task, num_proc=args.num_proc, progress=True)
            print(f"built {root} in {time.perf_counter() - t:.0f} s")
        t = time.perf_counter()
        server = review(BENCHMARK.people, root, port=0, background=True, announce=lambda line: None)
        startup = time.perf_counter() - t
        try:
            ids = [r["id"] for r in json.loads(fetch(server.url + "api/rows"))["rows"]]
            times, sizes = [], []
            for row_id in ids:
                t = time.perf_counter()
                version = json.loads(fetch(server.url + f"api/row/{row_id}"))["version"]
                size = sum(len(fetch(server.url + f"image/{row_id}/{i}?v={version}")) for i in (0, 1))
                times.append(time.perf_counter() - t)
                sizes.append(size)
        finally:
            server.stop()
    times.sort()
    print(f"{len(ids)} rows; server start (index) {startup:.2f} s; open a pair (row JSON + both PNGs, "
          f"mean {statistics.mean(sizes) / 2**20:.1f} MiB): median {1000 * statistics.median(times):.0f} ms, "
          f"p95 {1000 * times[int(0.95 * (len(times) - 1))]:.0f} ms, max {1000 * times[-1]:.0f} ms")


if __name__ == "__main__":
    main()
