"""The timed study: a seeded, group-balanced sample of rows, asked in a seeded order per
participant, one item at a time, the clock kept by the server.

Answers go to `<build>/.study/<participant>-<time_limit>.jsonl` in the predictions format
(`id`, `response`, `latency`, `time_limit`, `participant`, `timed_out`), so `score` reads a
participant like a model. Nothing sent to the page names the row, its task, cues or answer:
items are numbered by position in the session and carry only `spec.study_view`.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import re
import secrets
import struct
import threading
import time
import zlib
from pathlib import Path

import numpy as np
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Route

from dicobench.kit.errors import UserError
from dicobench.kit.io.jsonl import read_lines
from dicobench.kit.io.locks import ExclusiveLock
from dicobench.kit.io.predictions import read_sample, write_sample
from dicobench.kit.io.rowstore import Changed, RowStore
from dicobench.kit.people.webapp.server import asset_endpoint, changed, json_object, page, static_files
from dicobench.kit.people.webapp.spec import STUDY_DIR, BenchmarkSpec

# An item is shown once: its images are never kept by the browser (and their URLs name the showing).
IMAGE_HEADERS = {"Cache-Control": "no-store", "X-Content-Type-Options": "nosniff"}
API_HEADERS = {"Cache-Control": "no-store"}
GRACE_S = 1.0  # network and rendering slack before a late answer counts as a timeout
NAME = re.compile(r"[A-Za-z0-9_.-]{1,64}")


PAD_CHUNK = b"pdNg"  # a private ancillary chunk (viewers skip it) of random length
PAD_RANGE = 16384  # bytes: far wider than what an edit changes in a compressed image's length


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


def served_png(data: bytes) -> bytes:
    """The same pixels in bytes that differ at every serving: the image data recompressed with a
    flush at a random point and a chunk of random length added. A camera-less build stores an E
    pair's two images as equal bytes; served as they are, comparing the two responses (or their
    lengths) would give the answer away. Not a PNG: returned unchanged."""
    if not data.startswith(b"\x89PNG\r\n\x1a\n"):
        return data
    chunks, at = [], 8
    while at + 12 <= len(data):
        (length,) = struct.unpack(">I", data[at:at + 4])
        chunks.append((data[at + 4:at + 8], data[at + 8:at + 8 + length]))
        at += 12 + length
    raw = zlib.decompress(b"".join(body for kind, body in chunks if kind == b"IDAT"))
    cut = secrets.randbelow(len(raw) + 1)
    packer = zlib.compressobj(6)
    idat = packer.compress(raw[:cut]) + packer.flush(zlib.Z_FULL_FLUSH) + packer.compress(raw[cut:]) + packer.flush()
    out, placed = [b"\x89PNG\r\n\x1a\n"], False
    for kind, body in chunks:
        if kind == b"IDAT":
            if not placed:
                out += [_chunk(PAD_CHUNK, secrets.token_bytes(secrets.randbelow(PAD_RANGE))), _chunk(b"IDAT", idat)]
                placed = True
        else:
            out.append(_chunk(kind, body))
    return b"".join(out)


def limit_label(time_limit: float | None) -> str:
    return "none" if time_limit is None else f"{time_limit:g}"


def session_path(root: Path, participant: str, time_limit: float | None) -> Path:
    if not NAME.fullmatch(participant) or participant.startswith("."):
        raise UserError(f"participant name {participant!r}: use 1-64 letters, digits, '_', '-' or '.'")
    return root / STUDY_DIR / f"{participant}-{limit_label(time_limit)}.jsonl"


def sample(store: RowStore, spec: BenchmarkSpec, n: int, seed: int) -> list[str]:
    """`n` row ids balanced over `spec.study_group` (round robin over seeded shuffles of
    each group), the same for every participant of a seed."""
    if n <= 0:
        raise UserError("--n must be positive")
    groups: dict[str, list[str]] = {}
    for row_id, row in store.rows.items():
        groups.setdefault(row[spec.study_group], []).append(row_id)
    queues = [[sorted(groups[g])[i] for i in np.random.default_rng([seed, k]).permutation(len(groups[g]))]
              for k, g in enumerate(sorted(groups))]
    chosen: list[str] = []
    while len(chosen) < n and any(queues):
        for q in queues:
            if q and len(chosen) < n:
                chosen.append(q.pop(0))
    return chosen


def participant_order(ids: list[str], seed: int, participant: str) -> list[str]:
    digest = int.from_bytes(hashlib.sha256(participant.encode()).digest()[:8], "big")
    return [ids[i] for i in np.random.default_rng([seed, digest]).permutation(len(ids))]


def declare_sample(path: Path, order: list[str], answered: set[str], **about) -> None:
    """Declare beside the answers the rows this session asks, so that `score` scores exactly
    those (dicobench.kit.io.predictions.join). Resuming a session whose answers belong to another sample
    (other --n, --seed or --config) would mix two samples in one file: refused."""
    declared = read_sample(path)
    if (declared is not None and declared["ids"] != order and answered) or not answered <= set(order):
        raise UserError(f"{path} was started with another sample (--n, --seed or --config differ): "
                        "resume it with the same options, or use another --participant")
    if declared is None or declared["ids"] != order:
        write_sample(path, order, **about)


@dataclasses.dataclass(frozen=True)
class OpenItem:
    """The item on screen: its position, since when (monotonic), and the key that names this
    showing in its image URLs (a fresh one per item, so no cached image of another can match)."""

    k: int
    since: float
    key: str


def SessionLock(answers: Path, what: str) -> ExclusiveLock:
    """One server at a time per session (`<session>.lock`): a lock left by a killed server is taken over."""
    return ExclusiveLock(answers.with_suffix(".lock"), lambda owner: f"{what} is open in another study server (pid "
                         f"{owner}): answer it there, or stop that server first")


class Session:
    """One participant's run: which item is open, since when; answers appended durably. When an
    item was first shown is kept on disk too (`<session>.open.json`), so a killed and restarted
    server gives the participant the same item with the time it has left, not a fresh clock."""

    def __init__(self, path: Path, order: list[str], participant: str, time_limit: float | None):
        self.path, self.order, self.participant, self.time_limit = path, order, participant, time_limit
        self.open_path = path.with_suffix(".open.json")
        self.lock = threading.Lock()
        self.answered = self._answered()
        self.open: OpenItem | None = self._reopened()

    def _reopened(self) -> OpenItem | None:
        """The item a previous server had open, with its clock running since it was first shown."""
        if not self.open_path.exists():
            return None
        try:
            shown = json.loads(self.open_path.read_text(encoding="utf-8"))
            row_id, since = shown["id"], float(shown["shown"])
        except (OSError, ValueError, KeyError, TypeError):
            raise UserError(f"{self.open_path}: not a study item record; "
                            "remove it (the item's clock restarts)") from None
        if row_id not in self.order or row_id in self.answered:
            return None  # answered just before the server stopped
        elapsed = max(0.0, time.time() - since)
        return OpenItem(self.order.index(row_id), time.monotonic() - elapsed, secrets.token_hex(8))

    def _show(self, k: int, now: float) -> OpenItem:
        """Open item `k`, first recording when (wall clock, synced) for a server that restarts."""
        tmp = self.open_path.with_suffix(".partial")
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(json.dumps({"id": self.order[k], "shown": time.time()}))
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, self.open_path)
        return OpenItem(k, now, secrets.token_hex(8))

    def _answered(self) -> set[str]:
        if not self.path.exists():
            return set()
        done = set()
        for number, line in enumerate(read_lines(self.path), 1):
            try:
                done.add(json.loads(line)["id"])
            except (ValueError, KeyError, TypeError):
                raise UserError(f"{self.path}:{number}: not a study answer; fix or move the file") from None
        return done

    def remaining(self) -> list[int]:
        return [k for k, row_id in enumerate(self.order) if row_id not in self.answered]

    def _record(self, k: int, response: str | None, latency: float) -> dict:
        timed_out = self.time_limit is not None and (response is None or latency > self.time_limit + GRACE_S)
        line = {"id": self.order[k], "response": None if timed_out else response, "latency": round(latency, 3),
                "time_limit": self.time_limit, "participant": self.participant, "timed_out": timed_out}
        with open(self.path, "a", encoding="utf-8") as f:
            f.write(json.dumps(line) + "\n")
            f.flush()
            os.fsync(f.fileno())
        self.answered.add(self.order[k])
        self.open = None
        self.open_path.unlink(missing_ok=True)  # after the answer: a crash between them leaves an answered id
        return line

    def next_item(self) -> tuple[OpenItem, float | None] | None:
        """The open item (re-served with the time it has left) or the next one; None when done.
        An open item whose time ran out while nobody answered is recorded as a timeout."""
        with self.lock:
            while True:
                now = time.monotonic()
                if self.open is not None:
                    elapsed = now - self.open.since
                    if self.time_limit is None or elapsed <= self.time_limit:
                        return self.open, None if self.time_limit is None else self.time_limit - elapsed
                    self._record(self.open.k, None, elapsed)
                todo = self.remaining()
                if not todo:
                    return None
                self.open = self._show(todo[0], now)

    def answer(self, k: int, response: str | None) -> dict:
        with self.lock:
            if self.open is None or self.open.k != k:
                raise ValueError("that item is not the open one")
            return self._record(k, response, time.monotonic() - self.open.since)


def study_app(spec: BenchmarkSpec, store: RowStore, session: Session, token: str, instructions: str) -> Starlette:
    files = static_files()

    def settings() -> str:
        return json.dumps({"mode": "study", "benchmark": spec.name, "token": token, "images": spec.image_labels,
                           "time_limit": session.time_limit, "n": len(session.order),
                           "participant": session.participant, "instructions": instructions})

    async def index(request: Request) -> Response:
        return page(files, "study.html", settings())

    def item(open_item: OpenItem, left: float | None) -> dict:
        return {"k": open_item.k, "key": open_item.key, "position": len(session.order) - len(session.remaining()) + 1,
                "n": len(session.order), "seconds_left": left,
                **spec.study_view(store.rows[session.order[open_item.k]])}

    async def state(request: Request) -> Response:
        return JSONResponse({"n": len(session.order), "answered": len(session.order) - len(session.remaining())},
                            headers=API_HEADERS)

    async def next_item(request: Request) -> Response:
        got = session.next_item()
        if got is None:
            return JSONResponse({"done": True, "file": f"{STUDY_DIR}/{session.path.name}"}, headers=API_HEADERS)
        return JSONResponse(item(*got), headers=API_HEADERS)

    async def answer(request: Request) -> Response:
        try:
            body = await json_object(request)
            k, response = body.get("k"), body.get("response")
            if not isinstance(k, int) or isinstance(k, bool):
                raise ValueError("'k' must be the open item's number")
            if response is not None and (not isinstance(response, str) or len(response) > 2000):
                raise ValueError("response must be a short string or null")
            session.answer(k, response)
        except ValueError as exc:
            return JSONResponse({"error": str(exc)}, status_code=400)
        return JSONResponse({"saved": True})

    async def image(request: Request) -> Response:
        k, which = request.path_params["k"], request.path_params["which"]
        open_item = session.open
        if not (open_item and open_item.k == k and request.query_params.get("key") == open_item.key
                and which < len(spec.image_columns)):
            return PlainTextResponse("not found", status_code=404)  # only the open item's images
        try:
            data = served_png(store.image(session.order[k], spec.image_columns[which]))
        except Changed as exc:
            return changed(exc)
        return Response(data, media_type="image/png", headers=IMAGE_HEADERS)

    return Starlette(routes=[
        Route("/", index),
        Route("/static/{name}", asset_endpoint(files)),
        Route("/api/state", state),
        Route("/api/next", next_item, methods=["POST"]),
        Route("/api/answer", answer, methods=["POST"]),
        Route("/image/{k:int}/{which:int}", image),  # ASCII digits only
    ])
