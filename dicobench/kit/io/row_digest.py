"""A row version's content digest: what a review decision is bound to, the same from a row about to
be written and from one read back (light: the generators import it)."""

from __future__ import annotations

import hashlib
import json
from typing import Iterable

CONTENT_COLUMNS = ("question", "options", "answer")  # with the images, what a reviewer judged


def row_digest(row: dict, images: Iterable[bytes]) -> str:
    """A row version's content: its images' stored bytes and its question, options and answer
    (labels as names), the same from a row about to be written and from one read back."""
    h = hashlib.sha256(json.dumps({k: row[k] for k in CONTENT_COLUMNS if k in row}, sort_keys=True,
                                  ensure_ascii=False).encode("utf-8"))
    for data in images:
        h.update(len(data).to_bytes(8, "big"))
        h.update(data)
    return h.hexdigest()[:32]
