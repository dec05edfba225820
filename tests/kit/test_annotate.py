import json
import sys
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

pytest.importorskip("pycocotools")
pytest.importorskip("cv2")
pytest.importorskip("transformers")
sys.path.insert(0, str(Path(__file__).parents[1]))
from pycocotools import mask as mask_utils  # noqa: E402
from tiny_detectors import save_grounding_dino, save_owlv2, save_sam  # noqa: E402

from dicobench.kit.errors import UserError  # noqa: E402
from dicobench.kit.photos import annotate as ann  # noqa: E402
from dicobench.kit.photos import detectors  # noqa: E402
from dicobench.kit.photos.annotate import PARTIAL_SUFFIX, AnnotateOptions, annotate  # noqa: E402
from dicobench.kit.photos.coco import CocoSource  # noqa: E402
from dicobench.kit.photos.detectors import Detection, nms  # noqa: E402
from dicobench.kit.photos.model import SizePolicy  # noqa: E402

LABELS = ("apple", "coin", "key")


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    root = tmp_path_factory.mktemp("models")
    return {"owlv2": save_owlv2(root), "grounding-dino": save_grounding_dino(root), "sam": save_sam(root)}


@pytest.fixture(scope="module")
def photos(tmp_path_factory):
    root = tmp_path_factory.mktemp("photos")
    rng = np.random.default_rng(0)
    for i in range(4):
        pixels = np.full((144, 192, 3), 120, np.uint8) + rng.integers(0, 20, (144, 192, 3), dtype=np.uint8)
        pixels[30 + 10 * i : 70 + 10 * i, 40:90] = (200, 40 * i, 30)
        (root / ("sub" if i == 3 else "")).mkdir(exist_ok=True)
        Image.fromarray(pixels).save(root / ("sub" if i == 3 else "") / f"photo{i}.png")
    (root / "broken.png").write_bytes(b"not a photo")
    return root


def options(models, detector="owlv2", segmenter=True, **kw):
    return AnnotateOptions(f"transformers:{models[detector]}", f"transformers:{models['sam']}" if segmenter else None,
                           LABELS, **{"score_threshold": 0.9, "absent_threshold": 0.5, **kw})


def test_annotate_writes_a_coco_file_that_coco_sources_read(models, photos, tmp_path):
    opts = options(models)
    out = annotate(photos, tmp_path / "annotations.json", opts, progress=False)
    data = json.loads(out.read_text())
    assert [img["file_name"] for img in data["images"]] == ["photo0.png", "photo1.png", "photo2.png", "sub/photo3.png"]
    assert [c["name"] for c in data["categories"]] == list(LABELS)
    assert data["info"]["detector"] == opts.detector and data["info"]["segmenter"] == opts.segmenter
    assert (data["info"]["score_threshold"], data["info"]["absent_threshold"],
            data["info"]["nms_iou"]) == (0.9, 0.5, 0.5)
    assert data["annotations"]
    sizes = {img["id"]: (img["height"], img["width"]) for img in data["images"]}
    for a in data["annotations"]:
        assert a["score"] >= 0.5 and bool(a.get("ignore")) == (a["score"] < 0.9)
        x, y, w, h = a["bbox"]
        assert 0 <= x and 0 <= y and x + w <= sizes[a["image_id"]][1] and y + h <= sizes[a["image_id"]][0]
        if a["segmentation"]:  # SAM's mask, cut to the box
            mask = mask_utils.decode(a["segmentation"]).astype(bool)
            ys, xs = np.nonzero(mask)
            assert a["area"] == mask.sum() and xs.min() >= int(x) and xs.max() < x + w + 1 and ys.max() < y + h + 1
    assert any(a["segmentation"] for a in data["annotations"])
    assert not Path(str(out) + PARTIAL_SUFFIX).exists()
    source = CocoSource(out, photos, SizePolicy(1))
    photo = source.load(0)
    assert {o.name for o in photo.objects} <= set(LABELS)
    assert [o.editable for o in photo.objects] == [not a.get("ignore") for a in data["annotations"]
                                                   if a["image_id"] == 1]


