"""`<benchmark> export <harness>` and `<benchmark> import <harness>`, made from each benchmark's
definition (its name and `dicobench.kit.benchmark.Harnesses`): each harness is a `HarnessKind` in
`HARNESS_KINDS`, which adds its own export and import subcommands, so a new harness is one
declaration and one `register_harness` line (docs/guides/extending.md)."""

from __future__ import annotations

import argparse
import shlex
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from dicobench.kit.benchmark import Benchmark
from dicobench.kit.cli.argtypes import positive_int
from dicobench.kit.cli.help_texts import HELP
from dicobench.kit.errors import UserError
from dicobench.kit.eval.harnesses import lmms_eval, vlmevalkit
from dicobench.kit.registry import Registry

AddSubcommand = Callable[[argparse._SubParsersAction, Benchmark], None]


@dataclass(frozen=True)
class HarnessKind:
    """A harness the `export` and `import` commands know: `export` and `import_` add its subcommand
    to each (None: it has none there; Inspect, say, needs no export)."""

    name: str
    export: AddSubcommand | None = None
    import_: AddSubcommand | None = None


def _lmms_eval_export(harness: argparse._SubParsersAction, benchmark: Benchmark) -> None:
    settings = benchmark.harnesses
    q = harness.add_parser("lmms-eval", help="a task folder for lmms-eval --include_path",
                           description=f"One task per config ({benchmark.name}_<config>) and a group "
                           f"{benchmark.name}; run: lmms-eval --include_path OUT --tasks {benchmark.name} ...")
    q.add_argument("--dataset", required=True, metavar="DIR_OR_REPO", help="dataset folder or Hub repo id")
    q.add_argument("--out", required=True, type=Path, help="task folder to write")
    q.add_argument("--config", default=benchmark.default_config,
                   help=f"dataset config to export, or all: one task per config (default {benchmark.default_config})")
    q.add_argument("--split", default="test", help="split the tasks evaluate (default test)")
    q.add_argument("--dataset-path", help="what the tasks' dataset_path names: a Hub repo id (e.g. where the "
                                          "build was pushed) or a folder (default: --dataset as given; a "
                                          "relative folder stays relative to where lmms-eval runs)")
    q.add_argument("--max-new-tokens", type=positive_int, default=settings.max_new_tokens,
                   help=f"generation cap lmms-eval passes to the model (default {settings.max_new_tokens})")
    q.set_defaults(func=lambda args: _export_lmms_eval(args, benchmark))


def _vlmevalkit_export(harness: argparse._SubParsersAction, benchmark: Benchmark) -> None:
    name = benchmark.harnesses.flavour.name
    v = harness.add_parser("vlmevalkit", help="an image-MCQ TSV and a dataset class for VLMEvalKit",
                           description="Write NAME.tsv (VLMEvalKit's image-MCQ columns, lossless PNG "
                           "images) and name.py beside it, the dataset class NAME that makes VLMEvalKit ask this "
                           "project's prompt and score by its rules.")
    v.add_argument("--dataset", required=True, metavar="DIR_OR_REPO", help="dataset folder or Hub repo id")
    v.add_argument("--out", required=True, type=Path,
                   help="the TSV to write, NAME.tsv: NAME is the dataset and class name in "
                        f"VLMEvalKit (e.g. ~/LMUData/{name}.tsv)")
    v.add_argument("--config", default=benchmark.default_config,
                   help=f"dataset config to export (default {benchmark.default_config})")
    v.add_argument("--split", default="test", help="split to export (default test)")
    v.add_argument("--limit", type=positive_int, metavar="N",
                   help="only the first N rows of each config (each task or augmentation of --config all), as "
                        "eval --limit N")
    v.add_argument("--images", choices=vlmevalkit.IMAGE_MODES, default="inline",
                   help="inline: base64 PNGs in the TSV (VLMEvalKit's usual form, which it loads whole into "
                        "memory); files: PNG files in images/NAME/ beside a text-only TSV (default inline)")
    v.set_defaults(func=lambda args: _export_vlmevalkit(args, benchmark))


