"""Ask a model every row of a benchmark, then score: the engine of `evaluate()` and `eval`.

`OUT/predictions.jsonl` gets one line per row as soon as it is answered, each line written
with one `write` call on an append-only file, so an interrupted run loses nothing and leaves
at most one cut-off last line, which the next run drops. A rerun with the same `out` keeps the
answered rows, asks only the missing or failed ones (an API error is not an answer) and scores
them with the benchmark's `score` (its `score_predictions`: a Report, dicobench.kit.eval.report),
written to `OUT/scores.json` and charts as `score --out` writes them; while rows keep failing it
is incomplete (bounds, dicobench.kit.eval.completeness). `OUT/run.json` records the settings that
shape answers, and how they were made (dicobench.kit.eval.provenance); a rerun with other settings is
refused rather than mixing two runs in one file. No API key is written.

`evaluate()` reads as its steps: the inputs checked (the model resolved into a runner by
`dicobench.kit.eval.model_resolution`), the rows loaded, the run folder made or resumed
(`dicobench.kit.eval.run_folder`: its lock, run.json), the missing rows asked, the answers scored.

Images are read undecoded (`dicobench.kit.io.lazy_images`): an API runner sends the stored PNG as is,
and a local runner decodes it in its preprocessing thread.
"""

from __future__ import annotations

import json
import logging
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterator, Sequence

from tqdm.auto import tqdm

from dicobench.kit.errors import ModelError, UserError
from dicobench.kit.eval import provenance
from dicobench.kit.eval.model_resolution import ResolvedModel, resolve_model
from dicobench.kit.eval.report import Report, write_report, wrote
from dicobench.kit.eval.run_folder import PREDICTIONS, RUN, check_out, keep_answered, record_settings, run_folder
from dicobench.kit.eval.runners import Prompt, Runner, as_runner
from dicobench.kit.io.dataset_input import check_features
from dicobench.kit.io.jsonl import read_lines
from dicobench.kit.io.lazy_images import open_image
from dicobench.kit.io.predictions import first_per_config, load_split

if TYPE_CHECKING:
    import datasets

logger = logging.getLogger(__name__)  # warnings reach stderr as plain lines unless logging is configured


@dataclass(frozen=True)
class EvalSpec:
    """What an evaluation needs from a benchmark: how to prompt and parse a row, how to score.

    `score(predictions, dataset, *, config, split, name, limit, selection)` is the benchmark's
    `score_predictions` with its settings (view, judge) bound: the Report of a predictions file."""

    name: str
    prompt: Callable[[dict], Prompt]  # a dataset row -> interleaved parts (views and modes applied)
    parse: Callable[[dict, str], str | None]  # row, response -> the answer read from it, or None
    task_column: str  # the column reported as `task` in predictions
    score: Callable[..., Report]  # a predictions file -> its Report (see above)
    configs: Sequence[str] = ()  # the dataset configs it has (checked before anything loads)
    settings: dict | None = None  # benchmark options that shape answers (mode, view), for run.json
    local_max_new_tokens: int = 64  # generation cap for local models when none is given
    prompt_template: str = ""  # the prompt's text template, whose hash run.json and scores.json record
    select: tuple[str, Callable] | None = None  # (column, predicate): ask only the rows it keeps (a view's rows)
    features: datasets.Features | None = None  # the benchmark's schema, to refuse another benchmark's dataset
    columns: Sequence[str] = ()  # the columns prompt and parse read
    unread: Callable[[dict], str | None] | None = None  # scores -> what could be read from no reply, if nothing was
    config_column: str | None = None  # the column naming each row's config (a `limit` takes N rows of each)


def interleave(images: Sequence, text: str) -> list:
    """Prompt parts: several images each introduced as "Image i:" (docs/ARCHITECTURE.md), then the text."""
    if len(images) == 1:
        return [images[0], text]
    parts: list = []
    for i, image in enumerate(images, 1):
        parts += [f"Image {i}:", image]
    return parts + [text]


