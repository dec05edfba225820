"""End-to-end MultipanelVQA builds: typed configs, shared composites, balance, resume, errors, LLM questions."""

import importlib
import json
import re
from collections import Counter

import datasets
import pyarrow.parquet as pq
import pytest

import multipanelvqa
from multipanelvqa.build import _images, build
from multipanelvqa.cli.main import main
from multipanelvqa.composite.layouts import generate_layouts
from multipanelvqa.generate import SYNTHETIC_CONFIGS
from tests.openai_stub import StubServer

generate_mod = importlib.import_module("multipanelvqa.generate")  # where shard_rows finds image_rows


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    out = tmp_path_factory.mktemp("mpv") / "bench"
    rc = main(["build", "--out", str(out), "--layouts", "6,146", "--num-proc", "2", "--images-per-shard", "3",
               "--quiet"])
    assert rc == 0
    return out


def _rows(out, config):
    return datasets.load_dataset(str(out), config, split="test")


def test_every_config_loads_typed(built):
    for config in SYNTHETIC_CONFIGS:
        ds = _rows(built, config)
        assert len(ds) == 2 * 2 * 3  # layouts x sources x questions
        assert ds.features == multipanelvqa.schema.features()
        assert set(ds["augmentation"]) == {config}
        row = ds[0]
        assert row["image"].size == (1000, 1000)
    everything = _rows(built, "all")
    assert len(everything) == 7 * 12 and len(set(everything["id"])) == len(everything)
    card = (built / "README.md").read_text()
    assert "| original | 12 | 4 | 4 | 4 |" in card and "Font Awesome" in card


def test_questions_shared_across_configs_and_boxes_follow_the_augmentation(built):
    by_config = {c: _rows(built, c).remove_columns("image")
                 for c in ("original", "enlarged", "text_hint", "captions_referenced")}
    original = by_config["original"]
    for config in ("enlarged", "text_hint"):
        other = by_config[config]
        assert other["question"] == original["question"] and other["answer"] == original["answer"]
        assert [s["bbox"] for s in other[0]["subfigures"]] != [s["bbox"] for s in original[0]["subfigures"]]
        assert [s["position"] for s in other[0]["subfigures"]] == [s["position"] for s in original[0]["subfigures"]]
    referenced = by_config["captions_referenced"]
    for a, b, qtype in zip(original["question"], referenced["question"], original["question_type"]):
        assert (a == b) == (qtype != 1)
        if qtype == 1:
            assert re.match(r"Look at subfigure \d\. ", b)
    for row in original:
        target = row["subfigures"][row["target_index"]]
        if row["question_type"] == 2:
            assert row["choices"][ord(row["answer"]) - ord("a")] == target["position"]
            assert all(f"{l}. {c}" in row["question"] for l, c in zip("abcd", row["choices"]))


def test_composites_are_encoded_and_stored_once(built):
    captions, referenced = _rows(built, "captions"), _rows(built, "captions_referenced")
    raw = captions.cast_column("image", datasets.Image(decode=False))["image"]
    assert raw == referenced.cast_column("image", datasets.Image(decode=False))["image"]
    for shard in sorted((built / "original").glob("test-*.parquet")):
        table = pq.read_table(shard)
        images = table.column("image").to_pylist()
        unique = {img["bytes"] for img in images}
        assert len(images) == 3 * len(unique)
        assert shard.stat().st_size < 1.2 * sum(map(len, unique))  # not 3x: one copy per image


def test_q1_and_q3_balanced_over_a_full_build():
    images = _images(["procedural_edit", "procedural_scene"], generate_layouts(0), 0)
    assert len(images) == 420
    for source in ("procedural_edit", "procedural_scene"):
        mine = [i for i in images if i[0] == source]
        q1 = Counter(kind for _, _, kind, _ in mine)
        assert q1["yes"] == q1["no_any"] + q1["no_all"] == 105 and abs(q1["no_any"] - q1["no_all"]) <= 1
        letters = Counter(letter for *_, letter in mine).values()
        assert max(letters) - min(letters) <= 1
        assert Counter(l.num_panels for _, l, _, _ in mine) == {k: 30 for k in range(2, 9)}
    any_only = _images(["procedural_edit"], generate_layouts(0), 0, q1_forms="any")
    assert Counter(kind for _, _, kind, _ in any_only) == {"yes": 105, "no_any": 105}  # "all" is always no


def _options(**kw):
    return dict(layouts="6,7", sources="procedural_edit", configs="original,captions", images_per_shard=1, num_proc=1,
                progress=False, **kw)


def test_resume_after_interruption_rebuilds_only_missing_shards(tmp_path, monkeypatch):
    reference = build(tmp_path / "ref", **_options())
    calls = []
    real = generate_mod.image_rows

    def interrupted(task, image_set):
        calls.append(task.layout.layout_id)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return real(task, image_set)

    monkeypatch.setattr(generate_mod, "image_rows", interrupted)
    with pytest.raises(KeyboardInterrupt):
        build(tmp_path / "resumed", **_options())
    done = sorted(p.relative_to(tmp_path / "resumed") for p in (tmp_path / "resumed").rglob("*.parquet"))
    assert [str(p) for p in done] == ["captions/test-00000-of-00002.parquet", "original/test-00000-of-00002.parquet"]
    assert not list((tmp_path / "resumed").rglob("*.partial"))
    monkeypatch.setattr(generate_mod, "image_rows", real)
    calls.clear()
    monkeypatch.setattr(generate_mod, "image_rows", lambda t, s: calls.append(t.layout.layout_id) or real(t, s))
    build(tmp_path / "resumed", **_options())
    assert calls == [7]
    for shard in reference.rglob("*.parquet"):
        assert (tmp_path / "resumed" / shard.relative_to(reference)).read_bytes() == shard.read_bytes()