def test_grounding_dino_through_the_same_pipeline(models, photos, tmp_path):
    out = annotate(photos, tmp_path / "gd.json", options(models, "grounding-dino", segmenter=False), progress=False)
    data = json.loads(out.read_text())
    assert data["annotations"] and all(a["segmentation"] == [] for a in data["annotations"])
    assert {a["category_id"] for a in data["annotations"]} <= {1, 2, 3}
    assert len(CocoSource(out, photos, SizePolicy(1)).load(1).objects) == sum(a["image_id"] == 2
                                                                              for a in data["annotations"])


class Killed(BaseException):
    pass


def test_annotate_resumes_after_a_kill_and_a_rerun_sends_nothing(models, photos, tmp_path, monkeypatch):
    opts = options(models)
    whole = annotate(photos, tmp_path / "whole.json", opts, progress=False).read_bytes()
    seen = []
    real = detectors.Detector.__call__

    def counting(self, pixels, labels, threshold):
        if len(seen) == 2 and kill[0]:
            raise Killed()  # the process dies while the model works on the third photo
        seen.append(pixels.shape)
        return real(self, pixels, labels, threshold)

    kill = [True]
    monkeypatch.setattr(detectors.Detector, "__call__", counting)
    out = tmp_path / "annotations.json"
    with pytest.raises(Killed):
        annotate(photos, out, opts, progress=False)
    partial = Path(str(out) + PARTIAL_SUFFIX)
    assert not out.exists() and len(partial.read_text().splitlines()) == 3  # the header and two photos
    with partial.open("a") as log:
        log.write('{"file": "photo2.png", "hei')  # a line a kill cut off
    kill[0] = False
    seen.clear()
    annotate(photos, out, opts, progress=False)
    assert len(seen) == 2  # only the two photos not done
    assert out.read_bytes() == whole and not partial.exists()

    def refuse(self, spec):
        raise AssertionError("a model was loaded")

    monkeypatch.setattr(detectors.Detector, "__init__", refuse)
    monkeypatch.setattr(detectors.Segmenter, "__init__", refuse)
    annotate(photos, out, opts, progress=False)
    assert out.read_bytes() == whole


def test_other_options_do_not_resume_a_file(models, photos, tmp_path):
    out = annotate(photos, tmp_path / "a.json", options(models, segmenter=False), progress=False)
    with pytest.raises(UserError, match="other models, thresholds or labels"):
        annotate(photos, out, options(models, segmenter=False, score_threshold=0.95), progress=False)


@pytest.mark.parametrize("kw, message", [
    ({"detector": "owlv2:x"}, "expected transformers:"),
    ({"segmenter": "sam"}, "expected transformers:"),
    ({"score_threshold": 0.2, "absent_threshold": 0.5}, "thresholds must satisfy"),
    ({"nms_iou": 0}, "--nms-iou"),
])
def test_bad_options_are_one_line(photos, tmp_path, kw, message):
    base = {"detector": "transformers:x", "labels": LABELS}
    with pytest.raises(UserError, match=message):
        annotate(photos, tmp_path / "x.json", AnnotateOptions(**{**base, **kw}), progress=False)


def test_nms_keeps_the_surest_box_per_label():
    found = [Detection("cup", 0.5, (0, 0, 10, 10)), Detection("cup", 0.9, (1, 1, 11, 11)),
             Detection("cup", 0.4, (50, 50, 60, 60)), Detection("key", 0.3, (0, 0, 10, 10))]
    assert nms(found, 0.5) == [found[1], found[2], found[3]]
    assert nms(found[::-1], 0.5) == nms(found, 0.5)
    assert len(nms(found, 0.99)) == 4


def test_labels_file_and_the_catalogue_default(tmp_path):
    path = tmp_path / "labels.txt"
    path.write_text("# my vocabulary\ncup\n\nspoon\ncup\n")
    assert ann.read_labels(path) == ("cup", "spoon")
    (tmp_path / "empty.txt").write_text("# nothing\n")
    with pytest.raises(UserError, match="no names"):
        ann.read_labels(tmp_path / "empty.txt")
    vocabulary = AnnotateOptions("transformers:x").vocabulary()
    assert len(vocabulary) > 100 and len(set(vocabulary)) == len(vocabulary)
