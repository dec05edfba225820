import json
import shutil
import sys
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from dicobench.kit.errors import UserError
from dicobench.kit.photos.model import PhotoSkipped, SizePolicy
from dicobench.kit.photos.registry import open_source
from dicobench.kit.photos.sources import split_photos

pytest.importorskip("pycocotools")
pytest.importorskip("cv2")
sys.path.insert(0, str(Path(__file__).parents[1]))
from coco_fixtures import HEIGHT, POLICY, WIDTH, coco, make_coco, source, truth_masks  # noqa: E402,F401 (fixtures)

from dicobench.kit.photos.coco import CocoSource, photo_licences  # noqa: E402


def full(obj, shape=(HEIGHT, WIDTH)):
    out = np.zeros(shape, bool)
    x, y, w, h = obj.box
    out[y : y + h, x : x + w] = obj.mask
    return out


def test_polygon_and_rle_masks_decode_exactly(coco, source):
    data = json.loads(coco.read_text())
    truth = truth_masks(coco)
    kinds = set()
    for index in range(len(source)):
        photo = source.load(index)
        anns = [a for a in data["annotations"] if a["image_id"] == data["images"][index]["id"]]
        assert len(photo.objects) == len(anns)
        for ann, obj in zip(anns, photo.objects):
            seg = ann["segmentation"]
            if not seg:
                # a box alone: segmented like a folder's boxes
                assert obj.mask is None and obj.box == tuple(ann["bbox"])
                continue
            kinds.add("polygon" if isinstance(seg, list)
                      else "rle" if isinstance(seg["counts"], str) else "uncompressed rle")
            assert np.array_equal(full(obj), truth[ann["id"]])
            ys, xs = np.nonzero(truth[ann["id"]])  # the box is the mask's tight box
            assert obj.box == (xs.min(), ys.min(), xs.max() - xs.min() + 1, ys.max() - ys.min() + 1)
    assert kinds == {"polygon", "rle", "uncompressed rle"}


def test_names_come_from_the_categories_and_annotations_decode_nothing(coco):
    source = CocoSource(coco, coco.parent / "images", POLICY)
    data = json.loads(coco.read_text())
    names = {c["id"]: c["name"] for c in data["categories"]}
    first = [names[a["category_id"]].replace("_", " ") for a in data["annotations"] if a["image_id"] == 1]
    assert [o.name for o in source.annotations(0)] == first
    assert "dining table" in first  # LVIS-style snake case reads as words
    assert all(o.mask is None for o in source.annotations(0))  # masks wait for the pixels
    assert source.photo_id(0) == "coco:p0.png"


def test_crowd_regions_and_large_objects_are_kept_but_not_editable(source):
    photo = source.load(0)
    kept = {o.name: o for o in photo.objects}
    assert not kept["person"].editable  # iscrowd
    assert not kept["dining table"].editable  # about 14% of the photo
    assert kept["dining table"].mask.sum() > 0.05 * WIDTH * HEIGHT
    assert all(o.editable for n, o in kept.items() if n not in ("person", "dining table"))


def test_lvis_layout_reads_coco_url_and_no_iscrowd(tmp_path):
    path = make_coco(tmp_path, lvis=True)
    source = open_source(f"coco:{path}:{tmp_path / 'images'}", POLICY)
    assert source.photo_id(2) == "coco:p2.png"
    photo = source.load(0)
    assert {o.name for o in photo.objects} >= {"apple", "dining table", "person"}
    assert next(o for o in photo.objects if o.name == "person").editable  # LVIS has no crowd flag
    assert not next(o for o in photo.objects if o.name == "dining table").editable


def test_masks_scale_with_an_upscaled_photo(coco):
    source = open_source(f"coco:{coco}:{coco.parent / 'images'}", SizePolicy(2048, upscale=True))
    photo = source.load(0)
    apple = next(o for o in photo.objects if o.name == "apple")
    assert photo.pixels.shape[:2] == (1536, 2048)
    assert apple.mask.shape == (apple.box[3], apple.box[2])
    small = next(o for o in open_source(f"coco:{coco}:{coco.parent / 'images'}", POLICY).load(0).objects
                 if o.name == "apple")
    assert abs(apple.mask.sum() / small.mask.sum() - 4) < 0.2


def test_licences_per_photo_reach_the_split(coco, source):
    licences, unstated = photo_licences(source)
    assert [(l.name, l.photos) for l in licences] == [("Attribution License", 3),
                                                      ("Attribution-NonCommercial License", 2)]
    assert licences[0].url == "http://creativecommons.org/licenses/by/2.0/"
    assert unstated == 1
    held_out = split_photos(source, "test", 0.5)
    part, part_unstated = photo_licences(held_out)
    assert sum(l.photos for l in part) + part_unstated == len(held_out)
    rest, rest_unstated = photo_licences(split_photos(source, "train", 0.5))
    assert part_unstated + rest_unstated == 1
    assert sum(l.photos for l in part + rest) == 5


def corrupted(coco: Path, tmp_path: Path, change) -> Path:
    data = json.loads(coco.read_text())
    change(data)
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data))
    return path


@pytest.mark.parametrize("change, message", [
    (lambda d: d["annotations"][0].update(category_id=999), "unknown category_id 999"),
    (lambda d: d["annotations"][0].update(image_id=999), "unknown image_id 999"),
    (lambda d: d["annotations"][0].update(bbox=[1, 2]), "bbox must be"),
    (lambda d: d["annotations"][0].update(segmentation=[[1, 2, 3]]), "polygon segmentation"),
    (lambda d: d["annotations"][1].update(segmentation={"counts": "x", "size": [10, 10]}), "RLE size"),
    (lambda d: d.pop("categories"), "not a COCO instances file"),
    (lambda d: d["images"][0].pop("width"), "integer id, width and height"),
])
def test_malformed_files_are_one_clear_line(coco, tmp_path, change, message):
    with pytest.raises(UserError, match=message):
        CocoSource(corrupted(coco, tmp_path, change), coco.parent / "images", POLICY)


def test_missing_files_and_mismatched_sizes(coco, tmp_path):
    with pytest.raises(UserError, match="does not exist"):
        open_source(f"coco:{tmp_path / 'none.json'}:{coco.parent / 'images'}")
    with pytest.raises(UserError, match="image folder"):
        open_source(f"coco:{coco}:{tmp_path / 'nowhere'}")
    resized = tmp_path / "resized"
    shutil.copytree(coco.parent / "images", resized)
    Image.open(resized / "p1.png").resize((1000, 768)).save(resized / "p1.png")
    with pytest.raises(PhotoSkipped, match="annotated as 1024x768, the file is 1000x768") as exc:
        CocoSource(coco, resized, POLICY).load(1)
    assert exc.value.reason == "annotation_mismatch"
    missing = CocoSource(corrupted(coco, tmp_path, lambda d: d["images"][2].update(file_name="gone.png")),
                         coco.parent / "images")
    with pytest.raises(PhotoSkipped) as exc:
        missing.load(2)
    assert exc.value.reason == "unreadable"


def test_a_coco_spec_under_the_home_folder_is_expanded(tmp_path, monkeypatch):
    path = make_coco(tmp_path)
    monkeypatch.setenv("HOME", str(tmp_path.parent))
    source = open_source(f"coco:~/{tmp_path.name}/{path.name}:~/{tmp_path.name}/images", POLICY)
    assert source.photo_id(0) == "coco:p0.png" and source.load(0).objects
