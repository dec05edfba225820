"""`export vlmevalkit` / `import vlmevalkit`. VLMEvalKit is not installable from the package
registry here, so the TSV is checked against its documented image-MCQ columns and read the way
its loader reads it (pandas `read_csv(sep="\\t")`, a list cell parsed as a Python list
literal); the dataset class runs on a minimal stand-in for `ImageMCQDataset` and `vlmeval.smp`
that does what theirs do for these methods (load the TSV, set `img_root`)."""

import ast
import base64
import io
import json
import sys
import types

import datasets
import numpy as np
import pandas as pd
import pytest
from PIL import Image

from dicobench.cli.main import main as dicobench
from dicobench.harnesses.vlmevalkit_task import VLMEVALKIT
from dicobench.kit.eval.harnesses import vlmevalkit
from dicobench.prompting import prompt
from dicobench.schema import LETTERS, TASKS, track_of
from multipanelvqa.cli.main import main as multipanelvqa
from multipanelvqa.harnesses.vlmevalkit_task import VLMEVALKIT as MPV
from tests.kit.test_eval_cli import write_multipanel

COLUMNS = ["index", "image", "question", "A", "B", "C", "D", "E", "answer", "category", "l2-category"]


def read_tsv(path):
    return pd.read_csv(path, sep="\t", keep_default_na=False, dtype=str)


@pytest.fixture(scope="module")
def exported(small_build, tmp_path_factory):
    out = tmp_path_factory.mktemp("vlmevalkit") / "DiCoBench.tsv"
    assert dicobench(["export", "vlmevalkit", "--dataset", str(small_build), "--out", str(out)]) == 0
    return out


def test_the_tsv_has_vlmevalkit_columns_and_the_stored_pngs(small_build, exported):
    frame = read_tsv(exported)
    assert all(c in frame.columns for c in COLUMNS) and "id" in frame.columns
    rows = datasets.load_dataset(str(small_build), "all", split="test")
    raw = rows.cast_column("image_a", datasets.Image(decode=False)).cast_column("image_b",
                                                                                datasets.Image(decode=False))
    assert len(frame) == len(rows) and list(frame["index"]) == [str(i) for i in range(len(rows))]
    for line, row, stored in zip(frame.to_dict("records"), rows, raw):
        images = ast.literal_eval(line["image"])  # VLMEvalKit's toliststr: a list literal of base64 strings
        assert [base64.b64decode(i) for i in images] == [stored["image_a"]["bytes"], stored["image_b"]["bytes"]]
        assert ast.literal_eval(line["image_path"]) == [f"{row['id']}_1.png", f"{row['id']}_2.png"]
        assert line["question"] == row["question"] and [line[x] for x in LETTERS] == row["options"]
        assert line["answer"] == LETTERS[row["answer"]] and line["category"] == TASKS[row["task"]]
        assert line["l2-category"] == track_of(TASKS[row["task"]])


def test_build_prompt_is_the_project_prompt_with_lossless_files(small_build, exported, tmp_path):
    line = read_tsv(exported).to_dict("records")[0]
    row = datasets.load_dataset(str(small_build), "all", split="test[:1]")[0]
    paths = vlmevalkit.dump_images(line, tmp_path / "images")
    message = vlmevalkit.build_prompt(VLMEVALKIT, line, paths)
    assert [m["type"] for m in message] == ["text", "image", "text", "image", "text"]
    assert [message[0]["value"], message[2]["value"], message[4]["value"]] == ["Image 1:", "Image 2:", prompt(row)[1]]
    for m, original in ((message[1], row["image_a"]), (message[3], row["image_b"])):
        written = Image.open(m["value"])
        assert written.format == "PNG" and np.array_equal(np.asarray(written), np.asarray(original))


def predictions_file(tsv, path, reply):
    """What VLMEvalKit writes after inference: the TSV's columns without image, plus prediction."""
    frame = read_tsv(tsv).drop(columns=["image"], errors="ignore")
    frame["prediction"] = [reply(line) for line in frame.to_dict("records")]
    frame.to_csv(path, sep="\t", index=False)
    return path


