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
        lmms_eval_callbacks=Ref("dicobench.harnesses.lmms_eval_task:doc_to_text"),
        text_columns=("question", "options"),
        vlmevalkit_flavour=Ref("dicobench.harnesses.vlmevalkit_task:VLMEVALKIT"),
        inspect_task=Ref("dicobench.harnesses.inspect_tasks:dicobench"),
    ),
    human=Human(Ref("dicobench.human:FIGURE")),
    results=Results(
        outcomes=Ref("dicobench.outcomes:row_outcomes"),
        error_types=Ref("dicobench.analysis:ERROR_TYPES"),
        table=Ref("dicobench.results:table_rows"),
        notes=Ref("dicobench.results:table_notes"),
        figures=Ref("dicobench.results:figures"),
    ),
    commands=(
        Command("build", "generate the benchmark into a folder of Parquet shards with a dataset card",
                Ref("dicobench.cli.build:register")),
        Command("annotate", "detect and segment named objects in plain photos, written as a COCO file",
                Ref("dicobench.cli.annotate:register")),
        Command("eval", "run a model on DiCoBench and score it",
                Ref("dicobench.cli.eval:register")),
        Command("score", "score a predictions file against a DiCoBench dataset",
                Ref("dicobench.cli.score:register")),
        *shared("push", "info", "publish-metric", "preview", "review", "study", "human", "report"),
        Command("leaderboard", "a table of several models' scores (Markdown, CSV, LaTeX) and the papers' charts",
                Ref("dicobench.cli.leaderboard:register")),
        *shared("export", "import"),
        Command("catalogue", "list the object catalogue, draw its contact sheets, rank its look-alike glyphs",
                Ref("dicobench.cli.catalogue:register")),
    ),
)
