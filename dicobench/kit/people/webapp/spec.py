"""What the review and study pages need to know about one benchmark, in one place: the `people` part
of its definition (`dicobench.kit.benchmark.Benchmark`)."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import TYPE_CHECKING, Callable

from dicobench.kit.errors import UserError

if TYPE_CHECKING:
    import datasets

STUDY_DIR = ".study"  # study answers, one file per participant and time limit, inside the build


@dataclasses.dataclass(frozen=True)
class BenchmarkSpec:
    configs: tuple[str, ...]  # config folders
    image_columns: tuple[str, ...]  # in display order
    image_labels: tuple[str, ...]
    group_column: str  # progress, filters and study balance are per value of this column
    criteria: tuple[tuple[str, str], ...]  # (key written to the log, label on the page)
    review_view: Callable[[dict], dict]  # row -> what the review page shows (answer included)
    study_view: Callable[[dict], dict]  # row -> what a study participant sees: nothing that leaks the answer
    study_group: str  # a study's sample is balanced over the values of this column
    annotations: bool = False  # `review` also opens a COCO annotation file (the photos a photo build reads)
    # the benchmark's name, manifest folder and schema (every column the pages and their reports read):
    # filled in from its definition (`dicobench.kit.benchmark.Benchmark`), never written twice
    name: str = ""
    manifest_dir: str = ""  # a build holds this folder (its manifests)
    features: Callable[[], datasets.Features] | None = None

    @property
    def columns(self) -> tuple[str, ...]:
        return tuple(self.features())

    @property
    def criteria_keys(self) -> tuple[str, ...]:
        return tuple(k for k, _ in self.criteria)

    def check_build(self, root: Path, config: str = "all", split: str = "test") -> None:
        """A build of this benchmark whose shards of `config` and `split` pass `verify_build`."""
        from dicobench.kit.release.verify import verify_build

        if not root.is_dir():
            raise UserError(f"{root} is not a folder")
        if not (root / self.manifest_dir).is_dir():
            raise UserError(f"{root} is not a {self.name} build (no {self.manifest_dir} folder)")
        verify_build(root, config=config, split=split, columns=self.columns)
