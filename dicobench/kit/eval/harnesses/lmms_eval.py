"""lmms-eval: a task folder for `lmms-eval --include_path DIR`, and its samples read back.

The folder holds one YAML per dataset config, a group YAML aggregating them (micro-averaged,
as `score` does) and a `utils.py` that stands alone: the benchmark's callbacks module with the
modules it marks `# export: inline` written into it (the answer reader, the scoring rules), so
lmms-eval's environment needs nothing of this project and the folder can be contributed to
lmms-eval as it is. The prompt's instruction lines are the tasks' `lmms_eval_specific_kwargs`,
as in lmms-eval's own tasks; `dataset_path` is the Hub repo id, or the folder as given (a
relative path stays relative: run lmms-eval from where it points).

lmms-eval's `--log_samples` output is one `<date>_samples_<task>.jsonl` per task, each line
with `doc_id` (the row's index in the split), `input` (the prompt text) and `filtered_resps`
(the reply) but not the row itself; the rows' ids are looked up in the dataset, and the prompt
text is checked against the row's, so samples from another dataset or version are refused.
A run with `--limit N` answers the first N rows of each task: score it with `--allow-partial`.
"""

from __future__ import annotations

import ast
import json
import re
from importlib import import_module
from importlib.util import find_spec
from pathlib import Path
from typing import Iterator, Sequence

import yaml

from dicobench.kit.errors import UserError
from dicobench.kit.eval.harnesses.common import dataset_configs, is_local, write_predictions
from dicobench.kit.io.jsonl import read_lines
from dicobench.kit.io.predictions import load_references
from dicobench.kit.release.verify import verify_dataset

INLINE = "# export: inline"
OWN_PACKAGES = ("dicobench", "multipanelvqa")
_INLINED = re.compile(r"^from\s+([\w.]+)\s+import\s+.*" + re.escape(INLINE) + r"\s*$")
_FUTURE = "from __future__ import annotations\n"


def standalone_source(module: str) -> str:
    """`module`'s source with every import line marked `# export: inline` replaced by that
    module's own standalone source (each module once), so the result imports none of this
    project's packages; a module that still would is a bug, refused here."""
    return _standalone(module, set(), top=True)


def _standalone(module: str, seen: set[str], *, top: bool = False) -> str:
    seen.add(module)
    source = Path(find_spec(module).origin).read_text(encoding="utf-8")
    lines = []
    for line in source.splitlines(keepends=True):
        found = _INLINED.match(line)
        if found:
            if found[1] not in seen:
                lines.append(f"# --- {found[1]}, as this project ships it ---\n")
                lines.append(_standalone(found[1], seen).replace(_FUTURE, "", 1))
                lines.append(f"# --- end of {found[1]} ---\n")
        elif top or line != _FUTURE:
            lines.append(line)
    text = "".join(lines)
    if top:
        for node in ast.walk(ast.parse(text)):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                [node.module or ""] if isinstance(node, ast.ImportFrom) else []
            if any(n.split(".")[0] in OWN_PACKAGES for n in names):
                raise RuntimeError(f"{module}: the exported callbacks still import {names[0]}")
    return text


