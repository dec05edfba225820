"""Inspect eval logs read back into a predictions file: `<benchmark> import inspect LOG...`.

`inspect eval dicobench/dicobench -T dataset=DIR` logs every sample with the row's id, so the log
alone gives the predictions (`id`, `response`; a sample that errored is a failed call, unscored,
not wrong). The logs are read with Inspect's own API (`inspect_ai.log`), `.eval` and `.json`
alike; a log of another task is refused, and so is one that ran several epochs unless one is
chosen. `score` then scores the file as it scores `eval`'s.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Iterator, Sequence

from dicobench.kit.errors import UserError, first_line
from dicobench.kit.eval.harnesses.common import write_predictions

# not needed, and the bulk of a log
SKIPPED = {"events", "messages", "attachments", "store", "events_data", "timelines"}


@dataclass(frozen=True)
class LogRun:
    """What the logs say of the run, for the `score` command `import` suggests."""

    model: str
    task_args: dict
    status: str
    samples: int


def _header(path: Path, task: str):
    from inspect_ai.log import read_eval_log

    if not path.is_file():
        raise UserError(f"{path}: no such Inspect log")
    try:
        header = read_eval_log(str(path), header_only=True)
    except Exception as exc:  # Inspect's readers raise many kinds: any is the user's file
        raise UserError(f"{path}: not an Inspect eval log ({first_line(exc)})") from None
    if header.eval.task not in (task, task.rpartition("/")[2]):
        raise UserError(f"{path} is a log of Inspect task {header.eval.task!r}, not {task}")
    return header


def read_logs(paths: Sequence[str | Path], task: str, epoch: int | None = None,
              run: list | None = None) -> Iterator[tuple[str, str | None, str | None]]:
    """(row id, reply, error) of every sample of the logs of Inspect task `task` (in `epoch`, which
    must be chosen where a log ran several); `run`, when given, gets each log's `LogRun`."""
    from inspect_ai.log import read_eval_log_samples

    for path in map(Path, paths):
        header = _header(path, task)
        epochs = header.eval.config.epochs or 1
        if epoch is None and epochs > 1:
            raise UserError(f"{path} ran {epochs} epochs of each sample: choose one with --epoch N")
        wanted = epoch or 1
        if wanted > epochs:
            raise UserError(f"--epoch {wanted}: {path} ran {epochs} epoch{'s' * (epochs > 1)}")
        count = 0
        try:
            for sample in read_eval_log_samples(str(path), all_samples_required=False, exclude_fields=SKIPPED):
                if sample.epoch != wanted:
                    continue
                count += 1
                error = first_line(sample.error.message) if sample.error else None
                reply = None if error or sample.output is None else sample.output.completion
                yield str(sample.id), reply, error
        except UserError:
            raise
        except Exception as exc:
            raise UserError(f"{path}: cannot read its samples ({first_line(exc)})") from None
        if run is not None:
            run.append(LogRun(str(header.eval.model), dict(header.eval.task_args or {}), header.status, count))


def import_logs(paths: Sequence[str | Path], out: str | Path, task: str, epoch: int | None = None) -> list[LogRun]:
    """A predictions file from Inspect logs (see `read_logs`); what each log says of its run."""
    runs: list[LogRun] = []
    rows = list(read_logs(paths, task, epoch, runs))
    write_predictions(((key, reply) for key, reply, _ in rows), out,
                      errors={key: error for key, _, error in rows if error})
    return runs
