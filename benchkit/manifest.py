"""Build manifests: the options that determine a build's bytes, saved beside its files, so a
rerun resumes only the same build and never mixes two builds in one folder."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Callable

from benchkit.errors import UserError
from benchkit.shards import write_json_atomic


def claim_folder(out: Path, path: Path, manifest: dict, overwrite: bool, clear: Callable[[], None], what: str) -> None:
    """Record `manifest` at `path` inside `out`, refusing a folder that holds something else.

    Resuming the same build is allowed; other options need `overwrite`, which first calls
    `clear` to delete the previous build's files; a non-empty folder that holds no build of
    ours is refused outright."""
    manifest = json.loads(json.dumps(manifest))  # the form it is saved in, for comparison
    if out.exists() and not out.is_dir():
        raise UserError(f"{out} exists and is not a folder")
    if overwrite and path.exists():
        clear()
        path.unlink()
    if path.exists():
        previous = json.loads(path.read_text(encoding="utf-8"))
        if previous != manifest:
            changed = sorted(k for k in manifest.keys() | previous.keys() if previous.get(k) != manifest.get(k))
            raise UserError(f"{out} holds a {what} built with other options ({', '.join(changed)}); use --overwrite to replace it")
    elif out.exists() and any(out.iterdir()) and not overwrite and not path.parent.is_dir():
        raise UserError(f"{out} is not empty; choose an empty folder or pass --overwrite")
    try:
        write_json_atomic(path, manifest)
    except OSError as exc:
        raise UserError(f"cannot write to {out}: {exc.strerror}") from None
