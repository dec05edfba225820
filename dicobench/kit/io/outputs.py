"""Where a command or a library call writes: folders and files made ready, or one-line errors."""

from __future__ import annotations

from pathlib import Path

from dicobench.kit.errors import UserError


def output_folder(path: Path | str, flag: str = "--out") -> Path:
    """Create the folder `path` (and its parents) for a command's output; a one-line UserError
    where it cannot be (a file is in the way, no permission)."""
    path = Path(path)
    if path.exists() and not path.is_dir():
        raise UserError(f"{flag} {path} exists and is not a folder")
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UserError(f"{flag} {path}: cannot create the folder ({exc.strerror or exc})") from None
    return path


def output_file(path: Path | str, flag: str = "--out") -> Path:
    """Make sure the file `path` can be written: its folder exists (or is created) and it is not a folder."""
    path = Path(path)
    if path.is_dir():
        raise UserError(f"{flag} {path} is a folder; give a file name")
    output_folder(path.parent, f"the folder of {flag}")
    return path
