"""JSON Lines read as the format defines them: lines end at `\\n` only.

`str.splitlines()` also breaks at U+2028, U+2029, U+0085 and other characters that JSON strings
may hold unescaped (a model's reply written with `ensure_ascii=False`), and so cuts valid records
in two. Every JSONL reader of the project splits with `lines`.
"""

from __future__ import annotations

from pathlib import Path


def lines(text: str) -> list[str]:
    """The lines of JSONL `text` (a trailing `\\r` of Windows line ends is JSON whitespace)."""
    found = text.split("\n")
    return found[:-1] if found and found[-1] == "" else found


def read_lines(path: str | Path) -> list[str]:
    """The lines of the JSONL file at `path` (OSError and UnicodeDecodeError pass through)."""
    return lines(Path(path).read_text(encoding="utf-8"))