def evaluate(benchmark: EvalSpec, dataset: str, model, *, config: str, split: str = "test",
             out: str | Path | None = None, limit: int | None = None, name: str | None = None,
             runner_options: dict | None = None, progress: bool | None = None, allow_partial: bool = False,
             raise_on_error: bool = False, log: Callable[[str], None] | None = None) -> dict:
    """Answer the rows of `dataset` not answered yet in `out`, then score them all; the scores.

    `model` is a Runner, a spec such as "hf:ORG/MODEL" (built with `runner_options`), or a
    function `(images, prompt) -> str` (of the options, `concurrency` alone applies to it: that
    many threads call it, replies kept in row order; a function that cannot take those two
    arguments is refused before any row, and runs are named after it). Without `out` the
    predictions live in a temporary folder for this call only. `log` gets the progress lines and
    the score table (default: silent); `progress` shows a bar (default: when stderr is a
    terminal). A run from whose replies nothing could be read warns through `logging` (`EvalSpec.unread`), as does
    one left incomplete.
    While rows keep failing the scores are
    incomplete: `complete` is False and `accuracy_lower`/`accuracy_upper` stand for `accuracy`;
    a rerun with the same `out` asks only those rows. `raise_on_error` raises the first failure
    instead (what was answered before it stays in `out`).

    `limit` N asks the first N rows of each config (lmms-eval's `--limit`: of each task of
    DiCoBench's `all`, of each augmentation of MultipanelVQA's; of the split for one config); they
    are scored as a selection of their own (scores.json records `limit`), or, with
    `allow_partial`, as the partial run over the whole split that they are: the rows not asked
    are unscored and the result reports bounds."""
    # 1. the inputs, checked before any data or weights load
    _check_inputs(benchmark, config, limit)
    resolved = resolve_model(model, runner_options, name=name, raise_on_error=raise_on_error,
                             local_max_new_tokens=benchmark.local_max_new_tokens)
    check_out(out)
    if progress is None:
        progress = sys.stderr.isatty()
    say = log or (lambda line: None)
    # 2. the rows to ask
    rows, content = _rows(benchmark, dataset, config, split, limit)
    # 3. the run folder: created or resumed, locked; run.json checked against these settings
    with run_folder(out) as folder:
        path = folder / PREDICTIONS
        record_settings(folder / RUN, path, _settings(benchmark, dataset, config, split, resolved),
                        provenance.digest(benchmark.prompt_template)[:16] if benchmark.prompt_template else None,
                        None if allow_partial else limit, content)
        # 4. ask the rows not answered yet
        answered = keep_answered(path, set(rows["id"]))
        todo = [i for i, key in enumerate(rows["id"]) if key not in answered]
        say(f"{benchmark.name} eval: {len(rows)} rows, {len(answered)} already answered, {len(todo)} to ask "
            f"{resolved.label}")
        if todo:  # failed rows stay unscored: the scores are incomplete (dicobench.kit.eval.completeness)
            with as_runner(resolved.model, **resolved.options) as runner:
                ask(rows, todo, path, benchmark, runner, progress=progress, raise_on_error=raise_on_error)
        # 5. score every answer, write the report beside them
        limits = {"limit": limit} if allow_partial else {"selection": limit}
        report = benchmark.score(path, str(dataset), config=config, split=split, name=resolved.label, **limits)
        say(f"{report.table}\n{wrote(write_report(report, folder))}")
        result = report.to_dict()
        # 6. warn of a run nothing could be read from, or one left incomplete
        _warn(benchmark, report, result, path, kept=out is not None)
        return result


def _check_inputs(benchmark: EvalSpec, config: str, limit: int | None) -> None:
    """The config and the limit, one-line errors."""
    if benchmark.configs and config not in benchmark.configs:
        raise UserError(f"unknown config {config!r}; expected one of {', '.join(benchmark.configs)}")
    if limit is not None and limit < 1:
        raise UserError("limit must be at least 1")


def _rows(benchmark: EvalSpec, dataset: str, config: str, split: str,
          limit: int | None) -> tuple[datasets.Dataset, dict]:
    """The split's rows to ask (another benchmark's dataset refused; `limit` rows of each config;
    the benchmark's selection), and the content digest of the whole split (so that `limit` may
    change between reruns)."""
    rows = load_split(dataset, config, split)
    if benchmark.features is not None:
        check_features(rows.features, benchmark.features, benchmark.columns, str(dataset), benchmark.name)
    content = provenance.content(rows)
    if limit:
        configs = rows[benchmark.config_column] if benchmark.config_column else [None] * len(rows)
        rows = rows.select(first_per_config(configs, limit))
    if benchmark.select:
        rows = rows.filter(benchmark.select[1], input_columns=[benchmark.select[0]])
    return rows, content


