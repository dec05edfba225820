"""The results explorer: `review --dataset DIR --predictions RUN_DIR` (twice for two runs side by
side). Every row of the scored runs with its images and cue boxes, the question, the right answer
and, per run, the raw reply, what was read from it, the outcome, the error type and the judge's
verdict (`dicobench.kit.eval.runs`). Read only: the page sends nothing back but GETs, and it shows
the answers (it is for the people who evaluate models, never for people being tested)."""

from __future__ import annotations

import json
from typing import Sequence

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from dicobench.kit.eval.completeness import format_value, interval
from dicobench.kit.eval.runs import Outcome, ScoredRun
from dicobench.kit.io.rowstore import RowStore
from dicobench.kit.people.webapp.review import API_HEADERS, image_endpoint
from dicobench.kit.people.webapp.server import asset_endpoint, page, static_files
from dicobench.kit.people.webapp.spec import BenchmarkSpec


def _summary(run: ScoredRun) -> dict:
    scores = run.scores
    return {"name": run.name, "model": run.model, "n": scores["n"], "accuracy": format_value(scores),
            "ci": interval(scores.get("accuracy_ci")), "complete": bool(scores.get("complete", True)),
            "folder": run.folder.name}


def _brief(row: Outcome | None) -> dict | None:
    """What the listing and its filters need of one run's row."""
    if row is None:
        return None
    return {"outcome": row.outcome, "error_type": row.error_type, "unparsed": row.unparsed, "read": row.read,
            "judge": row.judge}


def results_app(spec: BenchmarkSpec, store: RowStore, runs: Sequence[ScoredRun], outcomes: Sequence[list[Outcome]],
                error_types: Sequence[str], token: str) -> Starlette:
    files = static_files()
    by_id = [{r.id: r for r in rows} for rows in outcomes]
    order = list(dict.fromkeys(r.id for rows in outcomes for r in rows))  # the first run's order, then the others'
    shown = set(order)
    settings = json.dumps({"mode": "results", "benchmark": spec.name, "token": token, "images": spec.image_labels,
                           "group": spec.group_column, "runs": [_summary(run) for run in runs],
                           "error_types": list(error_types)})

    async def index(request: Request) -> Response:
        return page(files, "results.html", settings)

    async def rows(request: Request) -> Response:
        listing = [{"id": i, "group": store.rows[i][spec.group_column], "runs": [_brief(run.get(i)) for run in by_id]}
                   for i in order]
        return JSONResponse({"rows": listing}, headers=API_HEADERS)

    async def row(request: Request) -> Response:
        row_id = request.path_params["row_id"]
        if row_id not in shown:
            return JSONResponse({"error": "no such row"}, status_code=404)
        found = [run.get(row_id) for run in by_id]
        return JSONResponse({**spec.review_view(store.rows[row_id]), "version": store.version(row_id),
                             "runs": [r.to_dict() if r else None for r in found]}, headers=API_HEADERS)

    return Starlette(routes=[
        Route("/", index),
        Route("/static/{name}", asset_endpoint(files)),
        Route("/api/rows", rows),
        Route("/api/row/{row_id}", row),
        Route("/image/{row_id}/{which:int}", image_endpoint(spec, store, shown)),  # ASCII digits only
    ])
