"""MagicBrush and VQAv2 adapters on small Parquet fixtures in the upstream column layouts."""

import io

import datasets
import numpy as np
import pytest
from PIL import Image

from dicobench.kit.errors import UserError
from multipanelvqa.build import build
from multipanelvqa.sources.adapters import edit_question, magicbrush_sets, vqav2_sets
from multipanelvqa.sources.image_sets import decode_panel


def _png(value: int, size=(64, 48)) -> dict:
    buf = io.BytesIO()
    Image.fromarray(np.full((size[1], size[0], 3), value, np.uint8)).save(buf, format="PNG")
    return {"bytes": buf.getvalue(), "path": None}


@pytest.fixture(scope="module")
def magicbrush(tmp_path_factory):
    """Three photos: two edited over two turns, one whose instructions fit no template."""
    rows = []
    edits = {"101": ["make the car red", "add a hat to the dog"], "102": ["Turn the sky purple.", "let it snow"],
             "103": ["let it snow"]}
    for img, instructions in edits.items():
        for t, instruction in enumerate(instructions, start=1):
            base = int(img) - 100
            rows.append({"img_id": img, "turn_index": t, "source_img": _png(base * 40 + t - 1), "mask_img": _png(255),
                         "instruction": instruction, "target_img": _png(base * 40 + t)})
    feats = datasets.Features({"img_id": datasets.Value("string"), "turn_index": datasets.Value("int32"),
                               "source_img": datasets.Image(), "mask_img": datasets.Image(),
                               "instruction": datasets.Value("string"), "target_img": datasets.Image()})
    path = tmp_path_factory.mktemp("mb") / "dev-00000-of-00001.parquet"
    datasets.Dataset.from_list(rows, features=feats).to_parquet(str(path))
    return path


@pytest.fixture(scope="module")
def vqav2(tmp_path_factory):
    """'What color is the bus?' on five images (one with weak agreement), a yes/no question on three."""
    def answers(a, agree):
        return [{"answer": a if i < agree else "unsure", "answer_confidence": "yes", "answer_id": i + 1}
                for i in range(10)]

    spec = [("What color is the bus?", "other", a, agree) for a, agree in
            [("white", 9), ("red", 8), ("white", 10), ("blue", 2), ("white", 7)]]
    spec += [("Is it raining?", "yes/no", a, 10) for a in ("no", "yes", "no")]
    rows = [{"question_type": "what color is the", "multiple_choice_answer": a, "answers": answers(a, agree),
             "image_id": 500 + i, "answer_type": t, "question_id": 9000 + i, "question": q,
             "image": _png(10 * i, (80, 60))}
            for i, (q, t, a, agree) in enumerate(spec)]
    feats = datasets.Features({
        "question_type": datasets.Value("string"), "multiple_choice_answer": datasets.Value("string"),
        "answers": datasets.List({"answer": datasets.Value("string"), "answer_confidence": datasets.Value("string"),
                                  "answer_id": datasets.Value("int64")}),
        "image_id": datasets.Value("int64"), "answer_type": datasets.Value("string"),
        "question_id": datasets.Value("int64"), "question": datasets.Value("string"), "image": datasets.Image()})
    folder = tmp_path_factory.mktemp("vqa")
    datasets.Dataset.from_list(rows, features=feats).to_parquet(str(folder / "validation-00000-of-00001.parquet"))
    return folder


@pytest.mark.parametrize("instruction, question", [
    ("make the car red", "Is the car red?"),
    ("Change the wall to be blue.", "Is the wall blue?"),
    ("replace the cat with a dog", "Is there a dog in the image?"),
    ("add a hat to the dog", "Is there a hat in the image?"),
    ("put an apple on the table", "Is there an apple in the image?"),
    ("let it snow", None),
    ("remove the car", None),
])
def test_edit_question_templates(instruction, question):
    assert edit_question(instruction) == question


def test_magicbrush_sets(magicbrush):
    sets = magicbrush_sets(str(magicbrush), "dev")
    assert [s.set_id for s in sets] == ["magicbrush:101:turn2", "magicbrush:102:turn1"]
    hat, sky = sets
    assert hat.question == "Is there a hat in the image?" and hat.answers == ("yes", "no", "no")
    # the target is turn 2's result; the others are the images before that edit
    assert [decode_panel(p).getpixel((0, 0))[0] for p in hat.panels] == [42, 40, 41]
    assert sky.question == "Is the sky purple?" and sky.panel_ids[0] == "magicbrush:102:turn1:target"
    assert hat.replacement_answers == ("no",) and decode_panel(hat.replacements[0]).getpixel((0, 0))[0] == 80


def test_vqav2_sets(vqav2):
    sets = vqav2_sets(str(vqav2), "validation")
    bus, rain = sets
    assert bus.question == "What color is the bus?" and bus.answers == ("red", "white", "white", "white")
    assert bus.absent_answer == "blue"  # an answer of the same type that no panel or replacement has
    assert bus.panel_ids[0] == "vqav2:501:9001" and decode_panel(bus.panels[0]).size == (80, 60)
    assert rain.answers == ("yes", "no", "no") and rain.absent_answer is None
    assert bus.replacement_answers == ("white",) * 3  # VQAv2 panels already differ: the group again


def test_adapter_build_loads(vqav2, magicbrush, tmp_path):
    out = build(tmp_path / "real", sources="magicbrush,vqav2",
                source_data={"magicbrush": str(magicbrush), "vqav2": str(vqav2)},
                layouts="6", configs="original,low_similarity,text_hint", num_proc=1, progress=False)
    ds = datasets.load_dataset(str(out), "all", split="test")
    assert len(ds) == 2 * 3 * 3 and set(ds["source"]) == {"magicbrush", "vqav2"}
    assert "MagicBrush" in (out / "README.md").read_text()


def test_unusable_data_is_a_user_error(tmp_path, magicbrush):
    with pytest.raises(UserError, match="no column"):
        vqav2_sets(str(magicbrush), "dev")
    with pytest.raises(UserError, match="no Parquet files"):
        magicbrush_sets(str(tmp_path), "dev")
