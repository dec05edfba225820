"""The layout a build's card declares: its YAML front matter, the `configs:` that `load_dataset`
and the Hub read, their data-file patterns, and the Hub's glob semantics for them. Read by the
push (`hub`) and by the check of a build against its card (`verify`), which the push runs first.
"""

from __future__ import annotations

import re
from pathlib import Path

import yaml

from dicobench.kit.errors import UserError, first_line

README = "README.md"
SAFE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml's, where built: cards with dataset_info are long


def read_metadata(folder: Path) -> dict:
    """The card's YAML front matter ({} when it has none)."""
    readme = folder / README
    if not readme.is_file():
        raise UserError(f"{readme} not found: pass the folder that `build` wrote")
    match = re.match(r"---[ \t]*\r?\n(.*?)\r?\n---[ \t]*(\r?\n|$)", readme.read_text(encoding="utf-8"), re.S)
    try:
        meta = yaml.load(match.group(1), Loader=SAFE_LOADER) if match else None
    except yaml.YAMLError as exc:
        raise UserError(f"{readme}: front matter is not valid YAML ({first_line(exc)})") from None
    return meta if isinstance(meta, dict) else {}


def read_configs(folder: Path, meta: dict | None = None) -> list[dict]:
    """The card's YAML `configs:`: what `load_dataset` and the Hub read to find the data (from
    `meta`, the card's metadata when already read)."""
    readme = folder / README
    configs = (read_metadata(folder) if meta is None else meta).get("configs")
    if not isinstance(configs, list) or not configs or not all(isinstance(c, dict) for c in configs):
        raise UserError(f"{readme} has no `configs:` list in its YAML front matter")
    return configs


def card_patterns(configs: list[dict]) -> list[tuple[str, str, str]]:
    """(config, split, glob) for every data-files pattern, in the forms the Hub accepts
    (a glob, a list of globs, or a list of {split, path}; a bare glob means split `train`)."""
    out = []
    for config in configs:
        name = str(config.get("config_name", "default"))
        entries = config.get("data_files")
        entries = entries if isinstance(entries, list) else [entries]
        for entry in entries:
            split, paths = ("train", entry)
            if isinstance(entry, dict):
                split, paths = entry.get("split", "train"), entry.get("path")
            for pattern in paths if isinstance(paths, list) else [paths]:
                if not isinstance(pattern, str):
                    raise UserError(f"{README}: config {name!r} has a data_files entry without a path")
                out.append((name, str(split), pattern))
    return out


def glob_regex(pattern: str) -> re.Pattern:
    """Hub glob semantics on posix paths: `*` and `?` stay within a folder, `**` crosses folders."""
    parts, i = [], 0
    while i < len(pattern):
        for token, regex in (("**/", "(?:.*/)?"), ("**", ".*"), ("*", "[^/]*"), ("?", "[^/]")):
            if pattern.startswith(token, i):
                parts.append(regex)
                i += len(token)
                break
        else:
            parts.append(re.escape(pattern[i]))
            i += 1
    return re.compile("".join(parts) + r"\Z")
