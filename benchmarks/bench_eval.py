"""Evaluation throughput: how close the runners come to the limit their backend sets.

OpenAI-compatible runner: a 127.0.0.1 stub server (its own process) answers each request after a
seeded random latency (0.2-1.0 s). With `concurrency` requests always in flight the best wall
time is sum(latencies) / concurrency; the script prints the measured wall time, that ideal,
their ratio (target <= 1.25) and the CPU milliseconds per row spent preparing payloads (PNG
bytes and base64, in the payload threads), with the floor of any in-order schedule of those
latencies (requests sent in row order, each to the first free slot). Transformers runner: a
tiny random LLaVA answers the same rows; the script prints the share of wall time generation
waited for its next batch, with background preprocessing and batch after batch.

Run: python benchmarks/bench_eval.py [--rows 200] [--dataset BUILD_DIR]
(without --dataset a DiCoBench build of 8 rows is made and its rows are cycled).
"""

from __future__ import annotations

import argparse
import heapq
import multiprocessing
import random
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from dicobench.kit.eval.evaluation import interleave  # noqa: E402
from dicobench.kit.eval.runners import load_runner  # noqa: E402
from dicobench.kit.io.lazy_images import open_image  # noqa: E402
from dicobench.prompting import prompt  # noqa: E402

LOW, HIGH = 0.2, 1.0


def latency_of(body: dict) -> float:
    """The seeded latency of a request, keyed on the row number its text starts with."""
    row = int(body["messages"][0]["content"][-1]["text"].split(":", 1)[0])
    return random.Random(row).uniform(LOW, HIGH)


def serve(port_queue, stop) -> None:
    from openai_stub import StubServer

    with StubServer(lambda body: "Answer: A", delay=latency_of, record=False) as stub:
        port_queue.put(stub.base_url)
        stop.wait()


def load_rows(dataset: str | None):
    import datasets

    if dataset is None:
        from dicobench.build import build

        dataset = str(Path(tempfile.mkdtemp()) / "bench")
        build(dataset, per_task=1, seed=0, num_proc=1, progress=False)
    rows = datasets.load_dataset(dataset, "all", split="test")
    for column in ("image_a", "image_b"):
        rows = rows.cast_column(column, datasets.Image(decode=False))
    return [rows[i] for i in range(len(rows))]


def prompts(rows, n: int):
    """n prompts as `evaluate` builds them, cycling the rows; the text starts with the row number."""
    for i in range(n):
        row = dict(rows[i % len(rows)])
        row["image_a"], row["image_b"] = open_image(row["image_a"]), open_image(row["image_b"])
        images, text = prompt(row)
        yield interleave(images, f"{i}: {text}")


def timed(fn, clock, spent: list[float]):
    """`fn`, appending to `spent` what `clock` says each call took."""
    def wrapper(arg):
        start = clock()
        out = fn(arg)
        spent.append(clock() - start)
        return out

    return wrapper


def bench_openai(rows, n: int, concurrency: int, base_url: str) -> None:
    runner = load_runner("openai:bench", base_url=base_url, api_key="sk-bench", concurrency=concurrency)
    spent: list[float] = []
    runner.messages = timed(runner.messages, time.thread_time, spent)  # CPU of the payload threads
    start = time.perf_counter()
    replies = [reply for _, reply in runner.stream(prompts(rows, n))]
    wall = time.perf_counter() - start
    runner.close()
    assert all(r.error is None for r in replies), [r.error for r in replies if r.error][:1]
    latencies = [random.Random(i).uniform(LOW, HIGH) for i in range(n)]
    ideal = sum(latencies) / concurrency
    slots = [0.0] * concurrency
    for latency in latencies:  # the best any in-order sender can do
        heapq.heappush(slots, heapq.heappop(slots) + latency)
    print(f"openai  rows {n:4d}  concurrency {concurrency:3d}  wall {wall:6.2f} s  ideal {ideal:6.2f} s  "
          f"ratio {wall / ideal:4.2f}  (in-order floor {max(slots) / ideal:4.2f})  "
          f"payload CPU {1000 * sum(spent) / n:5.1f} ms/row")


def bench_transformers(rows, n: int, batch_size: int) -> None:
    from tiny_vlm import build_tiny_llava

    from dicobench.kit.eval.runners import Runner

    model = build_tiny_llava(Path(tempfile.mkdtemp()) / "llava")
    runner = load_runner(f"hf:{model}", batch_size=batch_size, max_new_tokens=8)
    runner.generate(list(prompts(rows, batch_size)))  # warm-up: first calls allocate
    encoding: list[float] = []
    runner.encode = timed(runner.encode, time.perf_counter, encoding)
    for background in (True, False):
        encoding.clear()
        runner.input_wait = 0.0
        start = time.perf_counter()
        stream = runner.stream if background else lambda p: Runner.stream(runner, p)  # batch after batch
        count = sum(1 for _ in stream(prompts(rows, n)))
        wall = time.perf_counter() - start
        waited = runner.input_wait if background else sum(encoding)  # synchronous: every encode is waited for
        print(f"hf      rows {count:4d}  batch {batch_size}  {'background' if background else 'synchronous'} "
              f"preprocessing  wall {wall:6.2f} s  generation waited for input {100 * waited / wall:5.1f}% of it")
    runner.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=200)
    parser.add_argument("--hf-rows", type=int, default=16, help="rows for the transformers runner")
    parser.add_argument("--dataset", help="a DiCoBench build to read rows from")
    parser.add_argument("--concurrency", type=int, nargs="+", default=[8, 32])
    args = parser.parse_args()
    rows = load_rows(args.dataset)
    ports, stop = multiprocessing.Queue(), multiprocessing.Event()
    server = multiprocessing.Process(target=serve, args=(ports, stop), daemon=True)
    server.start()
    try:
        base_url = ports.get(timeout=60)
        for concurrency in args.concurrency:
            bench_openai(rows, args.rows, concurrency, base_url)
    finally:
        stop.set()
        server.join(10)
    bench_transformers(rows, args.hf_rows, batch_size=2)


if __name__ == "__main__":
    main()
