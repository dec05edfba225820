"""The `eval` subcommand shared by both benchmarks: ask a model every row, then score.

`DIR/predictions.jsonl` gets one line per row as soon as it is answered (flushed), so an
interrupted run loses nothing. A rerun with the same `--out` keeps the answered rows, retries
the failed ones (an API error is not an answer) and scores once every row has an answer, through
the benchmark's own `score` subcommand. `DIR/run.json` records the settings that shape answers;
a rerun with other settings is refused rather than mixing two runs in one file. The API key is
never written anywhere.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Sequence

from tqdm.auto import tqdm

from benchkit.errors import UserError
from benchkit.predictions import load_split
from benchkit.runners import Prompt, Reply, load_runner

PREDICTIONS = "predictions.jsonl"
RUN = "run.json"


@dataclass(frozen=True)
class Benchmark:
    """What eval needs from a benchmark: how to prompt and parse a row, and how to score."""

    name: str
    prompt: Callable[[dict], Prompt]  # a dataset row -> interleaved parts (views and modes applied)
    parse: Callable[[dict, str], str | None]  # row, response -> the answer read from it, or None
    task_column: str  # the column reported as `task` in predictions
    score_register: Callable[[argparse._SubParsersAction], None]  # the benchmark's `score` subcommand
    score_args: Sequence[str] = ()  # extra arguments for it
    settings: dict | None = None  # benchmark options that shape answers (mode, view), for run.json
    local_max_new_tokens: int = 64  # generation cap for local models when --max-new-tokens is not given


def interleave(images: Sequence, text: str) -> list:
    """Prompt parts: several images each introduced as "Image i:" (docs/ARCHITECTURE.md), then the text."""
    if len(images) == 1:
        return [images[0], text]
    parts: list = []
    for i, image in enumerate(images, 1):
        parts += [f"Image {i}:", image]
    return parts + [text]


def add_arguments(p: argparse.ArgumentParser, default_config: str) -> None:
    """The options every benchmark's eval takes."""
    p.add_argument("--dataset", required=True, help="dataset folder or Hub repo id")
    p.add_argument("--config", default=default_config, help=f"dataset config (default {default_config})")
    p.add_argument("--split", default="test")
    p.add_argument("--model", required=True,
                   help="hf:<hub id or folder> (transformers) or openai:<model> (OpenAI-compatible endpoint)")
    p.add_argument("--base-url", help="openai: endpoint, e.g. http://127.0.0.1:8000/v1 for vLLM (default OpenAI)")
    p.add_argument("--api-key", help="openai: API key (prefer the OPENAI_API_KEY environment variable)")
    p.add_argument("--out", type=Path, required=True, help="output folder; rerun with the same one to resume")
    p.add_argument("--limit", type=int, help="evaluate only the first N rows of the split")
    p.add_argument("--batch-size", type=int, default=1, help="hf: prompts per generate call (answers do not change)")
    p.add_argument("--concurrency", type=int, default=8, help="openai: requests in flight")
    p.add_argument("--max-new-tokens", type=int,
                   help="reply length cap (default: 64 tokens for hf: models, 512 in describe mode; "
                        "the endpoint's own limit for openai:)")
    p.add_argument("--max-pixels", type=int, help="hf: per-image pixel budget, for processors that take one")
    p.add_argument("--max-side", type=int, help="openai: shrink images to this long side (default: full size)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")


