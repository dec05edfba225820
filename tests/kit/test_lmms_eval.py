"""`export lmms-eval` / `import lmms-eval`: the task folder, its callbacks, and the real lmms-eval
CLI run end to end with its `openai` model against the 127.0.0.1 stub; its accuracy must equal
`score` on the imported samples.

lmms-eval is found as $LMMS_EVAL (the executable; .ci/run installs it in a fresh venv by the recipe of
docs/guides/harnesses.md: torch, `dicobench[lmms-eval]`, `pip install --no-deps lmms-eval==0.7.3`) or
`lmms-eval` on PATH; the end-to-end tests are skipped only where neither exists.
"""

import base64
import io
import json
import math
import os
import shutil
import subprocess
import sys
from pathlib import Path

import datasets
import numpy as np
import pytest
import yaml
from openai_stub import StubServer, hashed_replies
from PIL import Image

from dicobench.cli.main import main as dicobench
from dicobench.harnesses.lmms_eval_task import doc_to_messages, doc_to_target, doc_to_text, process_results
from dicobench.kit.eval.extract import extract_choice
from dicobench.prompting import prompt
from multipanelvqa.cli.main import main as multipanelvqa
from tests.kit.test_eval_cli import write_multipanel

LMMS_EVAL = os.environ.get("LMMS_EVAL") or shutil.which("lmms-eval")
needs_lmms_eval = pytest.mark.skipif(LMMS_EVAL is None, reason="lmms-eval is not installed (set LMMS_EVAL)")


class Loader(yaml.SafeLoader):
    pass


Loader.add_constructor("!function", lambda loader, node: ("function", loader.construct_scalar(node)))


def load_yaml(path):
    return yaml.load(path.read_text(), Loader=Loader)


def test_the_task_folder_has_a_task_per_config_and_a_group(small_build, tmp_path):
    out = tmp_path / "tasks"
    assert dicobench(["export", "lmms-eval", "--dataset", str(small_build), "--out", str(out)]) == 0
    configs = [c for c in datasets.get_dataset_config_names(str(small_build)) if c != "all"]
    group = load_yaml(out / "_dicobench.yaml")
    assert group["group"] == "dicobench" and group["task"] == [f"dicobench_{c}" for c in configs]
    assert group["aggregate_metric_list"] == [{"metric": "accuracy", "aggregation": "mean", "weight_by_size": True}]
    task = load_yaml(out / "dicobench_attribute.yaml")
    assert task["dataset_path"] == str(small_build) and task["dataset_name"] == "attribute"
    assert task["doc_to_messages"] == ("function", "utils.doc_to_messages")
    assert task["metric_list"] == [{"metric": "accuracy", "aggregation": "mean", "higher_is_better": True}]
    assert task["lmms_eval_specific_kwargs"] == {"default": {
        "pre_prompt": "", "post_prompt": "Answer with the option's letter from the given choices directly."}}
    utils = (out / "utils.py").read_text()
    assert "import dicobench" not in utils and "from dicobench.kit" not in utils and "def extract_choice" in utils


BLOCKER = """
import sys

class Blocked:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ("dicobench", "multipanelvqa"):
            raise ImportError(f"{name} is not installed in this environment")

sys.meta_path.insert(0, Blocked())
"""


def blocked_env(tmp_path: Path) -> dict:
    """An environment whose Python cannot import this project (a sitecustomize refuses it), as in an
    lmms-eval environment without the package."""
    site = tmp_path / "blocked_site"
    site.mkdir(exist_ok=True)
    (site / "sitecustomize.py").write_text(BLOCKER)
    return {**os.environ, "PYTHONPATH": str(site)}


