"""The review app: one row at a time, decisions appended to the build's review log."""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from itertools import combinations
from pathlib import Path

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Route

from dicobench.kit.io.rowstore import Changed, RowStore
from dicobench.kit.people.decisions import NOTE_LIMIT, DecisionLog, NoteTooLong, decisions_path, make_decision
from dicobench.kit.people.webapp.server import asset_endpoint, changed, json_object, page, static_files
from dicobench.kit.people.webapp.spec import BenchmarkSpec

# A review image's URL names its bytes (`RowStore.version`), so the browser may keep it: a rebuilt
# row has another URL, and an old URL is refused.
IMAGE_HEADERS = {"Cache-Control": "private, max-age=31536000, immutable", "X-Content-Type-Options": "nosniff"}
API_HEADERS = {"Cache-Control": "no-store"}  # what the page learns about rows is never taken from a cache


def current(latest: dict, store: RowStore) -> dict:
    """The standing decisions that judged a row as it is now (its id, seed and content)."""
    out = {}
    for key, d in latest.items():
        row_id, seed, _ = key
        if row_id in store.rows and seed == store.rows[row_id]["seed"]:
            try:
                if d.digest is None or d.binds(store.digest(row_id)):
                    out[key] = d
            except Changed:
                continue
    return out


def agreement(latest: dict, rows: dict[str, dict]) -> dict:
    """Pairwise agreement on accept/reject between reviewers, over rows both judged
    (current row versions only): share of equal verdicts and Cohen's kappa."""
    by_reviewer: dict[str, dict[str, str]] = defaultdict(dict)
    for (row_id, seed, reviewer), d in latest.items():
        if row_id in rows and seed == rows[row_id]["seed"]:
            by_reviewer[reviewer][row_id] = d.verdict
    pairs = []
    for a, b in combinations(sorted(by_reviewer), 2):
        both = sorted(by_reviewer[a].keys() & by_reviewer[b].keys())
        if not both:
            continue
        va, vb = [by_reviewer[a][i] for i in both], [by_reviewer[b][i] for i in both]
        observed = sum(x == y for x, y in zip(va, vb)) / len(both)
        ca, cb = Counter(va), Counter(vb)
        chance = sum(ca[v] * cb[v] for v in ("accept", "reject")) / len(both) ** 2
        kappa = None if chance == 1 else (observed - chance) / (1 - chance)
        pairs.append({"reviewers": [a, b], "rows": len(both), "agreement": observed, "kappa": kappa})
    return {"reviewers": sorted(by_reviewer), "pairs": pairs}


def image_endpoint(spec: BenchmarkSpec, store: RowStore, valid_ids: set[str]):
    """`/image/{row_id}/{which}?v=VERSION`: a row's stored image, for the rows in `valid_ids` (the review
    page and the results explorer)."""

    async def image(request: Request) -> Response:
        row_id, which = request.path_params["row_id"], request.path_params["which"]
        if row_id not in valid_ids or which >= len(spec.image_columns):
            return PlainTextResponse("not found", status_code=404)
        if request.query_params.get("v") != store.version(row_id):
            return PlainTextResponse("not this row's current image: reload the page", status_code=404)
        try:
            data = store.image(row_id, spec.image_columns[which])
        except Changed as exc:
            return changed(exc)
        return Response(data, media_type="image/png", headers=IMAGE_HEADERS)

    return image


def review_app(spec: BenchmarkSpec, root: Path, store: RowStore, log: DecisionLog, reviewer: str,
               token: str) -> Starlette:
    files = static_files()
    valid_ids = set(store.ids())

    def settings() -> str:
        return json.dumps({"mode": "review", "benchmark": spec.name, "reviewer": reviewer, "token": token,
                           "criteria": spec.criteria, "images": spec.image_labels, "group": spec.group_column,
                           "note_limit": NOTE_LIMIT})

    async def index(request: Request) -> Response:
        return page(files, "review.html", settings())

    async def rows(request: Request) -> Response:
        contents = log.read(spec.criteria_keys)
        latest = current(contents.latest(), store)
        standing = {}
        for (row_id, seed, who), d in latest.items():
            standing.setdefault(row_id, {})[who] = {"verdict": d.verdict, "criteria": list(d.criteria), "note": d.note}
        listing = [{"id": i, "group": r[spec.group_column], "decisions": standing.get(i, {})}
                   for i, r in store.rows.items()]
        return JSONResponse({"rows": listing, "malformed": [{"line": n, "error": e} for n, e in contents.malformed],
                             "log": str(decisions_path(root).relative_to(root)),
                             "agreement": agreement(latest, store.rows)}, headers=API_HEADERS)

    async def row(request: Request) -> Response:
        row_id = request.path_params["row_id"]
        if row_id not in valid_ids:
            return JSONResponse({"error": "no such row"}, status_code=404)
        return JSONResponse({**spec.review_view(store.rows[row_id]), "version": store.version(row_id)},
                            headers=API_HEADERS)

    async def decide(request: Request) -> Response:
        try:
            body = await json_object(request)
            row_id = body.get("id")
            if not isinstance(row_id, str):
                raise ValueError("'id' must be a string")
            if row_id not in valid_ids:
                return JSONResponse({"error": f"no such row {row_id!r}"}, status_code=404)
            decision = make_decision(row_id, body.get("reviewer") or reviewer, body.get("verdict"),
                                     body.get("criteria", []), body.get("note", ""),
                                     store.rows[row_id]["seed"], spec.criteria_keys, digest=store.digest(row_id))
        except Changed as exc:
            return changed(exc)
        except NoteTooLong as exc:
            return JSONResponse({"error": str(exc)}, status_code=413)
        except ValueError as exc:
            return JSONResponse({"error": f"bad decision: {exc}"}, status_code=400)
        log.append(decision)  # on disk before we answer
        return JSONResponse({"saved": True, "decision": json.loads(decision.to_json())})

    return Starlette(routes=[
        Route("/", index),
        Route("/static/{name}", asset_endpoint(files)),
        Route("/api/rows", rows),
        Route("/api/row/{row_id}", row),
        Route("/image/{row_id}/{which:int}", image_endpoint(spec, store, valid_ids)),  # ASCII digits only
        Route("/api/decision", decide, methods=["POST"]),
    ])
