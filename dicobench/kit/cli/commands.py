"""Shared command-line plumbing: subcommands registered by modules, one-line errors."""

from __future__ import annotations

import argparse
import logging
import os
import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterable, NoReturn, Sequence

from dicobench.kit import __version__
from dicobench.kit.cli.argtypes import non_negative_int, positive_int
from dicobench.kit.errors import UserError, first_line

if TYPE_CHECKING:
    from dicobench.kit.benchmark import Benchmark, Command

Registrar = Callable[[argparse._SubParsersAction], None]


SECRET_OPTION = re.compile(r"--?[\w-]*(key|token|secret|password)[\w-]*", re.I)  # options whose values are secrets


class UsageError(Exception):
    """A usage error of a parser made by `run`, reported there (where the command line is known)."""

    def __init__(self, prog: str, message: str):
        super().__init__(message)
        self.prog = prog


class OneLineParser(argparse.ArgumentParser):
    """An ArgumentParser whose usage errors are one `error:` line (status 2), like every other
    bad input; the usage itself stays one `--help` away. The error goes up to `run`, which
    prints it with secrets redacted."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(self.prog, message)


def redact(message: str, argv: Sequence[str]) -> str:
    """`message` without the values of the options in `argv` whose names say key, token, secret
    or password (argparse quotes mistyped ones whole in "unrecognized arguments")."""
    values = []
    for i, arg in enumerate(argv):
        name, eq, value = arg.partition("=")
        if SECRET_OPTION.fullmatch(name):
            if eq:
                values.append(value)
            elif i + 1 < len(argv):
                values.append(argv[i + 1])
    for value in sorted({v for v in values if v}, key=len, reverse=True):
        message = message.replace(value, "***")
    return message


def add_dataset_argument(parser: argparse.ArgumentParser, help: str, *, dest: str = "dataset",
                         type: Callable = str) -> None:
    """`--dataset DIR_OR_REPO` for the commands whose first release took the dataset as a bare
    positional (`push DIR`, `info`, `preview`, `review`, `study`, `human`): that positional is still
    read, unlisted, and `run` requires one of the two. (`eval`, `score`, `export` and `import` have
    always required `--dataset`.)"""
    parser.add_argument("--dataset", dest=dest, metavar="DIR_OR_REPO", type=type, default=None, help=help)
    parser.add_argument(f"{dest}_positional", nargs="?", type=type, default=None, help=argparse.SUPPRESS)
    parser.set_defaults(_dataset_dest=dest)


def add_hub_token_argument(parser: argparse.ArgumentParser) -> None:
    """`--hub-token`: the Hugging Face Hub's token, a name apart from a web page's `--page-token`."""
    help = ("Hub token with write access; default: HF_TOKEN or the saved `hf auth login` token "
            "(prefer those: a token on the command line stays in shell history)")
    parser.add_argument("--hub-token", dest="hub_token", help=help)
    parser.add_argument("--token", dest="hub_token", help=argparse.SUPPRESS)  # the first release's name


def _dataset_given(args: argparse.Namespace) -> str | None:
    """The usage error of a command that names no dataset, or of one that names two; None if one is named."""
    dest = getattr(args, "_dataset_dest", None)
    if dest is None:
        return None
    positional = getattr(args, f"{dest}_positional", None)
    if positional is not None and getattr(args, dest) is not None:
        return "the dataset is given twice (use --dataset alone)"
    if positional is not None:
        setattr(args, dest, positional)
    return "the following arguments are required: --dataset" if getattr(args, dest) is None else None


def build_parser(prog: str, description: str, registrars: Iterable[Registrar]) -> argparse.ArgumentParser:
    """The command's parser: each of `registrars` adds one subcommand whose handler is `args.func`
    (the docs' CLI reference is generated from it)."""
    parser = OneLineParser(prog=prog, description=description)
    parser.add_argument("--version", action="version", version=f"{prog} {__version__}",
                        help="print the version and exit")
    sub = parser.add_subparsers(dest="command", required=True)
    for register in registrars:
        register(sub)
    return parser


class _Stderr(logging.Handler):
    """The library's warnings as plain lines on the stderr of the moment (a test's capture included)."""

    def emit(self, record: logging.LogRecord) -> None:
        sys.stderr.write(self.format(record) + "\n")


def _warnings_to_stderr() -> None:
    """Library code warns through `logging` (the layer rule: no printing outside `cli/`); a command
    shows those warnings on stderr, once per process whatever the root logger holds."""
    for name in ("dicobench", "multipanelvqa"):
        logger = logging.getLogger(name)
        if not any(isinstance(h, _Stderr) for h in logger.handlers):
            logger.addHandler(_Stderr(logging.WARNING))


# a build's manifest folder -> its command
BUILD_MARKERS = {".dicobench": "dicobench", ".multipanelvqa": "multipanelvqa"}


def _check_benchmark(prog: str, args: argparse.Namespace) -> None:
    """Refuse a local `--dataset` folder that is the other benchmark's build (its rows, tasks and
    answers mean nothing to this command), before anything is read or written."""
    folder = getattr(args, getattr(args, "_dataset_dest", None) or "dataset", None)
    if not isinstance(folder, (str, os.PathLike)) or f".{prog}" not in BUILD_MARKERS:
        return
    folder = Path(folder).expanduser()
    try:
        if not folder.is_dir() or (folder / f".{prog}").is_dir():
            return
        other = next((name for marker, name in BUILD_MARKERS.items() if (folder / marker).is_dir()), None)
    except OSError:
        return
    if other is not None:
        raise UserError(f"{folder} is a {other} build, not a {prog} one: use `{other} {args.command} ...` on it")


def run(prog: str, description: str, registrars: Iterable[Registrar], argv: Sequence[str] | None = None) -> int:
    """Build the parser from `registrars` and run it: 0 on success, 2 with a single `error:` line
    on bad input."""
    _warnings_to_stderr()
    parser = build_parser(prog, description, registrars)
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        args = parser.parse_args(argv)
        problem = _dataset_given(args)
        if problem:
            raise UsageError(f"{prog} {args.command}", problem)
    except UsageError as exc:
        print(f"{exc.prog}: error: {redact(str(exc), argv)} (see {exc.prog} --help)", file=sys.stderr)
        raise SystemExit(2) from None
    try:
        _check_benchmark(prog, args)
        return int(args.func(args) or 0)
    except UserError as exc:
        return _fail(prog, str(exc))
    except OSError as exc:  # a file or the network the user pointed at: their input, not a bug
        return _fail(prog, describe_os_error(exc))
    except KeyboardInterrupt:
        print(f"{prog}: interrupted; rerun the same command to resume", file=sys.stderr)
        return 130


def benchmark_parser(benchmark: Benchmark) -> argparse.ArgumentParser:
    """The command of `benchmark` with every subcommand's options (the docs' CLI reference is
    generated from it; running the command builds only the one it runs)."""
    return build_parser(benchmark.name, benchmark.description, [_registrar(benchmark, c) for c in benchmark.commands])


def run_benchmark(benchmark: Benchmark, argv: Sequence[str] | None = None) -> int:
    """`run` over the subcommands `benchmark` lists, importing only the module of the one the
    command line names: the others are listed by name and help, so `--help` and `--version` load
    none of them (scoring's matplotlib, pandas and datasets among them)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    # the top-level parser has no option that takes a value: its first other argument is the subcommand
    chosen = next((arg for arg in argv if not arg.startswith("-")), None)
    registrars = [_registrar(benchmark, c) if c.name == chosen else _listing(benchmark, c) for c in benchmark.commands]
    return run(benchmark.name, benchmark.description, registrars, argv)


def _registrar(benchmark: Benchmark, command: Command) -> Registrar:
    target = command.registrar.load()
    return target(benchmark, command) if command.shared else target


def _listing(benchmark: Benchmark, command: Command) -> Registrar:
    """A subcommand's name and help line only, as the top-level parser lists it."""

    def register(subparsers: argparse._SubParsersAction) -> None:
        subparsers.add_parser(command.name, help=command.help.format(benchmark=benchmark), add_help=False)

    return register


def _fail(prog: str, message: str) -> int:
    print(f"{prog}: error: {' '.join(message.split())}", file=sys.stderr)
    return 2


def describe_os_error(exc: OSError) -> str:
    """`strerror: filename` for file errors, the first line of the message for others."""
    if exc.strerror and exc.filename is not None:
        return f"{exc.strerror}: {exc.filename}"
    return first_line(exc)


def add_build_arguments(parser: argparse.ArgumentParser, compress_level: int | None = 1,
                        compress_note: str = "default 1") -> None:
    """The options every `build` command shares (`compress_level`: its default, and the help's note on it)."""
    parser.add_argument("--out", required=True,
                        help="output folder (created; must be empty unless resuming or --overwrite)")
    parser.add_argument("--seed", type=non_negative_int, default=0, help="root seed, 0 or more (default 0)")
    parser.add_argument("--num-proc", type=int, default=None, help="worker processes (default: all cores)")
    parser.add_argument("--overwrite", action="store_true", help="replace an existing build")
    parser.add_argument("--compress-level", type=int, default=compress_level,
                        help=f"PNG compress level 0-9 ({compress_note}; lossless at any level)")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    parser.add_argument("--engine", default="local", choices=["local", "ray"],
                        help="local: worker processes here (default); ray: Ray Data on a Ray cluster "
                             "(pip install 'dicobench[scale]')")
    parser.add_argument("--ray-address", default=None,
                        help="with --engine ray: auto (the running cluster) or ray://HOST:PORT; "
                             "default: a local Ray with --num-proc CPUs")
    parser.add_argument("--num-shards", type=int, default=None,
                        help="Parquet shards per config, at most (overrides the rows per shard); "
                             "fixes file names across rebuilds")


def add_score_arguments(p: argparse.ArgumentParser, config_help: str) -> None:
    """The options both `score` commands share: what to score against what, where to write it, and
    how the result is named and bootstrapped."""
    p.add_argument("predictions", type=Path, help="JSON Lines file, one {\"id\", \"response\"} object per line")
    p.add_argument("--dataset", required=True, metavar="DIR_OR_REPO", help="dataset folder (or Hub repo id)")
    p.add_argument("--config", default="all", help=config_help)
    p.add_argument("--split", default="test", help="split to score (default test)")
    p.add_argument("--out", type=Path, help="output folder (default: PREDICTIONS without suffix + '.scores')")
    p.add_argument("--name", help="model name on the charts and leaderboards (default: the predictions file name)")
    p.add_argument("--model", dest="model", help=argparse.SUPPRESS)  # the first release's name for --model-id
    p.add_argument("--model-id", dest="model",
                   help="the model's id, recorded in scores.json (default: from run.json beside "
                        "PREDICTIONS, written by eval)")
    p.add_argument("--n-boot", type=int, default=2000, help="bootstrap resamples for the CIs")
    p.add_argument("--limit", type=positive_int, metavar="N",
                   help="the predictions answer the first N rows of each config (eval --limit N, lmms-eval "
                        "--limit N): the other rows are unscored, so the result is incomplete and reports accuracy "
                        "bounds over the whole split")
    p.add_argument("--allow-partial", action="store_true",
                   help="score predictions that answer only some rows (a smoke test such as lmms-eval --limit): "
                        "the rows without a prediction are unscored and the result reports bounds, not an accuracy")
    p.add_argument("--html", type=Path, metavar="FILE",
                   help="also write the run's one-file HTML report there (as `report OUT --out FILE` does)")




def run_options(args: argparse.Namespace):
    """The `dicobench.kit.engines.driver.RunOptions` the shared build arguments give."""
    from dicobench.kit.engines.driver import RunOptions

    return RunOptions(args.split, args.overwrite, args.engine, args.num_proc, args.ray_address, not args.quiet)


def build_handler(build: Callable,
                  options: Callable[[argparse.Namespace], object]) -> Callable[[argparse.Namespace], int]:
    """The handler of a `build` subcommand: build the options the arguments give, then say how to load the result."""

    def handle(args: argparse.Namespace) -> int:
        out = build(args.out, options(args))
        print(f"wrote {out} (load with datasets.load_dataset({str(out)!r}, 'all', split={args.split!r}))")
        return 0

    return handle
