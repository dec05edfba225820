"""mkdocs hook: the reference pages generated from the code, so they cannot drift from it.

`reference/cli.md` from the argparse parsers, `reference/schemas.md` from the `datasets`
Features, `reference/dials.md` from the difficulty dials' declarations and presets, and
`licences.md` from the licences the cards state. `pages()` is also what the tests call.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:  # mkdocs runs from the checkout; the packages are imported from it
    sys.path.insert(0, str(ROOT))


def _commands(parser: argparse.ArgumentParser, name: str):
    """(full command name, parser) for a parser and every subcommand under it, depth first."""
    yield name, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub, child in action.choices.items():
                yield from _commands(child, f"{name} {sub}")


def cli_page() -> str:
    from dicobench.cli.main import parser as dicobench_parser
    from multipanelvqa.cli.main import parser as multipanelvqa_parser

    os.environ["COLUMNS"] = "100"  # argparse wraps help at the terminal's width: the same page everywhere
    parts = ["# Command line reference", "",
             "Generated from the commands' own parsers: what `--help` prints, for every subcommand.", ""]
    for prog, make in (("dicobench", dicobench_parser), ("multipanelvqa", multipanelvqa_parser)):
        parts += [f"## `{prog}`", ""]
        for name, parser in _commands(make(), prog):
            if name != prog:
                parts += [f"### `{name}`", ""]
            parts += ["```text", parser.format_help().rstrip(), "```", ""]
    return "\n".join(parts)


def describe(feature) -> str:
    """A `datasets` feature as one short line: `string`, `ClassLabel(A, B)`, `List(int32, length=4)`."""
    import datasets

    if isinstance(feature, datasets.Value):
        return feature.dtype
    if isinstance(feature, datasets.ClassLabel):
        return f"ClassLabel({', '.join(feature.names)})"
    if isinstance(feature, datasets.Image):
        return "Image (PNG)"
    if isinstance(feature, datasets.List):
        length = f", length={feature.length}" if getattr(feature, "length", -1) not in (-1, None) else ""
        return f"List({describe(feature.feature)}{length})"
    if isinstance(feature, dict):
        return "{" + ", ".join(f"{k}: {describe(v)}" for k, v in feature.items()) + "}"
    return type(feature).__name__


def _escape(text: str) -> str:
    return text.replace("<", "&lt;").replace(">", "&gt;")


def schemas_page() -> str:
    from dicobench import card as dicobench_card
    from dicobench.schema import CONFIGS as DICOBENCH_CONFIGS
    from dicobench.schema import features as dicobench_features
    from multipanelvqa import card as multipanelvqa_card
    from multipanelvqa.schema import CONFIGS as MULTIPANELVQA_CONFIGS
    from multipanelvqa.schema import features as multipanelvqa_features

    parts = ["# Schemas", "", "Generated from each benchmark's `datasets.Features` (what `load_dataset` returns) "
             "and the column descriptions its dataset card prints.", ""]
    for title, features, configs, described in (
            ("DiCoBench", dicobench_features(), DICOBENCH_CONFIGS, dicobench_card.COLUMNS),
            ("MultipanelVQA", multipanelvqa_features(), MULTIPANELVQA_CONFIGS, multipanelvqa_card.COLUMNS)):
        about = {c: text for key, text in described.items() for c in key.split(", ")}
        parts += [f"## {title}", "", "Configs: " + ", ".join(f"`{c}`" for c in configs) + ".", "",
                  "| column | feature | meaning |", "|---|---|---|"]
        parts += [f"| `{column}` | {describe(feature).replace('|', '/')} | {_escape(about.get(column, ''))} |"
                  for column, feature in features.items()]
        parts.append("")
    return "\n".join(parts)


def _dials_table(cls, presets: dict) -> list[str]:
    head = "| dial | option | axis | what it sets | " + " | ".join(f"`{p}`" for p in presets) + " |"
    rows = [head, "|---|---|---|---|" + "---|" * len(presets)]
    for field, axis, doc in cls.axis_fields():
        values = " | ".join(f"{getattr(p, field.name)}" for p in presets.values())
        rows.append(f"| `{field.name}` | `--{field.name.replace('_', '-')}` | {axis} | {doc} | {values} |")
    return rows


def dials_page() -> str:
    from dicobench.kit.scene.difficulty import PRESETS, Difficulty
    from multipanelvqa import difficulty as panel

    parts = ["# Difficulty dials", "",
             "Generated from the dials' declarations (`dicobench.kit.scene.difficulty.dial`): "
             "each is a build option of its own, and `--difficulty` sets them all from a preset.", "",
             "## DiCoBench (`dicobench build`)", ""]
    parts += _dials_table(Difficulty, PRESETS)
    parts += ["", "## MultipanelVQA (`multipanelvqa build`)", ""]
    parts += _dials_table(panel.PanelDifficulty, panel.PRESETS)
    return "\n".join(parts + [""])


def licences_page() -> str:
    from dicobench.kit.release.licences import COCO, GLYPHS, VSTAR

    parts = ["# Licences", "", "The code is under the Apache License 2.0 (`LICENSE`). What a build contains "
             "carries the terms of what it is made of; every dataset card states them (generated from "
             "`dicobench.kit.release.licences`):", "",
             "| what the build holds | card licence | terms |", "|---|---|---|"]
    for what, licence in (("procedural images and all generated data", GLYPHS),
                          ("V* photos (`--source vstar:`)", VSTAR),
                          ("MagicBrush or VQAv2 panels (MultipanelVQA)", COCO)):
        link = f" ([terms]({licence.link}))" if licence.link else ""
        parts.append(f"| {what} | `{licence.id}` | {licence.text}{link} |")
    parts.append("| your own photos (`folder:`, `coco:`, `hf:`, `multipanelvqa import`) | stated with "
                 "`push --license ID` | their owners' terms; a card says `unknown`, and `push` refuses it, until "
                 "they are stated |")
    return "\n".join(parts + [""])


def pages() -> dict[str, str]:
    return {"reference/cli.md": cli_page(), "reference/schemas.md": schemas_page(),
            "reference/dials.md": dials_page(), "licences.md": licences_page()}


def on_files(files, config):
    from mkdocs.structure.files import File

    for path, content in pages().items():
        files.append(File.generated(config, path, content=content))
    return files