def export_tasks(dataset: str, out: str | Path, *, group: str, module: str, config: str = "all", split: str = "test",
                 max_new_tokens: int = 64, dataset_path: str | None = None) -> list[str]:
    """Write the task folder; the task names, `<group>_<config>` for each config (or for `config`
    alone), all in the group `group`. The tasks read `dataset_path` (default: `dataset` as given).
    A folder named like the group or a task is refused: lmms-eval would take it for that task.
    A callbacks module with `aggregate_accuracy` aggregates its own `accuracy` values (else: their mean)."""
    verify_dataset(dataset, split=split)  # a local build: every shard the tasks will read
    configs = dataset_configs(dataset)
    if not configs:
        raise UserError(f"{dataset} declares no configs to export")
    if config != "all":
        if config not in configs:
            raise UserError(f"unknown config {config!r} of {dataset}; expected all or one of {', '.join(configs)}")
        configs = [config]
    out = Path(out)
    shadowed = {group, *(f"{group}_{c}" for c in configs)}
    if out.name in shadowed:  # lmms-eval reads a --tasks name that is a folder in its working directory as that folder
        raise UserError(f"--out {out}: a folder named {out.name!r} would shadow the task of that name: lmms-eval "
                        f"reads `--tasks {out.name}` run beside it as the folder, fails and still exits 0; name "
                        f"the folder otherwise, e.g. {group}_tasks")
    out.mkdir(parents=True, exist_ok=True)
    path = dataset_path or (str(Path(dataset)) if is_local(dataset) else dataset)
    callbacks = import_module(module)
    own = hasattr(callbacks, "aggregate_accuracy")
    aggregation = _Function("utils.aggregate_accuracy") if own else "mean"
    tasks = []
    for config in configs:
        task = f"{group}_{config}"
        spec = {
            "task": task,
            "dataset_path": path,
            "dataset_name": config,
            "test_split": split,
            "output_type": "generate_until",
            "doc_to_visual": _Function("utils.doc_to_visual"),
            "doc_to_text": _Function("utils.doc_to_text"),
            "doc_to_messages": _Function("utils.doc_to_messages"),
            "doc_to_target": _Function("utils.doc_to_target"),
            "process_results": _Function("utils.process_results"),
            "generation_kwargs": {"max_new_tokens": max_new_tokens, "temperature": 0, "do_sample": False},
            "metric_list": [{"metric": "accuracy", "aggregation": aggregation, "higher_is_better": True}],
            "lmms_eval_specific_kwargs": json.loads(json.dumps(callbacks.SPECIFIC_KWARGS)),
            "metadata": {"version": 1.0},
        }
        (out / f"{task}.yaml").write_text(_dump(spec))
        tasks.append(task)
    (out / f"_{group}.yaml").write_text(_dump({
        "group": group, "task": tasks,
        "aggregate_metric_list": [{"metric": "accuracy", "aggregation": "mean", "weight_by_size": True}],
        "metadata": {"version": 1.0},
    }))
    (out / "utils.py").write_text(standalone_source(module))
    return tasks


class _Function(str):
    """A `!function module.name` reference in lmms-eval's YAML."""


class _Dumper(yaml.SafeDumper):
    pass


_Dumper.add_representer(_Function, lambda dumper, value: dumper.represent_scalar("!function", str(value)))


def _dump(spec: dict) -> str:
    return yaml.dump(spec, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=1000)


_SAMPLES = re.compile(r"_samples_(?P<task>[A-Za-z0-9_]+)\.jsonl$")


def read_samples(paths: Sequence[str | Path], *, dataset: str, group: str, module: str, text_columns: Sequence[str],
                 split: str = "test") -> Iterator[tuple[str, str | None]]:
    """(row id, response) from lmms-eval sample logs of this benchmark's tasks."""
    doc_to_text = import_module(module).doc_to_text
    for path in map(Path, paths):
        found = _SAMPLES.search(path.name)
        if not found or not found["task"].startswith(group + "_"):
            raise UserError(f"{path}: not an lmms-eval samples file of a {group} task "
                            f"(expected <date>_samples_{group}_<config>.jsonl)")
        config = found["task"][len(group) + 1:]
        ref = load_references(dataset, config, split, ["id", *text_columns])
        rows = [dict(zip(ref, values)) for values in zip(*ref.values())]
        try:
            lines = read_lines(path)
        except OSError as exc:
            raise UserError(f"cannot read {path}: {exc.strerror or exc}") from None
        for number, line in enumerate(lines, 1):
            if not line.strip():
                continue
            where = f"{path}:{number}"
            try:
                sample = json.loads(line)
                index, response = int(sample["doc_id"]), sample["filtered_resps"]
            except (json.JSONDecodeError, KeyError, TypeError, ValueError):
                raise UserError(f"{where}: not an lmms-eval sample with doc_id and filtered_resps") from None
            if not 0 <= index < len(rows):
                raise UserError(f"{where}: doc_id {index} is outside {dataset} ({config}/{split}, {len(rows)} rows)")
            row = rows[index]
            if "input" in sample and sample["input"] != doc_to_text(row):
                raise UserError(f"{where}: its prompt is not row {row['id']}'s in {dataset} ({config}/{split}): "
                                "were the samples made from another dataset or version?")
            while isinstance(response, list):  # several filters or repeats wrap the reply in lists
                response = response[0] if response else None
            if response is not None and not isinstance(response, str):
                raise UserError(f"{where}: filtered_resps holds a {type(response).__name__}, not a reply's text")
            yield str(row["id"]), response


def import_samples(paths: Sequence[str | Path], out: str | Path, **where) -> int:
    """A predictions file from lmms-eval sample logs (see `read_samples`); the number of rows."""
    return write_predictions(read_samples(paths, **where), out)
