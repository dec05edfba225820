"""MultipanelVQA's definition: everything the shared layer (`dicobench.kit`) builds the
`multipanelvqa` command, the review and study pages, the preview, the human figure and the harness
adapters from. Cheap to import: what needs heavy libraries is named by a `Ref`."""

from __future__ import annotations

from dicobench.kit.benchmark import Benchmark, Command, Harnesses, Human, Preview, Results
from dicobench.kit.cli.shared import shared
from dicobench.kit.people.webapp.spec import BenchmarkSpec
from dicobench.kit.registry import Ref
from multipanelvqa import people, preview
from multipanelvqa.schema import CONFIG_COLUMN, CONFIGS, DEFAULT_CONFIG, MANIFEST_DIR, features

BENCHMARK = Benchmark(
    name="multipanelvqa",
    description="Generate, ship and score MultipanelVQA.",
    manifest_dir=MANIFEST_DIR,
    configs=CONFIGS,
    default_config=DEFAULT_CONFIG,
    features=features,
    prompt=Ref("multipanelvqa.prompting:prompt"),
    evaluation=Ref("multipanelvqa.evaluation:benchmark"),
    metric="multipanelvqa_accuracy",
    card=Ref("multipanelvqa.card:write_card"),
    people=BenchmarkSpec(
        configs=tuple(c for c in CONFIGS if c != DEFAULT_CONFIG),
        image_columns=("image",),
        image_labels=("Multipanel image",),
        group_column=CONFIG_COLUMN,
        criteria=people.CRITERIA,
        review_view=people.review_view,
        study_view=people.study_view,
        study_group="question_type",
    ),
    preview=Preview(preview.item, preview.COLUMNS),
    harnesses=Harnesses(
        lmms_eval_callbacks=Ref("multipanelvqa.harnesses.lmms_eval_task:doc_to_text"),
        text_columns=("question", "question_type"),
        vlmevalkit_flavour=Ref("multipanelvqa.harnesses.vlmevalkit_task:VLMEVALKIT"),
        inspect_task=Ref("dicobench.harnesses.inspect_tasks:multipanelvqa"),
    ),
    human=Human(Ref("multipanelvqa.human:FIGURE"), judge=True),
    results=Results(
        outcomes=Ref("multipanelvqa.outcomes:row_outcomes"),
        error_types=Ref("multipanelvqa.outcomes:ERROR_TYPES"),
        table=Ref("multipanelvqa.results:table_rows"),
        notes=Ref("multipanelvqa.results:table_notes"),
        figures=Ref("multipanelvqa.results:figures"),
    ),
    commands=(
        Command("build", "generate the synthetic configs into a folder of Parquet shards with a dataset card",
                Ref("multipanelvqa.cli.build:register")),
        Command("eval", "run a model on MultipanelVQA and score it",
                Ref("multipanelvqa.cli.eval:register")),
        Command("import-images", "add a real_world config from a folder of multipanel images and a JSONL of questions",
                Ref("multipanelvqa.cli.import_images:register")),
        Command("score", "score a predictions file against a MultipanelVQA dataset",
                Ref("multipanelvqa.cli.score:register")),
        *shared("push", "info", "publish-metric", "preview", "review", "study", "human", "report"),
        Command("leaderboard", "a table of several models' scores (Markdown, CSV, LaTeX) and the papers' charts",
                Ref("multipanelvqa.cli.leaderboard:register")),
        *shared("export", "import"),
    ),
)
