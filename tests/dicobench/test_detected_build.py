import shutil
import sys
from pathlib import Path

import pytest

pytest.importorskip("pycocotools")
pytest.importorskip("cv2")
pytest.importorskip("transformers")
sys.path.insert(0, str(Path(__file__).parents[1]))
from coco_fixtures import make_coco  # noqa: E402
from digests import folder_digests  # noqa: E402
from tiny_detectors import save_owlv2  # noqa: E402

from dicobench.build import build  # noqa: E402
from dicobench.cli.main import main  # noqa: E402
from dicobench.kit.errors import UserError  # noqa: E402
from dicobench.kit.photos import detectors  # noqa: E402
from dicobench.kit.photos.annotate import AnnotateOptions  # noqa: E402


@pytest.mark.slow
def test_a_folder_build_with_a_detector_caches_its_annotations_and_a_rebuild_sends_nothing(tmp_path, monkeypatch):
    make_coco(tmp_path / "coco")
    photos = tmp_path / "coco" / "images"  # plain photos: the annotation file is not beside them
    model = save_owlv2(tmp_path / "models")
    detection = AnnotateOptions(f"transformers:{model}", None, ("apple", "coin", "key"), 0.95, 0.9)
    settings = dict(source=f"folder:{photos}", tasks="attribute,entity", per_task=2, min_long_side=768, progress=False,
                    num_proc=1, detection=detection)
    out = build(tmp_path / "out", **settings)
    cached = list((out / ".dicobench" / "annotations").glob("*.json"))
    assert len(cached) == 1
    first = folder_digests(out)
    card = (out / "README.md").read_text()
    assert f"objects detected by `transformers:{model}` over 3 names" in card
    assert "no detection of it scored 0.9 or more" in card and "only as good as the detector" in card

    def refuse(self, spec):
        raise AssertionError("a model was loaded")

    monkeypatch.setattr(detectors.Detector, "__init__", refuse)
    shutil.rmtree(model)
    again = build(out, overwrite=True, **settings)
    assert folder_digests(again) == first


def test_detection_options_are_refused_where_they_cannot_apply(tmp_path, capsys):
    detection = AnnotateOptions("transformers:x", labels=("cup",))
    with pytest.raises(UserError, match="use it with --source folder:DIR"):
        build(tmp_path / "a", source="vstar:somewhere", detection=detection)
    with pytest.raises(UserError, match="apply to photo sources"):
        build(tmp_path / "b", detection=detection)
    assert main(["build", "--out", str(tmp_path / "c"), "--source", "folder:x", "--segmenter",
                 "transformers:sam"]) == 2
    assert "give --detector transformers:MODEL" in capsys.readouterr().err
    assert main(["annotate", str(tmp_path), "--out", str(tmp_path / "x.json"), "--detector", "owl:x"]) == 2
    assert "expected transformers:" in capsys.readouterr().err