def _lmms_eval_import(harness: argparse._SubParsersAction, benchmark: Benchmark) -> None:
    q = harness.add_parser("lmms-eval", help="from lmms-eval --log_samples output")
    q.add_argument("samples", nargs="+", type=Path, help="the *_samples_<task>.jsonl files lmms-eval wrote")
    q.add_argument("--dataset", required=True, metavar="DIR_OR_REPO",
                   help="the dataset folder or Hub repo id the tasks were exported from")
    q.add_argument("--split", default="test", help="the split the tasks were exported with (default test)")
    q.add_argument("--out", required=True, type=Path, help="predictions file to write")
    q.set_defaults(func=lambda args: _import_lmms_eval(args, benchmark))


def _vlmevalkit_import(harness: argparse._SubParsersAction, benchmark: Benchmark) -> None:
    v = harness.add_parser("vlmevalkit", help="from a VLMEvalKit prediction file")
    v.add_argument("results", type=Path, help="VLMEvalKit's <model>_<dataset> prediction file (.xlsx, .tsv, .csv)")
    v.add_argument("--out", required=True, type=Path, help="predictions file to write")
    v.set_defaults(func=_import_vlmevalkit)


def _inspect_import(harness: argparse._SubParsersAction, benchmark: Benchmark) -> None:
    i = harness.add_parser("inspect", help="from Inspect eval logs (.eval or .json)",
                           description=f"Read the logs of `inspect eval {benchmark.harnesses.inspect_name}` with "
                           "Inspect's own log reader: each sample's id and reply (a sample that errored is a failed "
                           "call, unscored).")
    i.add_argument("logs", nargs="+", type=Path, metavar="LOG", help="Inspect log files (.eval or .json)")
    i.add_argument("--out", required=True, type=Path, help="predictions file to write")
    i.add_argument("--epoch", type=positive_int, help="the epoch to import, for a log that ran several")
    i.set_defaults(func=lambda args: _import_inspect(args, benchmark))


HARNESS_KINDS: Registry[HarnessKind] = Registry("harness", [(k.name, k) for k in (
    HarnessKind("lmms-eval", _lmms_eval_export, _lmms_eval_import),
    HarnessKind("vlmevalkit", _vlmevalkit_export, _vlmevalkit_import),
    HarnessKind("inspect", None, _inspect_import),
)])


def register_harness(kind: HarnessKind) -> HarnessKind:
    """Add a harness to `export` and `import` (of both benchmarks), after the others."""
    return HARNESS_KINDS.register(kind.name, kind)


def make_export_register(benchmark: Benchmark):
    def register(subparsers: argparse._SubParsersAction) -> None:
        kinds = [k for k in HARNESS_KINDS if k.export]
        p = subparsers.add_parser("export", help=HELP["export"],
                                  description="Write what another evaluation harness needs to run this benchmark "
                                  "with this project's prompt and scoring. (Inspect needs no export: "
                                  f"inspect eval {benchmark.harnesses.inspect_name} -T dataset=DIR.)")
        harness = p.add_subparsers(dest="harness", required=True)
        for kind in kinds:
            kind.export(harness, benchmark)
    return register


def make_import_register(benchmark: Benchmark):
    def register(subparsers: argparse._SubParsersAction) -> None:
        kinds = [k for k in HARNESS_KINDS if k.import_]
        p = subparsers.add_parser("import", help=HELP["import"],
                                  description=f"Read {', '.join(k.name for k in kinds)} outputs and write a "
                                  f"predictions file for `{benchmark.name} score`.")
        harness = p.add_subparsers(dest="harness", required=True)
        for kind in kinds:
            kind.import_(harness, benchmark)
    return register


