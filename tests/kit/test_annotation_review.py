import io
import json
import re
import shutil
import sys
import urllib.error
import urllib.request
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

pytest.importorskip("pycocotools")
pytest.importorskip("cv2")
pytest.importorskip("starlette")
pytest.importorskip("uvicorn")
sys.path.insert(0, str(Path(__file__).parents[1]))
from coco_fixtures import make_coco  # noqa: E402

from dicobench.kit.people.webapp.launch import review_annotations  # noqa: E402
from dicobench.kit.photos import annotation_review  # noqa: E402
from dicobench.kit.photos.coco import CocoSource  # noqa: E402
from dicobench.kit.photos.model import SizePolicy  # noqa: E402


@pytest.fixture(scope="module")
def original(tmp_path_factory):
    return make_coco(tmp_path_factory.mktemp("coco"))


@pytest.fixture
def coco(original, tmp_path):
    """A fresh copy of the file (its review log starts empty), beside the same photos."""
    path = tmp_path / "instances.json"
    shutil.copy(original, path)
    return path


def request(url, data=None, token=None):
    headers = {"Content-Type": "application/json"} if data is not None else {}
    if token is not None:
        headers["X-Token"] = token
    req = urllib.request.Request(url, data=None if data is None else json.dumps(data).encode(), headers=headers,
                                 method="POST" if data is not None else "GET")
    try:
        with urllib.request.urlopen(req, timeout=20) as r:
            return r.status, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()


@pytest.fixture
def served(coco, original):
    server = review_annotations(coco, original.parent / "images", port=0, reviewer="ann", background=True,
                                announce=lambda line: None)
    page = urllib.request.urlopen(server.url, timeout=20).read().decode()
    token = re.search(r'"token": "([^"]+)"', page).group(1)
    yield server.url.rstrip("/"), token, page
    server.stop()


def test_the_page_lists_every_object_and_draws_it_on_demand(served, coco):
    url, token, page = served
    assert "Review annotations" in page
    status, body = request(url + "/api/annotations")
    listing = json.loads(body)["annotations"]
    data = json.loads(coco.read_text())
    assert status == 200 and [a["id"] for a in listing] == [a["id"] for a in data["annotations"]]
    first = listing[0]
    assert (first["label"], first["file_name"], first["verdict"]) == ("apple", "p0.png", None)
    assert {a["label"] for a in listing if a["ignore"]} == {"person"}  # the crowd
    status, png = request(url + f"/image/{first['id']}")
    image = np.asarray(Image.open(io.BytesIO(png)).convert("RGB"))
    x, y, w, h = first["bbox"]
    # the object and its surroundings
    assert status == 200 and w < image.shape[1] < 3 * w and h < image.shape[0] < 3 * h
    assert ((image == (255, 230, 0)).all(axis=2)).sum() > 2 * (w + h)  # its box drawn
    assert request(url + "/image/9999")[0] == 404


def test_rejected_objects_never_reach_a_source_or_a_build(served, coco, original):
    url, token, _ = served
    data = json.loads(coco.read_text())
    apple = next(a["id"] for a in data["annotations"] if a["image_id"] == 1 and a["category_id"] == 1)
    key = next(a["id"] for a in data["annotations"] if a["image_id"] == 1 and a["category_id"] == 3)
    assert request(url + "/api/decision", {"id": apple, "verdict": "reject"})[0] == 403  # no token: refused
    assert request(url + "/api/decision", {"id": apple, "verdict": "reject"}, token)[0] == 200
    assert request(url + "/api/decision", {"id": key, "verdict": "reject"}, token)[0] == 200
    assert request(url + "/api/decision", {"id": key, "verdict": "accept"}, token)[0] == 200  # the latest wins
    assert request(url + "/api/decision", {"id": key, "verdict": "maybe"}, token)[0] == 400
    assert request(url + "/api/decision", {"id": 9999, "verdict": "reject"}, token)[0] == 404
    assert annotation_review.rejected(coco) == {apple}
    lines = [json.loads(line) for line in annotation_review.review_path(coco).read_text().splitlines()]
    assert [(e["annotation"], e["verdict"], e["reviewer"], e["file_name"]) for e in lines] == [
        (apple, "reject", "ann", "p0.png"), (key, "reject", "ann", "p0.png"), (key, "accept", "ann", "p0.png")]
    source = CocoSource(coco, original.parent / "images", SizePolicy(768))
    names = [o.name for o in source.load(0).objects]
    assert "apple" not in names and "key" in names
    status, body = request(url + "/api/annotations")
    assert {a["id"]: a["verdict"] for a in json.loads(body)["annotations"]}[apple] == "reject"


def test_a_build_records_the_rejections_and_never_names_a_rejected_object(coco, original, tmp_path):
    from dicobench.build import build

    data = json.loads(coco.read_text())
    rejected = [a["id"] for a in data["annotations"] if data["categories"][a["category_id"] - 1]["name"] == "apple"]
    for ann in rejected:
        annotation_review.record(coco, ann, "-", "reject", "ann")
    out = build(tmp_path / "out", source=f"coco:{coco}:{original.parent / 'images'}", tasks="attribute,instance",
                per_task=3, min_long_side=768, progress=False, num_proc=1)
    manifest = json.loads((out / ".dicobench" / "test.json").read_text())
    assert manifest["rejected_annotations"] == sorted(rejected)
    import pyarrow.parquet as pq

    options = [o for f in out.glob("*/*.parquet") for r in pq.read_table(f).to_pylist() for o in r["options"]]
    assert options and not any("apple" in o.lower() for o in options)


def test_rejecting_in_a_real_browser(served, coco):
    from browser import chromium, wait_for

    url, _, _ = served
    driver = chromium()
    try:
        driver.get(url + "/")
        wait_for(driver, "document.querySelectorAll('.object').length > 0")
        assert wait_for(driver, "document.querySelector('.object img').complete "
                                "&& document.querySelector('.object img').naturalWidth") > 0
        driver.execute_script("document.querySelector('.object button[data-verdict=reject]').click()")
        wait_for(driver, "document.querySelector('.object').dataset.verdict === 'reject'")
        assert "1 of" in driver.execute_script("return document.getElementById('position').textContent")
    finally:
        driver.quit()
    first = json.loads(coco.read_text())["annotations"][0]["id"]
    assert annotation_review.rejected(coco) == {first}