@pytest.mark.parametrize(
    "args, message",
    [
        (["--sources", "flickr"], "unknown source 'flickr'"),
        (["--layouts", "0-300"], "layout ids must be in 0-209"),
        (["--layouts", "a-b"], "--layouts must be ids or ranges"),
        (["--configs", "real_world"], "unknown config 'real_world'"),
        (["--questions", "claude:x"], "unknown question source"),
        (["--sources", "vqav2", "--vqav2", "/nonexistent/vqa.parquet"], "cannot read /nonexistent/vqa.parquet"),
    ],
)
def test_bad_input_is_one_line_exit_2(tmp_path, capsys, args, message):
    defaults = [] if "--layouts" in args else ["--layouts", "0"]
    rc = main(["build", "--out", str(tmp_path / "o"), "--num-proc", "1", "--quiet", *defaults, *args])
    err = capsys.readouterr().err.strip()
    assert rc == 2 and err.count("\n") == 0 and message in err and "Traceback" not in err


def test_other_options_on_an_existing_build_are_refused(tmp_path, capsys):
    out = build(tmp_path / "b", **_options())
    rc = main(["build", "--out", str(out), "--layouts", "6,7", "--seed", "1", "--sources", "procedural_edit",
               "--quiet"])
    err = capsys.readouterr().err
    assert rc == 2 and "other options (configs, images_per_shard, seed)" in err
    (tmp_path / "junk").mkdir()
    (tmp_path / "junk" / "x.txt").write_text("x")
    assert main(["build", "--out", str(tmp_path / "junk"), "--layouts", "6", "--quiet"]) == 2


def _stub_reply(body):
    prompt = body["messages"][0]["content"]
    answer = re.search(r"The answer from the target subfigure is: (.*?)\.\n", prompt).group(1)
    position = re.search(r"located at the (.*?)\.$", prompt).group(1)
    return json.dumps({
        "Q1": "Does any subfigure show it? Please answer yes/no.", "A1": "Yes",
        "Q2": f"In the {position}, what is it? Please answer briefly.", "A2": answer,
        "Q3": f"Which subfigure shows {answer}?\na. x\nb. {position}\nc. x\nd. x\nPlease select one.", "A3": "(b)",
    })


def test_llm_questions_through_an_openai_compatible_endpoint(tmp_path):
    with StubServer(reply=_stub_reply) as stub:
        stub.script.append(("ok", "I cannot help with that."))  # one bad reply: that image keeps templates
        out = build(tmp_path / "llm", **_options(questions="openai:stub-model", llm_base_url=stub.base_url))
        sent = len(stub.requests)
    assert sent == 2 and all(r["body"]["model"] == "stub-model" for r in stub.requests)
    assert "You are asking questions about an multi-panel image" in stub.requests[0]["body"]["messages"][0]["content"]
    rows = _rows(out, "original")
    generated = [r for r in rows if r["question"].startswith("Does any subfigure")]
    assert len(generated) == 1 and generated[0]["answer"] == "yes"
    q3 = [r for r in rows if r["question_type"] == 2 and r["question"].startswith("Which subfigure shows")]
    assert len(q3) == 1 and q3[0]["answer"] == "b" and q3[0]["choices"][1] == q3[0]["subfigures"][0]["position"]
    assert "1 of 2 images kept template questions" in (out / "README.md").read_text()
    with StubServer(reply=_stub_reply) as stub:  # a resumed build asks nothing again (disk cache)
        build(tmp_path / "llm", **_options(questions="openai:stub-model", llm_base_url=stub.base_url))
        assert stub.requests == []


def test_prompt_adds_the_answer_format():
    images, text = multipanelvqa.prompt({"image": "img", "question_type": 2,
                                         "question": "Which?\na. x\nb. y\nc. z\nd. w"})
    assert images == ["img"] and text.endswith("Answer with the option's letter from the given choices directly.")
    _, text = multipanelvqa.prompt({"image": "img", "question_type": "q2", "question": "What color?"})
    assert text == "What color?\nAnswer the question using a single word or phrase."


def test_every_layout_is_built_with_layout_words(tmp_path):
    """Layout 181 had no layout words naming every panel; its base moves a panel, so a hard build
    holds it (and 180, its prefix) with words for every panel, and the manifest names no layout
    as unbuilt. The plan of a full default build has 210 images per source: 1260 rows a config."""
    out = build(tmp_path / "b", layouts="180,181", configs="original", sources="procedural_edit", num_proc=1,
                progress=False)
    rows = pq.read_table(next((out / "original").glob("*.parquet")), columns=["layout_id", "subfigures"]).to_pylist()
    assert {r["layout_id"] for r in rows} == {180, 181}
    assert all(len({s["position"] for s in r["subfigures"]}) == len(r["subfigures"]) for r in rows)
    manifest = json.loads((out / ".multipanelvqa" / "synthetic.json").read_text())
    assert manifest["layouts"] == [180, 181] and "layouts_without_words" not in manifest
    assert "Not built" not in (out / "README.md").read_text()


@pytest.mark.parametrize("difficulty", ["easy", "hard", "extreme"])
def test_every_config_has_1260_rows(difficulty):
    from multipanelvqa.build import plan
    from multipanelvqa.build_config import BuildConfig
    from multipanelvqa.schema import SYNTHETIC_CONFIGS

    chosen = plan(BuildConfig(difficulty=difficulty))
    assert len({t.layout.layout_id for t in chosen.tasks}) == 210
    assert len(chosen.tasks) * 3 == 1260  # 2 sources x 210 layouts x Q1-Q3, in every config
    assert list(chosen.configs) == list(SYNTHETIC_CONFIGS)  # each config holds three rows of every image
