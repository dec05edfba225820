"""Dataset cards: README.md with the YAML `configs:` that `load_dataset(folder, config)` reads."""

from __future__ import annotations

import yaml

from benchkit.shards import Location, child, write_text_atomic


def configs_block(configs: dict[str, dict[str, list[str]]], default: str) -> list[dict]:
    """YAML `configs` entries: {config: {split: [path globs]}}; `default` gets `default: true`."""
    out = []
    for name, splits in configs.items():
        entry = {"config_name": name, "data_files": [{"split": s, "path": globs} for s, globs in splits.items()]}
        if name == default:
            entry["default"] = True
        out.append(entry)
    return out


def write_readme(out: Location, metadata: dict, body: str) -> Location:
    text = "---\n" + yaml.safe_dump(metadata, sort_keys=False, allow_unicode=True) + "---\n\n" + body.strip() + "\n"
    path = child(out, "README.md")
    write_text_atomic(path, text)
    return path


def markdown_table(header: list[str], rows: list[list]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)
