"""The review log: one JSON object per line in `<build>/.review/decisions.jsonl`.

A line is `{"id", "reviewer", "verdict": "accept"|"reject", "criteria", "note", "time"}`
plus the judged row's `seed` and `digest` (`row_digest`: its images' bytes, question, options
and answer), which tie the verdict to the exact row version: a rebuild regenerates a rejected row
from another seed, and a build with other options makes other content under the same id and seed;
the old verdict sticks to neither. (A line with a seed but no digest, from before digests were
recorded, binds by id and seed alone.) The file is only ever appended to (under a lock, each line flushed and synced
before the caller is told it is saved) and never rewritten, so a malformed line is reported with
its line number and stays where it is. The latest line per (id, seed, reviewer) wins.

This module has no web dependencies: builds read it to regenerate rejected rows.
"""

from __future__ import annotations

import dataclasses
import datetime
import fcntl
import json
import os
import threading
import unicodedata
from pathlib import Path
from typing import Iterable

from dicobench.kit.errors import UserError
from dicobench.kit.io.jsonl import lines
from dicobench.kit.io.row_digest import row_digest

REVIEW_DIR = ".review"
DECISIONS_FILE = "decisions.jsonl"
VERDICTS = ("accept", "reject")
NOTE_LIMIT = 4000  # characters of a reviewer's note: every page load lists every note


class NoteTooLong(ValueError):
    """A new decision's note over NOTE_LIMIT (the review server answers 413)."""


def decisions_path(build_dir: str | os.PathLike) -> Path:
    return Path(build_dir) / REVIEW_DIR / DECISIONS_FILE


@dataclasses.dataclass(frozen=True)
class Decision:
    id: str
    reviewer: str
    verdict: str
    criteria: tuple[str, ...]
    note: str
    time: str
    seed: int | None = None  # None for lines written without one (they match no row version)
    digest: str | None = None  # the judged row's `row_digest`; None for older lines (bind by id and seed)

    def to_json(self) -> str:
        data = {"id": self.id, "reviewer": self.reviewer, "verdict": self.verdict, "criteria": list(self.criteria),
                "note": self.note, "time": self.time}
        if self.seed is not None:
            data["seed"] = self.seed
        if self.digest is not None:
            data["digest"] = self.digest
        return json.dumps(data, ensure_ascii=False)

    def binds(self, digest: str | None) -> bool:
        """Whether this decision applies to a row of its id and seed whose content digest is `digest`."""
        return self.digest is None or self.digest == digest


def make_decision(id: str, reviewer: str, verdict: str, criteria: Iterable[str], note: str, seed: int | None,
                  allowed: Iterable[str], digest: str | None = None) -> Decision:
    """A checked decision stamped with the current UTC time; ValueError says what is wrong."""
    if isinstance(note, str) and len(note) > NOTE_LIMIT:
        raise NoteTooLong(f"the note has {len(note)} characters; at most {NOTE_LIMIT}")
    now = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="milliseconds")
    criteria = list(criteria) if isinstance(criteria, (list, tuple)) else criteria  # else refused as not a list
    return _checked({"id": id, "reviewer": reviewer, "verdict": verdict, "criteria": criteria, "note": note,
                     "time": now, "seed": seed, "digest": digest}, tuple(allowed))


def check_reviewer(name: str) -> None:
    """A reviewer's name is one line of 1-100 visible characters (it goes into the card's Markdown):
    ValueError otherwise."""
    if not isinstance(name, str) or not name.strip() or len(name) > 100:
        raise ValueError("'reviewer' must be a name of 1-100 characters")
    if name != name.strip() or any(unicodedata.category(c)[0] in "CZ" and c != " " for c in name):
        raise ValueError("'reviewer' must be one line of visible characters (no line breaks, control or "
                         "invisible characters, no leading or trailing space)")