def test_the_exported_utils_stand_alone_and_read_answers_as_score_does(small_build, tmp_path):
    out = tmp_path / "tasks"
    assert dicobench(["export", "lmms-eval", "--dataset", str(small_build), "--out", str(out)]) == 0
    rows = datasets.load_dataset(str(small_build), "all", split="test")
    docs = [{"question": r["question"], "options": r["options"], "answer": r["answer"]} for r in rows]
    replies = ["B", "The answer is (C).", "Answer: E", "I cannot tell.", "A or B", "<answer>d</answer>",
               "Image A shows a cup. D", "**E**"]
    script = (f"import importlib.util, json, sys\n"
              f"spec = importlib.util.spec_from_file_location('utils', {str(out / 'utils.py')!r})\n"
              "utils = importlib.util.module_from_spec(spec); spec.loader.exec_module(utils)\n"
              "docs, replies = json.load(sys.stdin)\n"
              "print(json.dumps([[utils.doc_to_text(d), [utils.process_results(d, [r])['accuracy'] for r in replies],"
              " [utils.extract_choice(r, d['options']) for r in replies]] for d in docs]))\n"
              "try:\n    import dicobench\nexcept ImportError:\n    print('blocked')\n")
    proc = subprocess.run([sys.executable, "-c", script], input=json.dumps([docs, replies]), capture_output=True,
                          text=True, env=blocked_env(tmp_path), cwd=tmp_path, timeout=120)
    assert proc.returncode == 0, proc.stderr
    found, blocked = proc.stdout.splitlines()
    assert blocked == "blocked"  # the package could not be imported there, and the callbacks ran
    for row, (text, accuracy, read) in zip(rows, json.loads(found)):
        assert text == prompt(row)[1] == doc_to_text(row)
        assert read == [extract_choice(r, row["options"]) for r in replies]
        assert accuracy == [float(x == "ABCDE"[row["answer"]]) for x in read]
    assert sum(map(sum, (a for _, a, _ in json.loads(found)))) > 0  # some right, so the comparison can fail


