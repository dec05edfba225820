import io
import json
import struct
import zlib

import numpy as np
import pytest
from PIL import Image

from dicobench.kit.errors import UserError
from dicobench.kit.photos.model import Photo, PhotoObject, PhotoSkipped, SizePolicy, apply_size_policy
from dicobench.kit.photos.proposals import propose_regions
from dicobench.kit.photos.registry import open_source
from dicobench.kit.photos.sources import FolderSource, HubSource, VStarSource, in_test_share, split_photos

skdata = pytest.importorskip("skimage.data")
pytest.importorskip("cv2")


def encoded(pixels, fmt="PNG") -> bytes:
    buf = io.BytesIO()
    Image.fromarray(pixels).save(buf, format=fmt)
    return buf.getvalue()


def bomb_png(width=9000, height=9000) -> bytes:
    """A valid PNG header that claims a huge canvas (decoding it fully would need gigabytes)."""
    data = bytearray(encoded(np.zeros((1, 1, 3), np.uint8)))
    ihdr = struct.pack(">II", width, height) + bytes(data[24:29])
    data[16:29] = ihdr
    data[29:33] = struct.pack(">I", zlib.crc32(b"IHDR" + ihdr))
    return bytes(data)


@pytest.fixture
def photo_folder(tmp_path):
    (tmp_path / "sub").mkdir()
    (tmp_path / "astronaut.png").write_bytes(encoded(skdata.astronaut()))
    (tmp_path / "sub" / "coffee.jpg").write_bytes(encoded(skdata.coffee(), "JPEG"))
    (tmp_path / "corrupt.jpg").write_bytes(b"not an image at all")
    (tmp_path / "truncated.png").write_bytes(encoded(skdata.chelsea())[:2000])
    (tmp_path / "bomb.png").write_bytes(bomb_png())
    (tmp_path / "notes.txt").write_text("ignored")
    (tmp_path / "annotations.jsonl").write_text(json.dumps(
        {"file": "sub/coffee.jpg", "objects": [{"name": "cup", "box": [100, 50, 300, 250]},
                                               {"name": "spoon", "box": [590, 10, 40, 40]}]}) + "\n")
    return tmp_path


def test_folder_yields_good_photos_and_counts_the_bad_ones(photo_folder):
    source = FolderSource(photo_folder, SizePolicy(min_long_side=500))
    photos = list(source)
    assert [p.id for p in photos] == ["folder:astronaut.png", "folder:sub/coffee.jpg"]
    assert source.skipped == {"unreadable": 3}
    assert photos[0].pixels.dtype == np.uint8 and photos[0].pixels.shape == (512, 512, 3)
    # annotations are read, and boxes reaching past the frame are clipped to it
    assert photos[1].objects == (PhotoObject((100, 50, 300, 250), "cup"), PhotoObject((590, 10, 10, 40), "spoon"))
    assert photos[0].objects == ()


def test_bad_files_give_clear_reasons(photo_folder):
    source = FolderSource(photo_folder, SizePolicy(min_long_side=1))
    messages = {}
    for i, path in enumerate(source.files):
        try:
            source.load(i)
        except PhotoSkipped as exc:
            messages[path.name] = str(exc)
    assert set(messages) == {"bomb.png", "corrupt.jpg", "truncated.png"}
    assert "larger than" in messages["bomb.png"] and "9000x9000" in messages["bomb.png"]
    assert "cannot decode" in messages["corrupt.jpg"] and "cannot decode" in messages["truncated.png"]


def test_size_policy_refuses_small_photos_unless_upscaling_is_asked():
    photo = Photo("x", skdata.coffee(), (PhotoObject((60, 40, 30, 20), "cup"),))
    with pytest.raises(PhotoSkipped, match="smaller than 1200 px") as info:
        apply_size_policy(photo, SizePolicy(1200))
    assert info.value.reason == "too_small"
    big = apply_size_policy(photo, SizePolicy(1200, upscale=True))
    assert big.pixels.shape == (800, 1200, 3)
    assert big.objects[0].box == (120, 80, 60, 40)
    assert apply_size_policy(photo, SizePolicy(600)) is photo


def test_vstar_layout(tmp_path):
    for folder, stem in (("direct_attributes", "sa_1"), ("relative_position", "sa_2")):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / f"{stem}.jpg").write_bytes(encoded(skdata.rocket(), "JPEG"))
        (tmp_path / folder / f"{stem}.json").write_text(json.dumps(
            {"target_object": ["flag", "car"], "bbox": [[10, 20, 30, 40], [100, 200, 50, 60]],
             "question": "What is the colour of the flag?", "options": ["red", "blue"]}))
    source = open_source(f"vstar:{tmp_path}", SizePolicy(600))
    assert isinstance(source, VStarSource) and len(source) == 2
    photo = source.load(1)
    assert photo.id == "vstar:sa_2"
    assert photo.objects == (PhotoObject((10, 20, 30, 40), "flag"), PhotoObject((100, 200, 50, 60), "car"))