def _checked(data, allowed: tuple[str, ...] | None) -> Decision:
    if not isinstance(data, dict):
        raise ValueError("not a JSON object")
    for key in ("id", "reviewer", "note", "time"):
        if not isinstance(data.get(key), str):
            raise ValueError(f"{key!r} must be a string")
    check_reviewer(data["reviewer"])
    if data.get("verdict") not in VERDICTS:
        raise ValueError("'verdict' must be accept or reject")
    criteria = data.get("criteria")
    if not isinstance(criteria, list) or not all(isinstance(c, str) for c in criteria):
        raise ValueError("'criteria' must be a list of strings")
    if allowed is not None and (bad := [c for c in criteria if c not in allowed]):
        raise ValueError(f"unknown criteria {bad}; expected some of {', '.join(allowed)}")
    seed = data.get("seed")
    if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool)):
        raise ValueError("'seed' must be an integer")
    digest = data.get("digest")
    if digest is not None and not (isinstance(digest, str) and len(digest) == 32
                                   and all(c in "0123456789abcdef" for c in digest)):
        raise ValueError("'digest' must be 32 lowercase hex digits")
    return Decision(data["id"], data["reviewer"], data["verdict"], tuple(criteria), data["note"], data["time"], seed,
                    digest)


@dataclasses.dataclass
class LogContents:
    decisions: list[Decision]  # in file order
    malformed: list[tuple[int, str]]  # (line number, what is wrong)

    def latest(self) -> dict[tuple[str, int | None, str], Decision]:
        """The standing decision per (id, seed, reviewer): the last line wins."""
        return {(d.id, d.seed, d.reviewer): d for d in self.decisions}


def read_log(path: str | os.PathLike, allowed: Iterable[str] | None = None) -> LogContents:
    """Every line of the log; malformed lines are listed with their number, never skipped silently.
    With `allowed`, a line naming a criterion outside it is malformed too (a log comes with a build
    folder someone may hand you: what it says is checked before it is shown or counted)."""
    path = Path(path)
    try:
        text = path.read_bytes().decode("utf-8", errors="replace")
    except FileNotFoundError:
        return LogContents([], [])
    except OSError as exc:
        raise UserError(f"cannot read {path}: {exc.strerror}") from None
    decisions, malformed = [], []
    for number, line in enumerate(lines(text), 1):
        if not line.strip():
            continue
        try:
            decisions.append(_checked(json.loads(line), None if allowed is None else tuple(allowed)))
        except json.JSONDecodeError as exc:
            malformed.append((number, f"not valid JSON ({exc.msg})"))
        except ValueError as exc:
            malformed.append((number, str(exc)))
    return LogContents(decisions, malformed)


class Rejections(frozenset):
    """(id, seed) of every row version a standing decision rejects, with the content digests each
    rejection was bound to (`digests`; a None among them binds by id and seed alone)."""

    digests: dict

    def __new__(cls, bound: Iterable[tuple[str, int, str | None]] = ()):
        bound = list(bound)
        self = super().__new__(cls, {(i, s) for i, s, _ in bound})
        self.digests = {}
        for i, s, d in bound:
            self.digests.setdefault((i, s), set()).add(d)
        return self

    def rejects(self, row_id: str, seed: int, digest) -> bool:
        """Whether the version (row_id, seed) with content `digest` (a value, or a callable giving
        it, called only when needed) is rejected."""
        digests = self.digests.get((row_id, seed))
        if not digests:
            return False
        if None in digests:
            return True
        return (digest() if callable(digest) else digest) in digests


def rejects(rejected, row_id: str, seed: int, digest) -> bool:
    """`Rejections.rejects` for any set of (id, seed) (a plain set binds by id and seed)."""
    if isinstance(rejected, Rejections):
        return rejected.rejects(row_id, seed, digest)
    return (row_id, seed) in rejected


def rejected_rows(build_dir: str | os.PathLike) -> Rejections:
    """Every row version that any reviewer's standing decision rejects, bound to its content.

    Every version ever rejected stays in the set, so regenerating a shard never brings a
    rejected version back. Lines without a seed tie to no version and reject nothing."""
    return Rejections((i, s, d.digest) for (i, s, _), d in read_log(decisions_path(build_dir)).latest().items()
                      if d.verdict == "reject" and s is not None)


