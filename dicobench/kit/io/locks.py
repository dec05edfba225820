"""One writer at a time: an exclusive `flock` on a lock file that holds the owner's pid for the
message. The kernel drops the lock when its process dies, however it dies, so a lock left by a
killed process is simply taken over (the file stays)."""

from __future__ import annotations

import fcntl
import os
from pathlib import Path
from typing import Callable

from dicobench.kit.errors import UserError


class ExclusiveLock:
    """Hold `path` locked until `release` (or the end of a `with` block); `busy(pid)` is the
    one-line refusal when another process holds it."""

    def __init__(self, path: Path, busy: Callable[[str], str]):
        self.path = path
        try:
            self.fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as exc:
            raise UserError(f"cannot write the lock {self.path}: {exc.strerror}") from None
        try:
            fcntl.flock(self.fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            owner = os.pread(self.fd, 32, 0).decode("ascii", "replace").strip() or "unknown"
            os.close(self.fd)
            raise UserError(busy(owner)) from None
        os.ftruncate(self.fd, 0)
        os.pwrite(self.fd, f"{os.getpid()}\n".encode(), 0)

    def release(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)  # closing drops the flock
            self.fd = -1

    def __enter__(self) -> "ExclusiveLock":
        return self

    def __exit__(self, *exc) -> None:
        self.release()
