"""A disk cache of chat completions (SQLite) so that a rerun sends nothing.

Entries are keyed by a hash of the model, the messages and the sampling settings. Only the
request (never the API key or the endpoint's credentials) and the reply are stored, and the
request without its inline images: each `data:...;base64,` URL is stored as the SHA-256 of its
payload, so a cache of vision requests holds the prompts and replies, not megabytes of images.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import time
from pathlib import Path

from dicobench.kit.errors import UserError

_SCHEMA = """
CREATE TABLE IF NOT EXISTS completions (
    key TEXT PRIMARY KEY,
    model TEXT NOT NULL,
    request TEXT NOT NULL,
    text TEXT NOT NULL,
    prompt_tokens INTEGER NOT NULL,
    completion_tokens INTEGER NOT NULL,
    created REAL NOT NULL
)
"""


def default_cache_dir() -> Path:
    """Where judge replies are cached unless a folder is given: ~/.cache/dicobench/judge."""
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "dicobench" / "judge"


def request_key(request: dict) -> str:
    return hashlib.sha256(json.dumps(request, sort_keys=True, ensure_ascii=False).encode()).hexdigest()


def without_images(value):
    """`value` (a request, or part of one) with every inline base64 data URL replaced by
    `data:<type>;sha256=<digest of the payload>`."""
    if isinstance(value, dict):
        return {k: without_images(v) for k, v in value.items()}
    if isinstance(value, list):
        return [without_images(v) for v in value]
    if isinstance(value, str) and value.startswith("data:") and ";base64," in value:
        head, payload = value.split(";base64,", 1)
        return f"{head};sha256={hashlib.sha256(payload.encode()).hexdigest()}"
    return value


class CompletionCache:
    """One SQLite file; used from one thread (the caller's), so it needs no locking."""

    def __init__(self, path: str | Path):
        self.path = Path(path)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(self.path)
            self._db.execute("PRAGMA journal_mode=WAL")  # cheap commits: one per reply
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.execute(_SCHEMA)
            self._db.execute("SELECT text, prompt_tokens, completion_tokens FROM completions LIMIT 1").fetchall()
            self._db.commit()
        except (OSError, sqlite3.Error) as exc:
            raise UserError(f"the reply cache {self.path} cannot be used ({exc}): remove it (its replies are asked "
                            "again) or give another cache folder") from None

    def get(self, request: dict) -> tuple[str, int, int] | None:
        row = self._db.execute(
            "SELECT text, prompt_tokens, completion_tokens FROM completions WHERE key = ?", (request_key(request),)
        ).fetchone()
        return None if row is None else (row[0], row[1], row[2])

    def put(self, request: dict, text: str, prompt_tokens: int, completion_tokens: int) -> None:
        self._db.execute(
            "INSERT OR REPLACE INTO completions VALUES (?, ?, ?, ?, ?, ?, ?)",
            (
                request_key(request),
                request["model"],
                json.dumps(without_images(request), sort_keys=True, ensure_ascii=False),
                text,
                prompt_tokens,
                completion_tokens,
                time.time(),
            ),
        )
        self._db.commit()

    def close(self) -> None:
        self._db.close()