def test_import_and_the_class_evaluate_score_like_score(small_build, exported, tmp_path):
    def reply(line):
        return "I cannot tell." if int(line["index"]) % 4 == 0 else f"The answer is ({line['answer']})."

    results = predictions_file(exported, tmp_path / "model_DiCoBench.tsv", reply)
    predictions = tmp_path / "predictions.jsonl"
    assert dicobench(["import", "vlmevalkit", str(results), "--out", str(predictions)]) == 0
    assert dicobench(["score", str(predictions), "--dataset", str(small_build), "--out", str(tmp_path / "s")]) == 0
    ours = json.loads((tmp_path / "s" / "scores.json").read_text())
    assert ours["accuracy"] == pytest.approx(6 / 8)
    by_class = vlmevalkit.evaluate(VLMEVALKIT, vlmevalkit.read_results(results))
    assert by_class["accuracy"] == ours["accuracy"] and by_class["per_task"] == ours["per_task"]


def load_class(source, name, lmu_root, monkeypatch):
    """Run a class file on a minimal stand-in for VLMEvalKit's `ImageMCQDataset` and `vlmeval.smp`."""
    class ImageMCQDataset:  # what VLMEvalKit's base does before build_prompt/evaluate are called
        def __init__(self, dataset):
            self.dataset_name = dataset
            self.img_root = str(lmu_root / "images" / dataset)
            self.data = self.load_data(dataset)

    smp = types.SimpleNamespace(LMUDataRoot=lambda: str(lmu_root), load=read_tsv,
                                dump=lambda obj, path: open(path, "w").write(json.dumps(obj)))
    image_mcq = types.SimpleNamespace(ImageMCQDataset=ImageMCQDataset)
    for module_name, module in (("vlmeval", types.ModuleType("vlmeval")), ("vlmeval.smp", smp),
                                ("vlmeval.dataset", types.ModuleType("vlmeval.dataset")),
                                ("vlmeval.dataset.image_mcq", image_mcq)):
        monkeypatch.setitem(sys.modules, module_name, module)
    namespace = {}
    exec(compile(source, f"{name.lower()}.py", "exec"), namespace)
    return namespace[name]


@pytest.mark.parametrize("images", ["inline", "files"])
def test_the_dataset_class_is_named_after_the_tsv_and_reads_it_where_it_was_written(small_build, tmp_path, monkeypatch,
                                                                                    images, capsys):
    lmu_root = tmp_path / "LMUData"  # VLMEvalKit's own root, where this export is not
    monkeypatch.setenv("LMUData", str(lmu_root))
    out = tmp_path / "elsewhere" / "MyDiCo.tsv"
    assert dicobench(["export", "vlmevalkit", "--dataset", str(small_build), "--out", str(out),
                      "--images", images]) == 0
    said = capsys.readouterr().out
    size = out.stat().st_size
    assert f"({size / 1e6:.1f} MB" in said and "MB per row" in said and "class MyDiCo" in said
    frame = read_tsv(out)
    assert ("image" in frame.columns) == (images == "inline")
    cls = load_class((out.parent / "mydico_vlmevalkit.py").read_text(), "MyDiCo", lmu_root, monkeypatch)
    assert cls.supported_datasets() == ["MyDiCo"]
    dataset = cls()
    assert len(dataset.data) == len(frame)
    row = datasets.load_dataset(str(small_build), "all", split="test[:1]")[0]
    message = dataset.build_prompt(0)
    assert [m["type"] for m in message] == ["text", "image", "text", "image", "text"]
    assert message[4]["value"] == prompt(row)[1]
    for m, original in ((message[1], row["image_a"]), (message[3], row["image_b"])):
        assert m["value"].startswith(str(out.parent / "images" / "MyDiCo"))  # beside the TSV, not in $LMUData
        assert np.array_equal(np.asarray(Image.open(m["value"])), np.asarray(original))
    results = predictions_file(out, tmp_path / "MyDiCo_pred.tsv", lambda line: line["answer"])
    assert dataset.evaluate(str(results))["accuracy"] == 1.0
    assert json.loads((tmp_path / "MyDiCo_pred_scores.json").read_text())["accuracy"] == 1.0
    if images == "inline":  # the TSV holds the PNGs: about 4/3 of their bytes
        raw = datasets.load_dataset(str(small_build), "all", split="test").cast_column(
            "image_a", datasets.Image(decode=False)).cast_column("image_b", datasets.Image(decode=False))
        pngs = sum(len(r["image_a"]["bytes"]) + len(r["image_b"]["bytes"]) for r in raw)
        assert 4 / 3 * pngs < size < 4 / 3 * pngs + 100_000
    else:
        assert size < 100_000  # text only


