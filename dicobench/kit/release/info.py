"""What a dataset card holds, for `info DIR_OR_REPO`: configs, rows per config and answer, image
sizes, bytes per row, licence, and how much of it people have reviewed."""

from __future__ import annotations

from pathlib import Path

from huggingface_hub import DatasetCard

from dicobench.kit.errors import UserError
from dicobench.kit.io.dataset_input import locate
from dicobench.kit.release.card import STATS_KEY, markdown_table
from dicobench.kit.release.hub import hub_errors

HUMAN_REVIEW = "Human review"  # the title of dicobench.kit.release.card.human_review's section


def load_card(dataset: str) -> DatasetCard:
    """The card of a built folder or of a Hub dataset repo."""
    where = locate(dataset)
    if Path(where).is_dir():
        readme = Path(where) / "README.md"
        if not readme.is_file():
            raise UserError(f"{readme} not found: pass the folder that `build` wrote")
        return DatasetCard.load(readme)
    with hub_errors(where):
        return DatasetCard.load(where, repo_type="dataset")


def review_coverage(card: DatasetCard) -> str:
    """The first paragraph of the card's "Human review" section (rows reviewed, reviewers,
    rejections), or that the card records no review."""
    _, found, rest = card.text.partition(f"\n## {HUMAN_REVIEW}\n")
    paragraphs = [p.strip() for p in rest.split("\n\n") if p.strip()] if found else []
    return " ".join(paragraphs[0].split()) if paragraphs else "no human review recorded in the card"


def describe(dataset: str) -> str:
    """The text `info` prints."""
    card = load_card(dataset)
    meta = card.data.to_dict()
    configs = meta.get("configs") or []
    if not configs:
        raise UserError(f"the card of {dataset} has no `configs:`: is it a dataset that `build` wrote?")
    names = [c["config_name"] + (" (default)" if c.get("default") else "") for c in configs]
    licence = meta.get("license", "unknown")
    if meta.get("license_name"):
        licence += (f" ({meta['license_name']}" + (f", {meta['license_link']}" if meta.get("license_link") else "")
                    + ")")
    lines = [f"{meta.get('pretty_name', dataset)}: {dataset}", f"licence: {licence}", "configs: " + ", ".join(names)]
    stats = meta.get(STATS_KEY)
    if not stats:
        lines.append("(this card has no per-config statistics: built by an older version)")
        return "\n".join(lines)
    for split, per_config in stats.items():
        rows = []
        for config, s in per_config.items():
            side = s.get("image_long_side")
            rows.append([config, s["rows"], _answers(s.get("answers") or {}),
                         f"{side['min']}-{side['max']} (mean {side['mean']})" if side else "-", s["bytes_per_row"]])
        lines += [f"split {split}:",
                  markdown_table(["config", "rows", "answers", "image long side px", "bytes/row"], rows)]
    lines.append("review: " + review_coverage(card))
    return "\n".join(lines)


def _answers(answers: dict) -> str:
    """{A: 3, B: 2} -> "A 3, B 2"; nested groups (MultipanelVQA's q1/q3) as "q1 no 2 yes 2; q3 a 1"."""
    if all(isinstance(v, dict) for v in answers.values()):
        return "; ".join(f"{group} " + " ".join(f"{k} {v}" for k, v in inner.items())
                         for group, inner in answers.items())
    return ", ".join(f"{k} {v}" for k, v in answers.items())