def run_eval(args: argparse.Namespace, benchmark: Benchmark) -> int:
    """Answer the rows not answered yet, then score; 1 (and no scores) while rows keep failing."""
    for flag in ("limit", "batch_size", "concurrency", "max_new_tokens", "max_pixels", "max_side"):
        value = getattr(args, flag)
        if value is not None and value < 1:
            raise UserError(f"--{flag.replace('_', '-')} must be at least 1")
    split = f"{args.split}[:{args.limit}]" if args.limit else args.split
    rows = load_split(args.dataset, args.config, split)
    args.out.mkdir(parents=True, exist_ok=True)
    path = args.out / PREDICTIONS
    _check_settings(args.out / RUN, path, {
        "benchmark": benchmark.name, "dataset": args.dataset, "config": args.config, "split": args.split,
        "model": args.model, "max_new_tokens": args.max_new_tokens, "max_pixels": args.max_pixels,
        "max_side": args.max_side, **(benchmark.settings or {}),
    })
    answered = _keep_answered(path, set(rows["id"]))
    todo = [i for i, key in enumerate(rows["id"]) if key not in answered]
    print(f"{benchmark.name} eval: {len(rows)} rows, {len(answered)} already answered, {len(todo)} to ask {args.model}")
    failed = _ask(rows, todo, path, benchmark, args) if todo else 0
    if failed:
        print(f"{failed} rows failed (their errors are in {path}); rerun the same command to retry them. "
              "Scores are written once every row has an answer.", file=sys.stderr)
        return 1
    parser = argparse.ArgumentParser(prog=f"{benchmark.name} score")
    benchmark.score_register(parser.add_subparsers(dest="command", required=True))
    score = parser.parse_args(["score", str(path), "--dataset", args.dataset, "--config", args.config,
                               "--split", split, "--out", str(args.out), *benchmark.score_args])
    return score.func(score)


def _check_settings(path: Path, predictions: Path, settings: dict) -> None:
    """Refuse to add answers made with other settings to existing ones; record the settings."""
    if path.exists() and predictions.exists() and predictions.stat().st_size:
        before = json.loads(path.read_text())
        changed = sorted(k for k in settings.keys() | before.keys() if before.get(k) != settings.get(k))
        if changed:
            raise UserError(f"{path.parent} holds answers made with other settings ({', '.join(changed)}): "
                            "use another --out, or the same settings to resume")
    path.write_text(json.dumps(settings, indent=2) + "\n")


def _keep_answered(path: Path, selected: set[str]) -> set[str]:
    """Rewrite the predictions file with its answered rows only (failed rows and a line cut off by
    an interruption go); return their ids."""
    if not path.exists():
        return set()
    kept: dict[str, str] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            record = json.loads(line)
        except json.JSONDecodeError:
            continue
        if record.get("error") is None:
            kept[record["id"]] = line
    outside = [key for key in kept if key not in selected]
    if outside:
        raise UserError(f"{path} answers {len(outside)} rows outside this selection (e.g. {outside[0]}): "
                        "keep --config and --limit, or use another --out")
    tmp = path.with_suffix(".tmp")
    tmp.write_text("".join(line + "\n" for line in kept.values()), encoding="utf-8")
    tmp.replace(path)
    return set(kept)


def _ask(rows, todo: list[int], path: Path, benchmark: Benchmark, args: argparse.Namespace) -> int:
    """Ask the model the `todo` rows, appending one line per row; the number that failed."""
    features = rows.features

    def plain(column: str, value):
        names = getattr(features[column], "names", None)  # ClassLabel ints as their names
        return names[value] if names is not None else value

    failed = 0
    runner = load_runner(args.model, batch_size=args.batch_size, concurrency=args.concurrency,
                         max_new_tokens=args.max_new_tokens, local_max_new_tokens=benchmark.local_max_new_tokens,
                         max_pixels=args.max_pixels, base_url=args.base_url, api_key=args.api_key,
                         max_side=args.max_side)
    with runner, path.open("a", encoding="utf-8") as out, \
            tqdm(total=len(todo), desc=f"{benchmark.name} eval", unit="row", disable=args.quiet) as bar:
        for start in range(0, len(todo), runner.batch_size):
            batch = [rows[i] for i in todo[start:start + runner.batch_size]]
            replies: list[Reply] = runner.generate([benchmark.prompt(row) for row in batch])
            for row, reply in zip(batch, replies):
                record = {
                    "id": row["id"], "task": plain(benchmark.task_column, row[benchmark.task_column]),
                    "response": reply.text,
                    "parsed": None if reply.text is None else benchmark.parse(row, reply.text),
                    "answer": plain("answer", row["answer"]), "latency": round(reply.latency, 3),
                    "error": reply.error,
                }
                out.write(json.dumps(record, ensure_ascii=False) + "\n")
                out.flush()
                failed += reply.error is not None
            bar.update(len(batch))
    return failed