def _settings(benchmark: EvalSpec, dataset: str, config: str, split: str, resolved: ResolvedModel) -> dict:
    """What run.json records as shaping the answers: a rerun with others is refused."""
    return {
        "benchmark": benchmark.name, "dataset": str(dataset), "config": config, "split": split,
        "model": resolved.label, "max_new_tokens": resolved.asked_tokens,
        "max_pixels": resolved.options.get("max_pixels"), "max_side": resolved.options.get("max_side"),
        **(benchmark.settings or {}),
    }


def _warn(benchmark: EvalSpec, report: Report, result: dict, path: Path, *, kept: bool) -> None:
    """Warnings through `logging`: nothing could be read from any reply; the result is incomplete
    (the score command's advice fits a folder one can rerun in, not a temporary one)."""
    unread = benchmark.unread(result) if benchmark.unread else None
    if unread:
        logger.warning(_unread_line(benchmark.name, unread, path, kept))
    if not report.complete:
        logger.warning(f"{benchmark.name}: {report.completeness.message(result)}" if kept else
                       _without_folder(benchmark.name, result, path))


def _unread_line(name: str, unread: str, path: Path, kept: bool) -> str:
    """The warning of a run from whose replies nothing could be read: what, the first reply, where the rest are."""
    records = [json.loads(line) for line in read_lines(path) if line.strip()]
    replies = [r["response"] for r in records if r.get("response") is not None]
    first = f" (the first: {replies[0][:80]!r})" if replies else ""
    where = f"; the replies are in {path}" if kept else ""
    return (f"{name}: warning: {unread} from any of the {len(replies)} replies{first}, so every one counts as "
            f"wrong: check what the model answers{where}")


def _without_folder(name: str, result: dict, path: Path) -> str:
    """The incomplete result's line when the predictions lived in a temporary folder."""
    errors = [r["error"] for r in map(json.loads, read_lines(path)) if r.get("error")]
    first = f"; the first error: {errors[0]}" if errors else ""
    return (f"{name}.evaluate: incomplete: {result['unscored']} rows unscored ({len(errors)} model calls failed"
            f"{first}); pass out=FOLDER to keep the answers and ask only the failed rows again, or "
            "raise_on_error=True to stop at the first failure")


def _image_columns(rows) -> list[str]:
    import datasets

    return [c for c, f in rows.features.items() if isinstance(f, datasets.Image)]


def ask(rows, todo: list[int], path: Path, benchmark: EvalSpec, runner: Runner, *, progress: bool = False,
        raise_on_error: bool = False) -> int:
    """Ask `runner` the `todo` rows (indices into `rows`), appending one line per reply as it
    comes; the number that failed. With `raise_on_error` a failed reply raises `ModelError`
    (the replies before it are written)."""
    import datasets

    features = rows.features
    images = _image_columns(rows)
    raw = rows
    for column in images:  # a change of features only: no data is rewritten
        raw = raw.cast_column(column, datasets.Image(decode=False))
    light = rows.remove_columns(images)  # what parsing and the record need, without image bytes

    def plain(column: str, value):
        names = getattr(features[column], "names", None)  # ClassLabel ints as their names
        return names[value] if names is not None else value

    def prompts() -> Iterator[Prompt]:  # built lazily, in the thread the runner pulls them from
        for i in todo:
            row = raw[i]
            yield benchmark.prompt({k: open_image(v) if k in images and v is not None else v
                                    for k, v in row.items()})

    failed = 0
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        with tqdm(total=len(todo), desc=f"{benchmark.name} eval", unit="row", disable=not progress) as bar:
            for position, reply in runner.stream(prompts()):
                row = light[todo[position]]
                if raise_on_error and reply.error is not None:
                    raise ModelError(f"the model failed on row {row['id']}: {reply.error}")
                record = {
                    "id": row["id"], "task": plain(benchmark.task_column, row[benchmark.task_column]),
                    "response": reply.text,
                    "parsed": None if reply.text is None else benchmark.parse(row, reply.text),
                    "answer": plain("answer", row["answer"]), "latency": round(reply.latency, 3),
                    "error": reply.error,
                }
                _append(fd, json.dumps(record, ensure_ascii=False) + "\n")
                failed += reply.error is not None
                bar.update(1)
    finally:
        os.close(fd)
    return failed


def _append(fd: int, line: str) -> None:
    """One line in one write (O_APPEND): a kill leaves whole lines, or a cut-off last one."""
    data = line.encode("utf-8")
    while data:
        data = data[os.write(fd, data):]
