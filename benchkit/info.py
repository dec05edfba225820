"""What a dataset card holds, for `info DIR_OR_REPO`: configs, rows per config and answer, image
sizes, bytes per row, licence, and, for a local folder, how much of it people have reviewed."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from huggingface_hub import DatasetCard

from benchkit.card import STATS_KEY, markdown_table
from benchkit.dataset_input import locate
from benchkit.errors import UserError
from benchkit.hub import hub_errors

REVIEW_DECISIONS = Path(".review") / "decisions.jsonl"


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


def review_coverage(folder: Path, rows: int) -> str:
    """"k of n rows reviewed (a accepted, r rejected)" from the folder's review decisions
    (latest per id and reviewer), or that none were recorded."""
    path = folder / REVIEW_DECISIONS
    if not path.is_file():
        return "no review decisions recorded"
    latest: dict[tuple[str, str], str] = {}
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
            latest[(str(record["id"]), str(record.get("reviewer", "")))] = record["verdict"]
        except (json.JSONDecodeError, KeyError, TypeError):
            raise UserError(f"{path}:{number}: not a review decision (id, reviewer, verdict)") from None
    per_id: dict[str, set[str]] = {}
    for (key, _), verdict in latest.items():
        per_id.setdefault(key, set()).add(verdict)
    verdicts = Counter("reject" if "reject" in v else "accept" for v in per_id.values())
    return (f"{len(per_id)} of {rows} rows reviewed ({verdicts['accept']} accepted, "
            f"{verdicts['reject']} rejected by at least one reviewer)")


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
        licence += f" ({meta['license_name']}" + (f", {meta['license_link']}" if meta.get("license_link") else "") + ")"
    lines = [f"{meta.get('pretty_name', dataset)}: {dataset}", f"licence: {licence}", "configs: " + ", ".join(names)]
    stats = meta.get(STATS_KEY)
    if not stats:
        lines.append("(this card has no per-config statistics: built by an older version)")
        return "\n".join(lines)
    total = 0
    for split, per_config in stats.items():
        rows = []
        for config, s in per_config.items():
            side = s.get("image_long_side")
            rows.append([config, s["rows"], _answers(s.get("answers") or {}),
                         f"{side['min']}-{side['max']} (mean {side['mean']})" if side else "-", s["bytes_per_row"]])
            total += s["rows"] if split == "test" else 0
        lines += [f"split {split}:", markdown_table(["config", "rows", "answers", "image long side px", "bytes/row"], rows)]
    if Path(dataset).expanduser().is_dir():
        lines.append("review: " + review_coverage(Path(dataset).expanduser(), total))
    return "\n".join(lines)


def _answers(answers: dict) -> str:
    """{A: 3, B: 2} -> "A 3, B 2"; nested groups (MultipanelVQA's q1/q3) as "q1 no 2 yes 2; q3 a 1"."""
    if all(isinstance(v, dict) for v in answers.values()):
        return "; ".join(f"{group} " + " ".join(f"{k} {v}" for k, v in inner.items()) for group, inner in answers.items())
    return ", ".join(f"{k} {v}" for k, v in answers.items())
