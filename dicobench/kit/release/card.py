"""Dataset cards: README.md written with huggingface_hub's `DatasetCard` from the project's template.

A card is metadata (`DatasetCardData`: what a Hub search and `load_dataset` read, including the
YAML `configs:` and `dataset_info`) plus a list of named sections. Sections carry a stable `key`
so that other parts of the toolkit can add theirs at a known place (`insert_section`).
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Iterable, Mapping, Sequence

import pyarrow.parquet as pq

from dicobench.kit.io.shards import Location, child, resolve, write_text_atomic
from dicobench.kit.release.viewer import heavy_pages, viewer_note

if TYPE_CHECKING:
    import datasets
    from huggingface_hub import DatasetCardData

TEMPLATE = Path(__file__).with_name("templates") / "dataset_card.md"
STATS_KEY = "benchmark_stats"  # card metadata: rows per config and answer, image sizes, bytes per row


@dataclass(frozen=True)
class Section:
    key: str  # stable name, e.g. "creation", "licences"
    title: str
    body: str
    level: int = 2


def insert_section(sections: Sequence[Section], section: Section, after: str) -> list[Section]:
    """`sections` with `section` placed right after the one keyed `after` (at the end if absent)."""
    keys = [s.key for s in sections]
    at = keys.index(after) + 1 if after in keys else len(sections)
    return [*sections[:at], section, *sections[at:]]


def human_review(markdown: str) -> Section:
    """The "Human review" section from `dicobench.kit.people.review_report.review_section`'s markdown."""
    return Section("human_review", "Human review", markdown.removeprefix("## Human review").strip())


def configs_block(configs: dict[str, dict[str, list[str]]], default: str) -> list[dict]:
    """YAML `configs` entries: {config: {split: [path globs]}}; `default` gets `default: true`."""
    out = []
    for name, splits in configs.items():
        entry = {"config_name": name, "data_files": [{"split": s, "path": globs} for s, globs in splits.items()]}
        if name == default:
            entry["default"] = True
        out.append(entry)
    return out


def size_category(rows: int) -> str:
    """The Hub's `size_categories` bucket of a row count."""
    for limit, label in ((1_000, "n<1K"), (10_000, "1K<n<10K"), (100_000, "10K<n<100K"),
                         (1_000_000, "100K<n<1M"), (10_000_000, "1M<n<10M")):
        if rows < limit:
            return label
    return "10M<n<100M"


@dataclass(frozen=True)
class ShardSizes:
    rows: int
    num_bytes: int  # uncompressed, as `datasets` reports a split's size
    file_bytes: int  # on disk, what a download costs


def shard_sizes(shards: Iterable[Location]) -> ShardSizes:
    """Rows and bytes of Parquet shards, from their footers alone."""
    rows = num_bytes = file_bytes = 0
    for shard in shards:
        fs, path = resolve(shard)
        with fs.open(path, "rb") as f:
            meta = pq.ParquetFile(f).metadata
        rows += meta.num_rows
        num_bytes += sum(meta.row_group(i).total_byte_size for i in range(meta.num_row_groups))
        file_bytes += fs.size(path)
    return ShardSizes(rows, num_bytes, file_bytes)


def dataset_info(features: datasets.Features, sizes: dict[str, dict[str, ShardSizes]]) -> list[dict]:
    """YAML `dataset_info`: features and split sizes per config ({config: {split: ShardSizes}})."""
    out = []
    for config, splits in sizes.items():
        out.append({
            "config_name": config,
            "features": features._to_yaml_list(),  # a fresh list per config: no YAML anchors
            "splits": [{"name": s, "num_bytes": z.num_bytes, "num_examples": z.rows} for s, z in splits.items()],
            "download_size": sum(z.file_bytes for z in splits.values()),
            "dataset_size": sum(z.num_bytes for z in splits.values()),
        })
    return out


def long_side_summary(sides: Sequence[int]) -> dict | None:
    return {"min": min(sides), "mean": round(statistics.mean(sides)), "max": max(sides)} if sides else None


def benchmark_card_data(licence: Mapping, pretty_name: str, configs: dict[str, dict[str, list[str]]], default: str,
                        features: datasets.Features, sizes: dict[str, dict[str, ShardSizes]], stats: Mapping,
                        **fields) -> DatasetCardData:
    """The metadata every card of a generated benchmark carries (licence, English and machine-made,
    its configs, sizes and the `STATS_KEY` block), plus the benchmark's own `fields` (tags, tasks,
    source datasets)."""
    from huggingface_hub import DatasetCardData  # deferred, as the Hub client is slow to import

    return DatasetCardData(
        **licence,
        pretty_name=pretty_name,
        language=["en"],
        annotations_creators=["machine-generated"],
        language_creators=["machine-generated"],
        multilinguality=["monolingual"],
        size_categories=[size_category(max((z.rows for z in sizes[default].values()), default=0))],
        **fields,  # before the configs: the YAML keeps the order it was given
        configs=configs_block(configs, default=default),
        dataset_info=dataset_info(features, sizes),
        **{STATS_KEY: stats},
    )


def render_card(card_data: DatasetCardData, pretty_name: str, summary: str, sections: Sequence[Section]) -> str:
    """The card's text: YAML metadata, title, summary and sections, through the template."""
    from huggingface_hub import DatasetCard

    card = DatasetCard.from_template(card_data, template_path=str(TEMPLATE), pretty_name=pretty_name,
                                     summary=summary.strip(), sections=[s for s in sections if s.body.strip()])
    return str(card).rstrip() + "\n"


def write_card_file(out: Location, card_data: DatasetCardData, pretty_name: str, summary: str,
                    sections: Sequence[Section], pages: Mapping[str, Iterable[str]] | None = None) -> Location:
    """Write the card to `out`/README.md. `pages` ({config folder: its splits}) are measured against
    the Dataset Viewer's page limit: when a 100-row page of any would be over it, the card gets
    `viewer: false` and a paragraph saying so after its "load" section's text; otherwise the card
    is exactly what `card_data` and `sections` make."""
    heavy = heavy_pages(out, pages or {})
    if heavy:
        card_data.viewer = False
        sections = _with_note(sections, "load", viewer_note(heavy))
    path = child(out, "README.md")
    write_text_atomic(path, render_card(card_data, pretty_name, summary, sections))
    return path


def _with_note(sections: Sequence[Section], key: str, note: str) -> list[Section]:
    """`sections` with the paragraph `note` ending the one keyed `key` (a section of its own if absent)."""
    if key not in [s.key for s in sections]:
        return [Section(key, "Dataset Viewer", note), *sections]
    return [replace(s, body=s.body.rstrip() + "\n\n" + note) if s.key == key else s for s in sections]


def markdown_table(header: list[str], rows: list[list]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)
