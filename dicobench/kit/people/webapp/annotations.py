"""The annotation review app: every object of a COCO file, drawn on its photo on demand, with
accept / reject recorded beside the file (`dicobench.kit.photos.annotation_review`)."""

from __future__ import annotations

import json

from pycocotools import mask as mask_utils
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Route

from dicobench.kit.people.webapp.server import asset_endpoint, json_object, page, static_files
from dicobench.kit.photos import annotation_review
from dicobench.kit.photos.coco import CocoSource, decode_mask

API_HEADERS = {"Cache-Control": "no-store"}


def annotations_app(source: CocoSource, reviewer: str, token: str) -> Starlette:
    files = static_files()
    index_of = {img_id: i for i, img_id in enumerate(source.image_ids)}
    anns = {a["id"]: a for a in source.coco.dataset["annotations"]}

    async def index(request: Request) -> Response:
        return page(files, "annotations.html", json.dumps({"mode": "annotations", "reviewer": reviewer, "token": token,
                                                           "file": source.path.name}))

    async def listing(request: Request) -> Response:
        verdicts = annotation_review.verdicts(source.path)
        rows = [{"id": a["id"], "file_name": source.file_name(index_of[a["image_id"]]),
                 "label": source.names[a["category_id"]], "score": a.get("score"), "bbox": a["bbox"],
                 "ignore": bool(a.get("ignore") or a.get("iscrowd")), "verdict": verdicts.get(a["id"])}
                for a in sorted(anns.values(), key=lambda a: a["id"])]
        return JSONResponse({"annotations": rows, "log": annotation_review.review_path(source.path).name},
                            headers=API_HEADERS)

    async def image(request: Request) -> Response:
        ann = anns.get(request.path_params["ann_id"])
        if ann is None:
            return PlainTextResponse("not found", status_code=404)
        index = index_of[ann["image_id"]]
        try:
            photo = source.load(index)  # decodes the photo and its masks now: drawn on demand
        except Exception as exc:  # a photo that cannot be shown is said so, the others still are
            return PlainTextResponse(f"cannot show {source.photo_id(index)}: {exc}", status_code=409)
        mask = decode_mask(mask_utils, source.coco.annToRLE(ann)) if ann.get("segmentation") else None
        if mask is not None and mask.shape != photo.pixels.shape[:2]:
            mask = None  # a photo scaled by the size policy: its box alone
        return Response(annotation_review.drawn(photo.pixels, ann["bbox"], mask), media_type="image/png",
                        headers={"Cache-Control": "no-store", "X-Content-Type-Options": "nosniff"})

    async def decide(request: Request) -> Response:
        try:
            body = await json_object(request)
            ann_id = body.get("id")
            if not isinstance(ann_id, int) or ann_id not in anns:
                return JSONResponse({"error": f"no such annotation {ann_id!r}"}, status_code=404)
            entry = annotation_review.record(source.path, ann_id, source.file_name(index_of[anns[ann_id]["image_id"]]),
                                             body.get("verdict"), body.get("reviewer") or reviewer)
        except ValueError as exc:
            return JSONResponse({"error": f"bad decision: {exc}"}, status_code=400)
        return JSONResponse({"saved": True, "decision": entry})

    return Starlette(routes=[
        Route("/", index),
        Route("/static/{name}", asset_endpoint(files)),
        Route("/api/annotations", listing),
        Route("/image/{ann_id:int}", image),
        Route("/api/decision", decide, methods=["POST"]),
    ])
