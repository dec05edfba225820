"""One benchmark's definition, the one object the shared layer reads it from (in the spirit of
lm-evaluation-harness' Task): its schema and configs, manifest folder, prompt and evaluation, the
review and study views with their criteria, the preview item, the harness row maps, the card
and the commands it adds. Each benchmark package holds one (`dicobench.benchmark.BENCHMARK`,
`multipanelvqa.benchmark.BENCHMARK`); the shared layer builds the command line, the web app,
the preview, the human figure and the harness adapters from it.

A definition is cheap to import (`dicobench --help` reads it): what needs heavy libraries is
named by a `Ref` and imported on first use.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Callable

from dicobench.kit.people.webapp.spec import BenchmarkSpec
from dicobench.kit.registry import Ref

if TYPE_CHECKING:
    import datasets

    from dicobench.kit.eval.harnesses.vlmevalkit import Flavour
    from dicobench.kit.report.preview import Drawer


@dataclasses.dataclass(frozen=True)
class Command:
    """A subcommand as the top-level parser lists it, and where its options are, imported only
    when it runs (or the full parser is built). `registrar` names the package's
    `register(subparsers)`, or, with `shared`, a factory in `dicobench.kit.cli.shared` that makes
    the registrar from the definition and this listing. `help` may name the definition's fields, as
    "{benchmark.metric}"."""

    name: str
    help: str
    registrar: Ref
    shared: bool = False


@dataclasses.dataclass(frozen=True)
class Preview:
    """The contact sheet's view of a row (`dicobench.kit.report.preview`)."""

    item: Callable  # (row, features) -> (images, boxes, caption)
    columns: tuple[str, ...]  # the columns `item` reads


@dataclasses.dataclass(frozen=True)
class Harnesses:
    """How the benchmark appears in lmms-eval, VLMEvalKit and Inspect."""

    lmms_eval_callbacks: Ref  # the lmms-eval callbacks' doc_to_text: its module is copied into an exported task folder
    text_columns: tuple[str, ...]  # the columns its prompt text is made of
    # the benchmark's `dicobench.kit.eval.harnesses.vlmevalkit.Flavour` (its module's VLMEVALKIT)
    vlmevalkit_flavour: Ref
    inspect_task: Ref  # the Inspect @task (found through the distribution's `inspect_ai` entry point)
    max_new_tokens: int = 64

    @property
    def inspect_name(self) -> str:
        """What `inspect eval` calls the task: the distribution's entry point (`dicobench`), then its name."""
        return "dicobench/" + self.inspect_task.path.rpartition(":")[2]

    @property
    def flavour(self) -> Flavour:
        return self.vlmevalkit_flavour.load()


@dataclasses.dataclass(frozen=True)
class Results:
    """How a scored run reads row by row and as a page: the results explorer (`review --predictions`)
    and the HTML report (`report`, `score --html`); `dicobench.kit.eval.runs`."""

    outcomes: Ref  # (ScoredRun, dataset) -> [Outcome]: each row as `score` reached it
    error_types: Ref  # the kinds of wrong answer an Outcome names, in order
    table: Ref  # scores -> the score table's rows as text cells (a header first)
    notes: Ref  # scores -> the lines `score` prints under its table
    figures: Ref  # (scores, name) -> the Figures `score` draws


@dataclasses.dataclass(frozen=True)
class Human:
    """The human figure (`<benchmark> human`): its `dicobench.kit.people.human.HumanFigure` (series,
    title, score_lines), and whether its scoring can ask a judge."""

    figure: Ref
    judge: bool = False


@dataclasses.dataclass(frozen=True)
class Benchmark:
    """Everything the shared layer needs to know about one benchmark."""

    name: str  # the command, the harnesses' group and the Inspect task
    description: str  # the command's one line
    manifest_dir: str  # the folder of manifests inside a build
    configs: tuple[str, ...]  # every config, the default among them
    default_config: str
    features: Callable[[], datasets.Features]  # the `datasets` schema
    prompt: Ref  # row -> the model's messages
    evaluation: Ref  # the evaluation engine's factory of the benchmark (dicobench.kit.eval.evaluation.Benchmark)
    metric: str  # its `evaluate` module (dicobench.kit.release.metric_modules)
    card: Ref  # write_card(folder): the dataset card, regenerated after a push's --license
    people: BenchmarkSpec  # the review and study views and the review criteria
    preview: Preview
    harnesses: Harnesses
    human: Human
    results: Results
    commands: tuple[Command, ...]  # in the order `--help` lists them

    def __post_init__(self):
        names = [c.name for c in self.commands]
        if len(set(names)) != len(names):
            raise ValueError(f"{self.name}: a subcommand is declared twice: {names}")
        if self.default_config not in self.configs:
            raise ValueError(f"{self.name}: default config {self.default_config!r} is not one of {self.configs}")
        # the people views' part of the definition: its name, manifest folder and schema come from here
        object.__setattr__(self, "people", dataclasses.replace(self.people, name=self.name,
                                                                manifest_dir=self.manifest_dir,
                                                                features=self.features))

    def drawer(self) -> Drawer:
        """The preview's `Drawer` (it types the columns with the schema, so `datasets` loads here)."""
        from dicobench.kit.report.preview import Drawer

        return Drawer(self.name, self.preview.item, self.features(), self.preview.columns)
