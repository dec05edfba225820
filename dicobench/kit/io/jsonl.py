"""JSON Lines read as the format defines them: lines end at `\\n` only.

`str.splitlines()` also breaks at U+2028, U+2029, U+0085 and other characters that JSON strings
may hold unescaped (a model's reply written with `ensure_ascii=False`), and so cuts valid records
in two. Every JSONL reader of the project splits with `lines`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Callable

from dicobench.kit.errors import UserError


def lines(text: str) -> list[str]:
    """The lines of JSONL `text` (a trailing `\\r` of Windows line ends is JSON whitespace)."""
    found = text.split("\n")
    return found[:-1] if found and found[-1] == "" else found


def read_lines(path: str | Path) -> list[str]:
    """The lines of the JSONL file at `path` (OSError and UnicodeDecodeError pass through)."""
    return lines(Path(path).read_text(encoding="utf-8"))


def read_objects(path: str | Path, valid: Callable[[dict], bool], what: str) -> list[dict]:
    """The JSON objects of the JSONL file at `path`, blank lines skipped; a line that is no JSON
    object, or that `valid` refuses, is a UserError naming it (`PATH:LINE: not WHAT`). OSError and
    UnicodeDecodeError pass through."""
    found = []
    for number, text in enumerate(read_lines(path), 1):
        if not text.strip():
            continue
        try:
            line = json.loads(text)
            if not isinstance(line, dict) or not valid(line):
                raise ValueError
        except ValueError:
            raise UserError(f"{path}:{number}: not {what}") from None
        found.append(line)
    return found
