"""The subcommands every benchmark shares, each made from the benchmark's definition
(`dicobench.kit.benchmark.Benchmark`) and its listing there (`Command`). A definition lists them as
`*shared("push", "info")`: their one-line help is in `help_texts` (what the top-level `--help` prints
without importing them), their options in the modules the factories import when they run."""

from __future__ import annotations

from typing import TYPE_CHECKING

from dicobench.kit.benchmark import Command
from dicobench.kit.cli.help_texts import HELP
from dicobench.kit.registry import Ref

if TYPE_CHECKING:
    from dicobench.kit.benchmark import Benchmark
    from dicobench.kit.cli.commands import Registrar

# each shared subcommand's factory: (benchmark definition, its listing) -> the registrar
FACTORIES = {
    "push": Ref("dicobench.kit.cli.shared:push_command"),
    "info": Ref("dicobench.kit.cli.shared:info_command"),
    "publish-metric": Ref("dicobench.kit.cli.shared:publish_metric_command"),
    "preview": Ref("dicobench.kit.cli.shared:preview_command"),
    "review": Ref("dicobench.kit.cli.shared:review_command"),
    "study": Ref("dicobench.kit.cli.shared:study_command"),
    "human": Ref("dicobench.kit.cli.shared:human_command"),
    "report": Ref("dicobench.kit.cli.shared:report_command"),
    "export": Ref("dicobench.kit.cli.shared:export_command"),
    "import": Ref("dicobench.kit.cli.shared:import_command"),
}


def shared(*commands: str) -> tuple[Command, ...]:
    """The shared subcommands `commands`, in that order (each benchmark lists them under these names:
    one grammar for both command lines)."""
    return tuple(Command(c, HELP[c], FACTORIES[c], shared=True) for c in commands)


def push_command(benchmark: Benchmark, command: Command) -> Registrar:
    from dicobench.kit.cli import push

    return push.make_register(benchmark.card)


def info_command(benchmark: Benchmark, command: Command) -> Registrar:
    from dicobench.kit.cli import info

    return info.register


def publish_metric_command(benchmark: Benchmark, command: Command) -> Registrar:
    from dicobench.kit.cli import metric

    return metric.make_register(benchmark.metric)


def preview_command(benchmark: Benchmark, command: Command) -> Registrar:
    from dicobench.kit.cli import preview

    return preview.make_register(benchmark.drawer())


def review_command(benchmark: Benchmark, command: Command) -> Registrar:
    from dicobench.kit.cli.webapp import make_review_register

    return make_review_register(benchmark.people, annotations=benchmark.people.annotations, results=benchmark.results)


def study_command(benchmark: Benchmark, command: Command) -> Registrar:
    from dicobench.kit.cli.webapp import make_study_register

    return make_study_register(benchmark.people)


def human_command(benchmark: Benchmark, command: Command) -> Registrar:
    from dicobench.kit.cli.human import make_human_register

    return make_human_register(benchmark.people, benchmark.human.figure, judge=benchmark.human.judge)


def report_command(benchmark: Benchmark, command: Command) -> Registrar:
    from dicobench.kit.cli import report

    return report.make_register(benchmark)


def export_command(benchmark: Benchmark, command: Command) -> Registrar:
    from dicobench.kit.cli.harnesses import make_export_register

    return make_export_register(benchmark)


def import_command(benchmark: Benchmark, command: Command) -> Registrar:
    from dicobench.kit.cli.harnesses import make_import_register

    return make_import_register(benchmark)