def test_hub_dataset_with_objects_column(tmp_path):
    import datasets

    features = datasets.Features({
        "image": datasets.Image(),
        "objects": {"bbox": datasets.List(datasets.List(datasets.Value("float32"), length=4)),
                    "category": datasets.List(datasets.ClassLabel(names=["cat", "dog"]))},
    })
    ds = datasets.Dataset.from_dict({
        "image": [{"bytes": encoded(skdata.chelsea()), "path": None}, {"bytes": b"broken", "path": None}],
        "objects": [{"bbox": [[10, 10, 50, 40]], "category": [0]}, {"bbox": [], "category": []}],
    }, features=features)
    (tmp_path / "data").mkdir()
    ds.to_parquet(tmp_path / "data" / "test-00000-of-00001.parquet")
    source = open_source(f"hf:{tmp_path}:test", SizePolicy(400))
    assert isinstance(source, HubSource) and len(source) == 2
    photos = list(source)
    assert len(photos) == 1 and source.skipped == {"unreadable": 1}
    assert photos[0].objects == (PhotoObject((10, 10, 50, 40), "cat"),)
    assert photos[0].pixels.shape == (300, 451, 3)


@pytest.mark.parametrize("spec", ["folder:", "zip:x", "vstar:/nonexistent/dir"])
def test_bad_source_specs_are_user_errors(spec):
    with pytest.raises(UserError):
        open_source(spec)


def test_region_proposals_are_small_salient_and_apart():
    pixels = skdata.coffee()
    h, w = pixels.shape[:2]
    regions = propose_regions(pixels)
    assert len(regions) >= 3
    boxes = [r.box for r in regions]
    assert all(r.name is None for r in regions)
    assert all(bw * bh <= 0.01 * h * w and x > 0 and y > 0 and x + bw < w and y + bh < h for x, y, bw, bh in boxes)
    for i, a in enumerate(boxes):
        for b in boxes[i + 1:]:
            assert a[0] + a[2] <= b[0] or b[0] + b[2] <= a[0] or a[1] + a[3] <= b[1] or b[1] + b[3] <= a[1]
    assert propose_regions(pixels) == regions  # deterministic
    # a flat photo has nothing salient
    assert propose_regions(np.full((400, 400, 3), 128, np.uint8)) == []


def test_region_proposals_do_not_depend_on_resolution():
    """A 2K photo is searched at 1024 px: the same regions as at 1024, in its own pixels."""
    small = np.asarray(Image.fromarray(skdata.astronaut()).resize((1024, 1024), Image.Resampling.LANCZOS))
    large = np.asarray(Image.fromarray(skdata.astronaut()).resize((2048, 2048), Image.Resampling.LANCZOS))
    at_1024, at_2048 = propose_regions(small), propose_regions(large)
    assert len(at_1024) >= 4 and len(at_2048) >= len(at_1024) - 1
    matched = [a for a in at_1024 if any(all(abs(2 * u - v) <= 8 for u, v in zip(a.box, b.box)) for b in at_2048)]
    assert len(matched) >= len(at_1024) - 1


def test_ids_and_annotations_are_read_without_decoding(photo_folder):
    source = FolderSource(photo_folder, SizePolicy(min_long_side=500))
    ids = [source.photo_id(i) for i in range(len(source))]
    assert "folder:corrupt.jpg" in ids  # listed, though it cannot be decoded
    coffee = ids.index("folder:sub/coffee.jpg")
    # boxes as stored: clipping to the frame happens when the photo is loaded
    assert source.annotations(coffee) == (PhotoObject((100, 50, 300, 250), "cup"),
                                          PhotoObject((590, 10, 40, 40), "spoon"))
    assert source.annotations(ids.index("folder:corrupt.jpg")) == ()


def test_test_share_splits_photos_disjointly_and_stably(tmp_path):
    for i in range(40):
        (tmp_path / f"p{i:02d}.png").write_bytes(encoded(np.full((8, 8, 3), i, np.uint8)))
    source = FolderSource(tmp_path, SizePolicy(1))
    test, train = (split_photos(source, split, 0.25) for split in ("test", "train"))
    test_ids = {test.photo_id(i) for i in range(len(test))}
    train_ids = {train.photo_id(i) for i in range(len(train))}
    assert not test_ids & train_ids and len(test_ids | train_ids) == 40
    assert 4 <= len(test_ids) <= 16  # about a quarter
    assert all(in_test_share(p, 0.25) for p in test_ids)
    # the choice depends on the id alone, not on which other photos the source holds
    (tmp_path / "p00.png").unlink()
    smaller = split_photos(FolderSource(tmp_path, SizePolicy(1)), "test", 0.25)
    assert {smaller.photo_id(i) for i in range(len(smaller))} == test_ids - {"folder:p00.png"}
    assert (test.load(0).pixels
            == source.load(source.files.index(tmp_path / test.photo_id(0).split(":")[1])).pixels).all()
    assert split_photos(source, "train", None) is source


def test_a_spec_path_under_the_home_folder_is_expanded(photo_folder, monkeypatch):
    """`--source folder:~/photos`: no shell expands the `~` after `folder:`, so the source does."""
    monkeypatch.setenv("HOME", str(photo_folder.parent))
    home = f"~/{photo_folder.name}"
    assert [p.id for p in open_source(f"folder:{home}", SizePolicy(min_long_side=500))] == \
           ["folder:astronaut.png", "folder:sub/coffee.jpg"]
    with pytest.raises(UserError, match=f"under {photo_folder}$"):  # the folder was found: it holds no V* samples
        open_source(f"vstar:{home}", SizePolicy(600))
