"""DiCoBench's definition: everything the shared layer (`dicobench.kit`) builds the `dicobench`
command, the review and study pages, the preview, the human figure and the harness adapters
from. Cheap to import: what needs heavy libraries is named by a `Ref`."""

from __future__ import annotations

from dicobench import people, preview
from dicobench.kit.benchmark import Benchmark, Command, Harnesses, Human, Preview, Results
from dicobench.kit.cli.shared import shared
from dicobench.kit.people.webapp.spec import BenchmarkSpec
from dicobench.kit.registry import Ref
from dicobench.schema import CONFIG_COLUMN, CONFIGS, MANIFEST_DIR, TASKS, features


def _own(name: str, help: str) -> Command:
    """A subcommand of this package: `dicobench.cli.<module>.register`."""
    return Command(name, help, Ref(f"dicobench.cli.{name}:register"))


BENCHMARK = Benchmark(
    name="dicobench",
    description="Generate, ship and score DiCoBench.",
    manifest_dir=MANIFEST_DIR,
    configs=CONFIGS,
    default_config="all",
    features=features,
    prompt=Ref("dicobench.prompting:prompt"),
    evaluation=Ref("dicobench.evaluation:benchmark"),
    metric="dicobench_accuracy",
    card=Ref("dicobench.card:write_card"),
    people=BenchmarkSpec(
        configs=TASKS,
        image_columns=("image_a", "image_b"),
        image_labels=("Image 1", "Image 2"),
        group_column=CONFIG_COLUMN,
        criteria=people.CRITERIA,
        review_view=people.review_view,
        study_view=people.study_view,
        study_group="task",
        annotations=True,
    ),
    preview=Preview(preview.item, preview.COLUMNS),
    harnesses=Harnesses(
        lmms_eval_module="dicobench.harnesses.lmms_eval_task",
        text_columns=("question", "options"),
        vlmevalkit_module="dicobench.harnesses.vlmevalkit_task",
        inspect_task=Ref("dicobench.harnesses.inspect_tasks:dicobench"),
    ),
    human=Human("dicobench.human"),
    results=Results(
        outcomes=Ref("dicobench.outcomes:row_outcomes"),
        error_types=Ref("dicobench.analysis:ERROR_TYPES"),
        table=Ref("dicobench.results:table_rows"),
        notes=Ref("dicobench.results:table_notes"),
        figures=Ref("dicobench.results:figures"),
    ),
    commands=(
        _own("build", "generate the benchmark into a folder of Parquet shards with a dataset card"),
        _own("annotate", "detect and segment named objects in plain photos, written as a COCO file"),
        _own("eval", "run a model on DiCoBench and score it"),
        _own("score", "score a predictions file against a DiCoBench dataset"),
        *shared("push", "info", "publish-metric", "preview", "review", "study", "human", "report"),
        _own("leaderboard", "a table of several models' scores (Markdown, CSV, LaTeX) and the papers' charts"),
        *shared("export", "import"),
        _own("catalogue", "list the object catalogue, draw its contact sheets, rank its look-alike glyphs"),
    ),
)