def test_an_export_into_vlmevalkits_root_reads_it_from_there(small_build, tmp_path, monkeypatch):
    lmu_root = tmp_path / "LMUData"
    monkeypatch.setenv("LMUData", str(lmu_root))
    assert dicobench(["export", "vlmevalkit", "--dataset", str(small_build), "--out", str(lmu_root / "DiCoBench.tsv"),
                      "--config", "entity", "--limit", "2"]) == 0
    source = (lmu_root / "dicobench_vlmevalkit.py").read_text()
    assert "DATA_ROOT = LMUDataRoot()" in source and str(tmp_path) not in source
    assert len(load_class(source, "DiCoBench", lmu_root, monkeypatch)().data) == 2


@pytest.mark.parametrize("name", ["my-bench.tsv", "DiCoBench.csv", "3d.tsv"])
def test_a_tsv_name_vlmevalkit_cannot_use_is_refused(small_build, tmp_path, capsys, name):
    assert dicobench(["export", "vlmevalkit", "--dataset", str(small_build), "--out", str(tmp_path / name)]) == 2
    assert "Python identifier" in capsys.readouterr().err and not list(tmp_path.iterdir())


def test_multipanelvqa_q3_letters_go_upper_case_and_come_back(tmp_path):
    root = tmp_path / "mpv"
    replies = write_multipanel(root)
    tsv = tmp_path / "MultipanelVQA.tsv"
    assert multipanelvqa(["export", "vlmevalkit", "--dataset", str(root), "--out", str(tsv)]) == 0
    lines = {line["id"]: line for line in read_tsv(tsv).to_dict("records")}
    q3 = lines["img0-q3"]
    assert (q3["answer"], q3["A"], q3["D"], q3["E"], q3["category"]) == ("C", "top left", "bottom right", "", "q3")
    assert lines["img0-q1"]["A"] == "" and lines["img0-q1"]["answer"] == "no"
    single = base64.b64decode(q3["image"])  # one composite: one base64 string, the stored PNG
    assert Image.open(io.BytesIO(single)).format == "PNG"
    message = vlmevalkit.build_prompt(MPV, q3, vlmevalkit.dump_images(q3, tmp_path / "img"))
    assert [m["type"] for m in message] == ["image", "text"] and message[1]["value"].startswith(q3["question"])

    by_question = {line["question"]: line for line in lines.values()}
    answers = {q: ("(C)" if by_question[q]["category"] == "q3" else r) for q, r in replies.items()}  # upper-case C
    results = predictions_file(tsv, tmp_path / "model_MultipanelVQA.tsv", lambda line: answers[line["question"]])
    predictions = tmp_path / "predictions.jsonl"
    assert multipanelvqa(["import", "vlmevalkit", str(results), "--out", str(predictions)]) == 0
    assert multipanelvqa(["score", str(predictions), "--dataset", str(root), "--out", str(tmp_path / "s")]) == 0
    ours = json.loads((tmp_path / "s" / "scores.json").read_text())
    assert ours["accuracy"] == 1.0
    assert vlmevalkit.evaluate(MPV, vlmevalkit.read_results(results))["accuracy"] == 1.0