def _export_lmms_eval(args: argparse.Namespace, benchmark: Benchmark) -> int:
    settings = benchmark.harnesses
    tasks = lmms_eval.export_tasks(args.dataset, args.out, group=benchmark.name,
                                   module=settings.lmms_eval_callbacks.module, config=args.config, split=args.split,
                                   max_new_tokens=args.max_new_tokens, dataset_path=args.dataset_path)
    print(f"wrote {len(tasks)} tasks ({', '.join(tasks)}) and group {benchmark.name} to {args.out}; run:\n"
          f"  lmms-eval --include_path {args.out} --tasks {benchmark.name} --model ... --log_samples "
          f"--output_path RESULTS\nthen: {benchmark.name} import lmms-eval RESULTS/.../*_samples_*.jsonl "
          f"--dataset {args.dataset} --out predictions.jsonl\n"
          f"(a run with --limit N answers the first N rows of each task: score them with --limit N)")
    return 0


def _import_inspect(args: argparse.Namespace, benchmark: Benchmark) -> int:
    from dicobench.kit.eval.harnesses.inspect_log import import_logs  # deferred: Inspect is an optional install

    runs = import_logs(args.logs, args.out, benchmark.harnesses.inspect_name, args.epoch)
    print(f"wrote {sum(r.samples for r in runs)} predictions to {args.out}")
    unfinished = [f"{path} ({r.status})" for path, r in zip(args.logs, runs) if r.status != "success"]
    if unfinished:
        print(f"not finished: {', '.join(map(str, unfinished))}: its samples so far were imported")
    task = runs[0].task_args
    configs = {r.task_args.get("config", benchmark.default_config) for r in runs}
    partial = unfinished or any(r.task_args.get("limit") for r in runs) or len(runs) > 1
    print("score them: " + " ".join(map(shlex.quote, [
        benchmark.name, "score", str(args.out), "--dataset", str(task.get("dataset", "DIR")),
        "--config", configs.pop() if len(configs) == 1 else "all", "--split", str(task.get("split", "test")),
        "--model-id", runs[0].model, *(["--allow-partial"] if partial else [])])))
    return 0


def _import_lmms_eval(args: argparse.Namespace, benchmark: Benchmark) -> int:
    settings = benchmark.harnesses
    n = lmms_eval.import_samples(args.samples, args.out, dataset=args.dataset, group=benchmark.name,
                                 module=settings.lmms_eval_callbacks.module, text_columns=settings.text_columns,
                                 split=args.split)
    print(f"wrote {n} predictions to {args.out}")
    return 0


def _export_vlmevalkit(args: argparse.Namespace, benchmark: Benchmark) -> int:
    settings = benchmark.harnesses
    flavour = settings.flavour
    vlmevalkit.dataset_name(args.out)  # a name VLMEvalKit can use, before any data loads
    n, size = vlmevalkit.export_tsv(args.dataset, args.out, flavour, config=args.config, split=args.split,
                                    limit=args.limit, images=args.images)
    cls = vlmevalkit.export_class_file(args.out, flavour, module=settings.vlmevalkit_flavour.module,
                                       command=benchmark.name)
    held = "VLMEvalKit loads it whole" if args.images == "inline" else "the images are files beside it"
    name = vlmevalkit.dataset_name(args.out)
    print(f"wrote {n} rows to {args.out} ({size / 1e6:.1f} MB, {size / max(n, 1) / 1e6:.2f} MB per row; {held}) and "
          f"the dataset class {name} in {cls}; run it in VLMEvalKit's folder (it registers {name} there):\n"
          f"  python {cls} --data {name} --model MODEL\nthen: {benchmark.name} import vlmevalkit "
          f"outputs/MODEL/.../MODEL_{name}.xlsx --out predictions.jsonl")
    return 0


def vlmevalkit_main(class_file: str, name: str, argv: list[str]) -> int:
    """`python CLASS_FILE --data NAME --model MODEL ...`: VLMEvalKit's run.py with the class
    registered (`vlmevalkit.run_vlmevalkit`); 2 with one line when VLMEvalKit cannot be found."""
    try:
        vlmevalkit.run_vlmevalkit(class_file, name, argv)
    except UserError as exc:
        print(f"{Path(class_file).name}: error: {exc}", file=sys.stderr)
        return 2
    return 0


def _import_vlmevalkit(args: argparse.Namespace) -> int:
    n = vlmevalkit.import_results(args.results, args.out)
    print(f"wrote {n} predictions to {args.out}")
    return 0