@pytest.mark.parametrize("name", ["dicobench", "dicobench_entity"])
def test_a_folder_that_would_shadow_a_task_is_refused(small_build, tmp_path, capsys, monkeypatch, name):
    """lmms-eval reads `--tasks dicobench` run beside a folder `dicobench` as that folder, crashes and exits 0."""
    monkeypatch.chdir(tmp_path)
    assert dicobench(["export", "lmms-eval", "--dataset", str(small_build), "--out", name]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "would shadow the task of that name" in err and "dicobench_tasks" in err
    assert not (tmp_path / name).exists()
    assert dicobench(["export", "lmms-eval", "--dataset", str(small_build), "--out", "dicobench_tasks"]) == 0


def test_a_hub_repo_id_is_written_as_the_dataset_path(tmp_path, monkeypatch):
    asked = []

    def config_names(path, **kwargs):  # the Hub's answer for a repo (no network in tests)
        asked.append(path)
        return ["all", "attribute", "entity"]

    monkeypatch.setattr(datasets, "get_dataset_config_names", config_names)
    out = tmp_path / "tasks"
    assert dicobench(["export", "lmms-eval", "--dataset", "someone/dicobench", "--out", str(out)]) == 0
    assert asked == ["someone/dicobench"]
    assert sorted(p.name for p in out.glob("dicobench_*.yaml")) == ["dicobench_attribute.yaml",
                                                                    "dicobench_entity.yaml"]
    assert load_yaml(out / "dicobench_entity.yaml")["dataset_path"] == "someone/dicobench"


def test_callbacks_ask_the_project_prompt_and_score_like_score(small_build):
    row = datasets.load_dataset(str(small_build), "all", split="test[:1]")[0]
    images, text = prompt(row)
    [message] = doc_to_messages(row)
    content = message["content"]
    assert [c["type"] for c in content] == ["text", "image", "text", "image", "text"]
    assert [content[0]["text"], content[2]["text"], content[4]["text"]] == ["Image 1:", "Image 2:", text]
    assert content[1]["url"] is images[0] and content[3]["url"] is images[1]
    no_images = {k: v for k, v in row.items() if k not in ("image_a", "image_b")}
    assert doc_to_text(no_images) == text  # lmms-eval also calls it on rows read without images
    letter = doc_to_target(row)
    assert process_results(row, [f"The correct answer is ({letter})."]) == {"accuracy": 1.0}
    assert process_results(row, ["I am not sure."]) == {"accuracy": 0.0}


def test_multipanelvqa_aggregate_is_not_a_number_while_the_judge_left_rows_unanswered():
    from multipanelvqa.harnesses.lmms_eval_task import aggregate_accuracy

    assert aggregate_accuracy([True, False, True, True]) == 0.75
    assert math.isnan(aggregate_accuracy([True, None, True, True]))  # not 1.0: an incomplete result
    assert math.isnan(aggregate_accuracy([]))


def run_lmms_eval(tasks: Path, task: str, stub: StubServer, results: Path, cwd: Path, *extra: str) -> dict:
    """lmms-eval's CLI in an environment that cannot import this project: the task folder alone."""
    env = {**blocked_env(cwd), "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "LMMS_IMAGE_ENCODE_FORMAT": "PNG"}
    proc = subprocess.run([LMMS_EVAL, "eval", "--model", "openai", "--model_args",
                           f"model_version=stub,base_url={stub.base_url},api_key=sk-test",
                           "--include_path", str(tasks),
                           "--tasks", task, "--log_samples", "--output_path", str(results), *extra],
                          env=env, cwd=cwd, capture_output=True, text=True, timeout=600)
    found = sorted(results.rglob("*_results.json"))
    assert found, f"lmms-eval wrote no results (it exits {proc.returncode} either way):\n{proc.stderr[-3000:]}"
    return json.loads(found[-1].read_text())


def sent_image(part: dict) -> Image.Image:
    url = part["image_url"]["url"]
    assert url.startswith("data:image/png;base64,")
    return Image.open(io.BytesIO(base64.b64decode(url.split(",", 1)[1])))


@needs_lmms_eval
def test_lmms_eval_lists_the_exported_tasks(small_build, tmp_path):
    """lmms-eval's own task manager loads the folder: every task and the group, by name."""
    tasks = tmp_path / "tasks"
    assert dicobench(["export", "lmms-eval", "--dataset", str(small_build), "--out", str(tasks)]) == 0
    proc = subprocess.run([LMMS_EVAL, "tasks", "list", "--include-path", str(tasks)], env=blocked_env(tmp_path),
                          capture_output=True, text=True, timeout=600)
    listed = set(proc.stdout.split())
    configs = [c for c in datasets.get_dataset_config_names(str(small_build)) if c != "all"]
    assert {"dicobench", *(f"dicobench_{c}" for c in configs)} <= listed, proc.stderr[-3000:]


@needs_lmms_eval
def test_lmms_eval_smoke_run_with_limit_is_scored_as_partial(small_build, tmp_path, monkeypatch):
    """`lmms-eval --limit 1` -> `import lmms-eval` -> `score --allow-partial` or `--limit 1`: bounds over the split."""
    shutil.copytree(small_build, tmp_path / "bench")
    monkeypatch.chdir(tmp_path)  # the dataset by a relative path, as a task folder beside a build names it
    assert dicobench(["export", "lmms-eval", "--dataset", "bench", "--out", "tasks"]) == 0
    assert load_yaml(tmp_path / "tasks" / "dicobench_entity.yaml")["dataset_path"] == "bench"
    with StubServer(lambda body: "The answer is (A).") as stub:
        run_lmms_eval(tmp_path / "tasks", "dicobench", stub, tmp_path / "results", tmp_path, "--limit", "1")
    rows = datasets.load_dataset("bench", "all", split="test")
    configs = [c for c in datasets.get_dataset_config_names("bench") if c != "all"]
    assert len(stub.requests) == len(configs)  # one row per task
    samples = sorted(str(p) for p in (tmp_path / "results").rglob("*_samples_*.jsonl"))
    assert dicobench(["import", "lmms-eval", *samples, "--dataset", "bench", "--out", "p.jsonl"]) == 0
    assert dicobench(["score", "p.jsonl", "--dataset", "bench", "--out", "s"]) == 2  # refused without the flag
    assert dicobench(["score", "p.jsonl", "--dataset", "bench", "--out", "s", "--allow-partial"]) == 1
    scores = json.loads((tmp_path / "s" / "scores.json").read_text())
    answered = [r for r in rows if r["id"] in {json.loads(line)["id"] for line in open("p.jsonl")}]
    right = sum(r["answer"] == 0 for r in answered)
    assert scores["complete"] is False and scores["n"] == len(rows) and scores["missing"] == len(rows) - len(configs)
    assert scores["accuracy_lower"] == pytest.approx(right / len(rows))
    assert scores["accuracy_upper"] == pytest.approx((right + len(rows) - len(configs)) / len(rows))
    # --limit 1 means what lmms-eval's does (the first row of each task): the same bounds, the rows checked
    assert dicobench(["score", "p.jsonl", "--dataset", "bench", "--out", "s1", "--limit", "1"]) == 1
    limited = json.loads((tmp_path / "s1" / "scores.json").read_text())
    assert (limited["limit"], limited["accuracy_lower"]) == (1, scores["accuracy_lower"])


@needs_lmms_eval
def test_lmms_eval_end_to_end_matches_score(small_build, tmp_path):
    tasks = tmp_path / "tasks"
    assert dicobench(["export", "lmms-eval", "--dataset", str(small_build), "--out", str(tasks)]) == 0
    rows = datasets.load_dataset(str(small_build), "all", split="test")
    with StubServer(hashed_replies({prompt(r)[1]: "ABCDE"[r["answer"]] for r in rows})) as stub:
        report = run_lmms_eval(tasks, "dicobench", stub, tmp_path / "results", tmp_path)
    assert len(stub.requests) == len(rows)
    by_text = {prompt(r)[1]: r for r in rows}
    for request in stub.requests:  # our prompt, both images in order, lossless
        content = request["body"]["messages"][0]["content"]
        assert [p["type"] for p in content] == ["text", "image_url", "text", "image_url", "text"]
        assert [content[0]["text"], content[2]["text"]] == ["Image 1:", "Image 2:"]
        row = by_text[content[4]["text"]]
        for part, original in ((content[1], row["image_a"]), (content[3], row["image_b"])):
            assert np.array_equal(np.asarray(sent_image(part).convert("RGB")), np.asarray(original.convert("RGB")))

    predictions = tmp_path / "predictions.jsonl"
    samples = sorted(str(p) for p in (tmp_path / "results").rglob("*_samples_*.jsonl"))
    assert dicobench(["import", "lmms-eval", *samples, "--dataset", str(small_build), "--out", str(predictions)]) == 0
    assert dicobench(["score", str(predictions), "--dataset", str(small_build), "--out", str(tmp_path / "s")]) == 0
    ours = json.loads((tmp_path / "s" / "scores.json").read_text())
    assert ours["n"] == len(rows) and 0 < ours["accuracy"] < 1  # a mix, so the equality below means something
    assert report["results"]["dicobench"]["accuracy,none"] == pytest.approx(ours["accuracy"])
    for task, group in ours["per_task"].items():
        assert report["results"][f"dicobench_{task}"]["accuracy,none"] == pytest.approx(group["accuracy"])

    other = tmp_path / "other"  # samples checked against the rows they claim to answer
    shutil.copytree(small_build, other)
    first = Path(samples[0])
    line = json.loads(first.read_text().splitlines()[0])
    line["doc_id"] = (line["doc_id"] + 1) % 2
    bad = tmp_path / first.name
    bad.write_text(json.dumps(line) + "\n")
    assert dicobench(["import", "lmms-eval", str(bad), "--dataset", str(other), "--out",
                      str(tmp_path / "x.jsonl")]) == 2


@needs_lmms_eval
def test_lmms_eval_multipanelvqa_end_to_end_matches_score_with_a_judge(tmp_path, monkeypatch):
    root = tmp_path / "mpv"
    replies = write_multipanel(root)
    tasks = tmp_path / "tasks"
    assert multipanelvqa(["export", "lmms-eval", "--dataset", str(root), "--out", str(tasks)]) == 0
    assert load_yaml(tasks / "multipanelvqa_original.yaml")["metric_list"][0]["aggregation"] == \
        ("function", "utils.aggregate_accuracy")
    answers = list(replies.values())
    answers[1] = "Crimson, a kind of red."  # the rules cannot settle it: the judge does
    answers[2] = "The answer is (a)."  # wrong

    def reply(body):
        content = body["messages"][0]["content"]
        if isinstance(content, str):  # a judge request: text only
            return "yes"
        return answers[list(replies).index(content[-1]["text"].rsplit("\n", 1)[0])]

    with StubServer(reply) as stub:
        monkeypatch.setenv("MULTIPANELVQA_JUDGE", "openai:judge")
        monkeypatch.setenv("MULTIPANELVQA_JUDGE_BASE_URL", stub.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
        report = run_lmms_eval(tasks, "multipanelvqa", stub, tmp_path / "results", tmp_path)
        model_requests = [r for r in stub.requests if not isinstance(r["body"]["messages"][0]["content"], str)]
        assert len(model_requests) == 3 and len(stub.requests) == 4  # one judged answer
        assert all([p["type"] for p in r["body"]["messages"][0]["content"]] == ["image_url", "text"]
                   for r in model_requests)
        samples = sorted(str(p) for p in (tmp_path / "results").rglob("*_samples_*.jsonl"))
        predictions = tmp_path / "predictions.jsonl"
        assert multipanelvqa(["import", "lmms-eval", *samples, "--dataset", str(root),
                              "--out", str(predictions)]) == 0
        assert multipanelvqa(["score", str(predictions), "--dataset", str(root), "--out", str(tmp_path / "s"),
                              "--judge", "openai:judge", "--judge-base-url", stub.base_url]) == 0
    ours = json.loads((tmp_path / "s" / "scores.json").read_text())
    assert ours["accuracy"] == pytest.approx(2 / 3)
    assert report["results"]["multipanelvqa"]["accuracy,none"] == pytest.approx(ours["accuracy"])
