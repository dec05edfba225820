"""A `datasets` builder for DiCoBench, for users who want `download_and_prepare()` and the cache.

It runs the same pure generator as `dicobench build`, so rows are identical for the same
options. Use it directly (datasets 4+ no longer runs loading scripts by name):

    from builder_scripts.dicobench_builder import DiCoBench
    builder = DiCoBench(config_name="attribute", per_task=8, cache_dir="cache")
    builder.download_and_prepare(num_proc=2)
    ds = builder.as_dataset(split="test")
"""

from __future__ import annotations

from dataclasses import dataclass

import datasets

from dicobench.kit.scene.difficulty import DEFAULT
from dicobench.build import Procedural, camera_bounds
from dicobench.generate import BuildOptions, generate_row, letter_schedule
from dicobench.schema import TASKS, features


@dataclass
class DiCoBenchConfig(datasets.BuilderConfig):
    """One task, or `all`; `per_task` rows per task from root `seed`, at a difficulty preset
    (`easy`, `hard`, the default as for `dicobench build`, or `extreme`), each image through its
    own camera or not (`camera`: "on", "none", default the preset's, as for `dicobench build`)."""

    per_task: int = 96
    seed: int = 0
    difficulty: str = DEFAULT
    camera: str | None = None


class DiCoBench(datasets.GeneratorBasedBuilder):
    BUILDER_CONFIG_CLASS = DiCoBenchConfig
    BUILDER_CONFIGS = [DiCoBenchConfig(name=t) for t in TASKS] + [DiCoBenchConfig(name="all")]
    DEFAULT_CONFIG_NAME = "all"

    def _info(self) -> datasets.DatasetInfo:
        return datasets.DatasetInfo(
            description="DiCoBench, generated procedurally by the dicobench toolkit.",
            features=features(),
            license="cc-by-4.0",
        )

    def _split_generators(self, dl_manager):
        tasks = list(TASKS) if self.config.name == "all" else [self.config.name]
        # One list entry per task, so `num_proc` spreads tasks over processes.
        return [datasets.SplitGenerator(name=datasets.Split.TEST, gen_kwargs={"tasks": tasks, "split": "test"})]

    def _generate_examples(self, tasks, split):
        source = Procedural.at(self.config.difficulty)
        opts = BuildOptions(per_task=self.config.per_task, seed=self.config.seed, split=split, scene=source.scene,
                            camera=camera_bounds(self.config.camera, source))
        for task in tasks:
            letters = letter_schedule(task, opts.per_task, opts.seed, split)
            for index, letter in enumerate(letters):
                row, _ = generate_row(task, index, letter, opts)
                yield row["id"], row