REVIEW_REJECTION = "review"  # the rejection reason a build counts for a row version a reviewer rejected


def build_rejections(out) -> frozenset[tuple[str, int]]:
    """`rejected_rows` of a local build folder; nothing for remote ones (the log is local)."""
    return rejected_rows(out) if isinstance(out, os.PathLike) else frozenset()


def holds_rejected(shard, rejected: frozenset[tuple[str, int]], image_columns: Iterable[str] | None = None) -> bool:
    """Whether a written shard holds a row version in `rejected` (reads two small columns, and a
    candidate row's content when its rejection is bound to one)."""
    if not rejected:
        return False
    from dicobench.kit.io.shards import read_column

    pairs = list(zip(read_column(shard, "id"), read_column(shard, "seed")))
    candidates = [n for n, pair in enumerate(pairs) if pair in rejected]
    if not candidates:
        return False
    if not isinstance(rejected, Rejections):
        return True
    return any(rejected.rejects(*pairs[n], lambda n=n: _stored_digest(shard, n, image_columns)) for n in candidates)


def _stored_digest(shard, index: int, image_columns: Iterable[str] | None) -> str:
    """`row_digest` of row `index` of a written shard."""
    import datasets
    import pyarrow.parquet as pq

    from dicobench.kit.io.rowstore import decode_labels  # deferred: datasets loads only here
    from dicobench.kit.io.shards import resolve

    fs, path = resolve(shard)
    with fs.open(path, "rb") as f:
        table = pq.read_table(f)
    features = datasets.Features.from_arrow_schema(table.schema)
    row = decode_labels(features, table.slice(index, 1).to_pylist()[0])
    columns = image_columns if image_columns is not None else [k for k, v in features.items()
                                                               if isinstance(v, datasets.Image)]
    return row_digest(row, [row[c]["bytes"] for c in columns])


SET_ASIDE = "decisions-before-overwrite-{stamp}.jsonl"


def set_aside(build_dir) -> str | None:
    """For `--overwrite` with other options: move the review log aside (its decisions judged rows
    that are no more), returning the one line that says so (None when there is no log)."""
    if not isinstance(build_dir, os.PathLike):
        return None
    path = decisions_path(build_dir)
    if not path.exists():
        return None
    stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y%m%dT%H%M%S%fZ")
    target = path.with_name(SET_ASIDE.format(stamp=stamp))
    try:
        path.rename(target)
    except OSError as exc:
        raise UserError(f"cannot set the review log aside: {exc.strerror}") from None
    return (f"note: --overwrite with other options: the review log was set aside as {REVIEW_DIR}/{target.name} "
            "(its decisions judged the previous rows); the new build starts unreviewed")


class DecisionLog:
    """Appends decisions durably: one writer at a time (threads and processes alike)."""

    def __init__(self, path: str | os.PathLike):
        self.path = Path(path)
        self._lock = threading.Lock()

    def check_writable(self) -> None:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with open(self.path, "a", encoding="utf-8"):
                pass
        except OSError as exc:
            raise UserError(f"cannot write the review log {self.path}: {exc.strerror}") from None

    def append(self, decision: Decision) -> None:
        """Return only once the line is on disk (flushed and fsynced)."""
        line = decision.to_json().encode("utf-8") + b"\n"
        with self._lock:
            fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX)
                size = os.fstat(fd).st_size
                if size:  # a line cut short by a crash stays a line of its own (reported as malformed)
                    with open(self.path, "rb") as f:
                        f.seek(size - 1)
                        if f.read(1) != b"\n":
                            line = b"\n" + line
                os.write(fd, line)
                os.fsync(fd)
            finally:
                os.close(fd)  # also releases the lock

    def read(self, allowed: Iterable[str] | None = None) -> LogContents:
        with self._lock:
            return read_log(self.path, allowed)