def test_a_hub_repo_id_is_read_through_datasets(hub_repo, tmp_path):
    out = tmp_path / "DiCoBench.tsv"
    assert dicobench(["export", "vlmevalkit", "--dataset", "someone/dicobench", "--out", str(out), "--limit",
                      "1"]) == 0
    assert "someone/dicobench" in hub_repo
    assert sorted(read_tsv(out)["category"]) == sorted(TASKS)  # the first row of each task, as eval --limit 1


def test_an_xlsx_prediction_file_is_read(exported, tmp_path):
    """VLMEvalKit writes `<model>_<dataset>.xlsx`; the vlmevalkit extra installs openpyxl to read it."""
    frame = read_tsv(exported).drop(columns=["image"])
    frame["prediction"] = [f"Answer: {a}" for a in frame["answer"]]
    xlsx = tmp_path / "model_DiCoBench.xlsx"
    frame.to_excel(xlsx, index=False)
    lines = vlmevalkit.read_results(xlsx)
    assert [line["id"] for line in lines] == list(frame["id"])
    assert vlmevalkit.evaluate(VLMEVALKIT, lines)["accuracy"] == 1.0


def test_the_export_shows_a_progress_bar_on_a_terminal(small_build, tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    out = tmp_path / "DiCoBench.tsv"
    assert dicobench(["export", "vlmevalkit", "--dataset", str(small_build), "--out", str(out), "--limit", "1"]) == 0
    err = capsys.readouterr().err
    assert "writing DiCoBench.tsv" in err and "8/8" in err and " MB" in err  # rows, and the bytes written so far


FAKE_DATASET = '''
import warnings

DATASET_CLASSES = []  # VLMEvalKit's list of dataset classes, searched by build_dataset
SUPPORTED_DATASETS = []


def build_dataset(dataset_name, **kwargs):
    for cls in DATASET_CLASSES:
        if dataset_name in cls.supported_datasets():
            return cls(dataset=dataset_name, **kwargs)
    warnings.warn(f"Dataset {dataset_name} is not officially supported. ")
    return None  # VLMEvalKit would build a generic CustomMCQDataset from $LMUData/NAME.tsv here
'''
FAKE_IMAGE_MCQ = '''
import os.path as osp

from vlmeval.smp import LMUDataRoot


class ImageMCQDataset:
    def __init__(self, dataset="MMBench", skip_noimg=True):
        self.dataset_name = dataset
        self.img_root = osp.join(LMUDataRoot(), "images", dataset)
        self.data = self.load_data(dataset)
'''
FAKE_SMP = '''
import json
import os

import pandas as pd


def LMUDataRoot():
    return os.environ.get("LMUData") or os.path.expanduser("~/LMUData")


def load(path):
    return pd.read_csv(path, sep="\\t", keep_default_na=False, dtype=str)


def dump(data, path):
    with open(path, "w") as f:
        json.dump(data, f)
'''
FAKE_RUN = '''
import argparse
import json
import os
import sys

LOADED_FIRST = sorted(m for m in sys.modules if m.split(".")[0] in ("vlmeval", "torch"))  # run.py sets GPUs first
os.environ["CUDA_VISIBLE_DEVICES"] = "0"

from vlmeval.dataset import build_dataset  # noqa: E402


def load_env():
    pass


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", nargs="+")
    parser.add_argument("--model", nargs="+")
    args = parser.parse_args()
    dataset = build_dataset(args.data[0])
    if dataset is None:
        print(json.dumps({"built": None}))
        return
    prompts = [dataset.build_prompt(i) for i in range(len(dataset.data))]  # as its inference does
    predictions = dataset.data.drop(columns=[c for c in ("image",) if c in dataset.data])
    predictions["prediction"] = ["The answer is (" + a + ")." for a in predictions["answer"]]
    result = os.path.join(os.getcwd(), f"{args.model[0]}_{args.data[0]}.tsv")
    predictions.to_csv(result, sep="\\t", index=False)
    scores = dataset.evaluate(result)
    print(json.dumps({"built": type(dataset).__name__, "loaded_first": LOADED_FIRST, "argv": sys.argv[1:],
                      "force": dataset.force_use_dataset_prompt, "first": prompts[0], "n": scores["n"],
                      "accuracy": scores["accuracy"]}))


if __name__ == "__main__":
    load_env()
    main()
'''


def fake_vlmevalkit(root):
    """A stand-in for a VLMEvalKit checkout with what the class file's script relies on: run.py's
    shape (module code that picks GPUs before `vlmeval` loads, `load_env`, `main`), `build_dataset`
    searching `DATASET_CLASSES`, and `ImageMCQDataset`/`vlmeval.smp` as their methods behave."""
    for path, text in (("run.py", FAKE_RUN), ("vlmeval/__init__.py", ""), ("vlmeval/smp.py", FAKE_SMP),
                       ("vlmeval/dataset/__init__.py", FAKE_DATASET),
                       ("vlmeval/dataset/image_mcq.py", FAKE_IMAGE_MCQ)):
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
    return root


def test_the_class_file_runs_vlmevalkit_with_itself_registered(small_build, tmp_path, capsys):
    """`python CLASS_FILE --data NAME --model M` in VLMEvalKit's folder: run.py's own code, with the class
    registered in that process only; written with absolute paths, from a relative --out."""
    import os
    import subprocess
    from pathlib import Path

    kit = fake_vlmevalkit(tmp_path / "VLMEvalKit")
    work = tmp_path / "work"
    work.mkdir()
    os.chdir(work)
    try:  # a relative --out: the class file names its folder absolutely
        assert dicobench(["export", "vlmevalkit", "--dataset", str(small_build), "--out", "data/DiCoBench.tsv",
                          "--limit", "1"]) == 0
    finally:
        os.chdir(tmp_path)
    said = capsys.readouterr().out
    class_file = work / "data" / "dicobench_vlmevalkit.py"
    assert f"python {class_file} --data DiCoBench --model MODEL" in said
    assert f"DATA_ROOT = {str(work / 'data')!r}" in class_file.read_text()
    repo = Path(__file__).resolve().parents[2]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(kit), str(repo)]), "LMUData": str(tmp_path / "nowhere")}
    proc = subprocess.run([sys.executable, str(class_file), "--data", "DiCoBench", "--model", "stub"], cwd=kit,
                          env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    ran = json.loads(proc.stdout.strip().splitlines()[-1])
    assert ran["built"] == "DiCoBench" and ran["loaded_first"] == [] and ran["force"] is True
    assert ran["argv"] == ["--data", "DiCoBench", "--model", "stub"]
    assert [p["value"] for p in ran["first"] if p["type"] == "text"][:2] == ["Image 1:", "Image 2:"]
    assert (ran["n"], ran["accuracy"]) == (8, 1.0)  # the first row of each task, scored by this project's rules
    assert (kit / "stub_DiCoBench_scores.json").exists()
    plain = subprocess.run([sys.executable, "run.py", "--data", "DiCoBench", "--model", "stub"], cwd=kit, env=env,
                           capture_output=True, text=True, timeout=300)  # without it VLMEvalKit does not know it
    assert json.loads(plain.stdout.strip().splitlines()[-1]) == {"built": None}
    lost = subprocess.run([sys.executable, str(class_file), "--data", "DiCoBench"], cwd=tmp_path,
                          env={**env, "PYTHONPATH": str(repo)}, capture_output=True, text=True, timeout=300)
    assert lost.returncode == 2 and lost.stderr.strip().count("\n") == 0
    assert "cannot find VLMEvalKit's run.py" in lost.stderr
