"""Contact sheets of tiny built folders: size, cue boxes where the cues are, only n rows decoded."""

from __future__ import annotations

from pathlib import Path

import datasets
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from PIL import Image

import multipanelvqa.schema as mp_schema
from dicobench.benchmark import BENCHMARK as DICOBENCH_BENCHMARK
from dicobench.kit.cli.commands import run
from dicobench.kit.cli.preview import make_register
from dicobench.kit.report.preview import BOX_COLOUR, write_preview
from dicobench.schema import features as dico_features
from multipanelvqa.benchmark import BENCHMARK as MULTIPANELVQA_BENCHMARK

DICOBENCH = DICOBENCH_BENCHMARK.drawer()
MULTIPANELVQA = MULTIPANELVQA_BENCHMARK.drawer()

THUMB = 64  # fixture images are 128x96, so tiles are 64x48 at scale 0.5
CUE = [40, 20, 40, 30]  # on image_b of row 0: tile pixels x 20..39, y 10..24


def write_built(out: Path, config: str, feats: datasets.Features, rows: list[dict]) -> Path:
    (out / config).mkdir(parents=True)
    table = pa.Table.from_pylist([feats.encode_example(r) for r in rows], schema=feats.arrow_schema)
    pq.write_table(table, out / config / "test-00000-of-00001.parquet")
    card = f"---\nconfigs:\n- config_name: {config}\n  data_files:\n  - split: test\n    path: [{config}/test-*]\n"
    card += f"- config_name: all\n  default: true\n  data_files:\n  - split: test\n    path: [{config}/test-*]\n---\n"
    (out / "README.md").write_text(card)
    return out


def dico_row(i: int, cues: list[dict], answer: str) -> dict:
    return {
        "id": f"attribute-{i}", "track": "difference", "task": "attribute",
        "image_a": Image.new("RGB", (128, 96), (40, 90, 160)), "image_b": Image.new("RGB", (128, 96), (200, 180, 60)),
        "question": "What is the difference between the two images?",
        "options": ["The cup turned blue", "The lamp moved", "A dog appeared", "The clock vanished",
                    "There is no visible difference between the two images"],
        "answer": answer, "cues": cues, "changed_area": 0.01, "source": "procedural:0", "seed": i, "generator": "test",
    }


@pytest.fixture
def dico_dir(tmp_path):
    rows = [dico_row(0, [{"image": 1, "bbox": CUE, "label": "cup"}], "A")] + [dico_row(i, [], "E") for i in (1, 2)]
    return write_built(tmp_path / "dico", "attribute", dico_features(), rows)


def is_box(pixel) -> bool:
    return pixel == BOX_COLOUR


def test_dicobench_sheet_boxes_the_cue_on_image_b(dico_dir, tmp_path):
    out = write_preview(dico_dir, tmp_path / "sheets" / "sheet.png", DICOBENCH, n=2, thumb=THUMB)
    sheet = Image.open(out).convert("RGB")
    # PAD 8; two tiles per row; row = thumb + PAD + 3 caption lines of 18 px; two rows.
    assert sheet.size == (8 + 2 * (THUMB + 8), 8 + 2 * (THUMB + 8 + 3 * 18 + 8))

    left_b, top = 8 + THUMB + 8, 8
    for x, y in [(20, 17), (39, 17), (30, 10), (30, 24)]:  # left, right, top, bottom edges
        assert is_box(sheet.getpixel((left_b + x, top + y))), (x, y)
    assert not is_box(sheet.getpixel((left_b + 30, top + 17)))  # inside the box: the image shows
    assert not is_box(sheet.getpixel((8 + 20, top + 17)))  # same place on image_a: no cue there
    assert sheet.getpixel((left_b + 5, top + 5)) == (200, 180, 60)

    row1 = sheet.crop((0, 8 + THUMB + 8 + 3 * 18 + 8, sheet.width, sheet.height))
    assert BOX_COLOUR not in {c for _, c in row1.getcolors(1 << 16)}  # the E row has no cues
    caption = sheet.crop((8, top + THUMB + 8, sheet.width - 8, top + THUMB + 8 + 3 * 18))
    assert caption.convert("L").getextrema()[0] < 100  # text was drawn


def test_only_the_first_n_rows_are_decoded(dico_dir, tmp_path, monkeypatch):
    decoded = []
    original = datasets.Image.decode_example
    def counting(self, *args, **kwargs):
        decoded.append(1)
        return original(self, *args, **kwargs)

    monkeypatch.setattr(datasets.Image, "decode_example", counting)
    write_preview(dico_dir, tmp_path / "one.png", DICOBENCH, n=1, thumb=THUMB)
    assert len(decoded) == 2  # image_a and image_b of row 0


def test_multipanelvqa_sheet_boxes_every_subfigure(tmp_path):
    subfigures = [{"bbox": [0, 0, 64, 64], "position": "top left", "source_id": "s0"},
                  {"bbox": [64, 32, 64, 64], "position": "right", "source_id": "s1"}]
    row = {
        "id": "mp-0", "image": Image.new("RGB", (128, 128), (30, 30, 30)), "question_type": "q2",
        "question": "What colour is the cup in the top left subfigure?", "answer": "red", "choices": [],
        "subset": "synthetic", "source": "procedural_scene", "augmentation": "original", "layout_id": 3,
        "layout_style": "splash", "num_subfigures": 2, "subfigures": subfigures, "target_index": 0, "seed": 0,
    }
    folder = write_built(tmp_path / "mp", "original", mp_schema.features(), [row])
    sheet = Image.open(write_preview(folder, tmp_path / "mp.png", MULTIPANELVQA, config="original", thumb=THUMB))
    sheet = sheet.convert("RGB")
    assert sheet.size == (8 + THUMB + 8, 8 + THUMB + 8 + 3 * 18 + 8)
    assert is_box(sheet.getpixel((8 + 0, 8 + 10))) and is_box(sheet.getpixel((8 + 32, 8 + 25)))
    assert not is_box(sheet.getpixel((8 + 48, 8 + 40)))


def test_cli_writes_png_and_reports_bad_config_in_one_line(dico_dir, tmp_path, capsys):
    register = make_register(DICOBENCH)
    out = tmp_path / "cli.png"
    assert run("dicobench", "test", [register], ["preview", str(dico_dir), "--out", str(out), "-n", "3"]) == 0
    assert Image.open(out).size == (8 + 2 * (256 + 8), 8 + 3 * (256 + 8 + 3 * 18 + 8))
    assert capsys.readouterr().out.strip() == str(out)

    for bad in (["--config", "entity"], ["--split", "train"], ["-n", "0"]):
        assert run("dicobench", "test", [register], ["preview", str(dico_dir), "--out", str(out), *bad]) == 2
        err = capsys.readouterr().err
        assert err.startswith("dicobench: error: ") and err.count("\n") == 1, err
