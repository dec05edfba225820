"""Inspect: `inspect eval dicobench/dicobench` and `dicobench/multipanelvqa` run offline with the
real Inspect CLI and its OpenAI-compatible provider against the 127.0.0.1 stub; the images
arrive as the stored PNG bytes, in order, and the accuracy equals `score`'s on the same replies,
read back from the log by `import inspect`."""

import base64
import configparser
import json
import os
import shutil
import subprocess
import sys
from importlib.metadata import entry_points
from pathlib import Path

import datasets
import pytest
from openai_stub import StubServer, hashed_replies

from dicobench.cli.main import main as dicobench_cli
from dicobench.prompting import prompt
from multipanelvqa.cli.main import main as multipanelvqa_cli
from tests.kit.test_eval_cli import write_multipanel

inspect_ai = pytest.importorskip("inspect_ai")
from inspect_ai.log import EvalError, read_eval_log, write_eval_log  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
INSPECT = shutil.which("inspect", path=str(Path(sys.executable).parent)) or shutil.which("inspect")


def test_the_package_declares_its_inspect_entry_point():
    config = configparser.ConfigParser()
    config.read(ROOT / "setup.cfg")
    declared = config["options.entry_points"]["inspect_ai"].strip()
    assert declared == "dicobench = dicobench.harnesses.inspect_tasks"


@pytest.fixture
def installed(tmp_path):
    """The entry point as an editable install declares it, where the project is not installed."""
    if any(ep.name == "dicobench" for ep in entry_points(group="inspect_ai")):
        return None
    info = tmp_path / "site" / "dicobench-0.1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: dicobench\nVersion: 0.1.0\n")
    (info / "entry_points.txt").write_text("[inspect_ai]\ndicobench = dicobench.harnesses.inspect_tasks\n")
    (info / "direct_url.json").write_text(json.dumps({"url": ROOT.as_uri(), "dir_info": {"editable": True}}))
    return info.parent


def run_inspect(task: str, dataset: Path, stub: StubServer, tmp_path: Path, site: Path | None, *args: str):
    assert INSPECT, "the inspect CLI is not installed"
    empty = tmp_path / "tiktoken"  # nothing cached, no network: any download would fail the run
    empty.mkdir()
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "TIKTOKEN_CACHE_DIR": str(empty),
           "STUB_API_KEY": "sk-test", "STUB_BASE_URL": stub.base_url,
           # the checkout only where the project is not installed: an install (editable too) finds itself,
           # and the checkout's own egg-info ahead of it would hide the install's record from Inspect
           "PYTHONPATH": os.pathsep.join(str(p) for p in (site, ROOT) if site)}
    logs = tmp_path / "logs"
    proc = subprocess.run([INSPECT, "eval", task, "-T", f"dataset={dataset}", *args, "--model", "openai-api/stub/m",
                           "--log-dir", str(logs), "--display", "plain"],
                          env=env, cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-3000:]
    [log] = list(logs.glob("*.eval"))
    return log


def score_replies(path, cli, dataset, tmp_path, capsys, *score_args):
    """The log read back by `import inspect` and scored as the command it prints says."""
    predictions = tmp_path / "predictions.jsonl"
    assert cli(["import", "inspect", str(path), "--out", str(predictions)]) == 0
    printed = capsys.readouterr().out
    assert f" score {predictions} --dataset {dataset} " in printed
    assert "--model-id openai-api/stub/m" in printed
    assert cli(["score", str(predictions), "--dataset", str(dataset), "--out", str(tmp_path / "s"),
                *score_args]) in (0, 1)
    return json.loads((tmp_path / "s" / "scores.json").read_text())


def test_inspect_eval_dicobench_offline_against_the_stub(small_build, tmp_path, installed, capsys):
    rows = datasets.load_dataset(str(small_build), "all", split="test")
    with StubServer(hashed_replies({prompt(r)[1]: "ABCDE"[r["answer"]] for r in rows})) as stub:
        path = run_inspect("dicobench/dicobench", small_build, stub, tmp_path, installed)
    log = read_eval_log(str(path))
    raw = {r["id"]: r for r in rows.cast_column("image_a", datasets.Image(decode=False))
           .cast_column("image_b", datasets.Image(decode=False))}
    assert log.status == "success" and len(log.samples) == len(rows) == len(stub.requests)
    by_text = {prompt(row)[1]: row["id"] for row in rows}
    for request in stub.requests:
        content = request["body"]["messages"][0]["content"]
        assert [p["type"] for p in content] == ["text", "image_url", "text", "image_url", "text"]
        assert [content[0]["text"], content[2]["text"]] == ["Image 1:", "Image 2:"]
        stored = raw[by_text[content[4]["text"]]]
        for part, column in ((content[1], "image_a"), (content[3], "image_b")):
            url = part["image_url"]["url"]
            assert url.startswith("data:image/png;base64,")
            assert base64.b64decode(url.split(",", 1)[1]) == stored[column]["bytes"]  # the stored file, as is
    ours = score_replies(path, dicobench_cli, small_build, tmp_path, capsys)
    assert 0 < ours["accuracy"] < 1
    assert log.results.scores[0].metrics["accuracy"].value == pytest.approx(ours["accuracy"])
    # a log in Inspect's JSON format, one sample of which errored: that row is unscored, not wrong
    failed = log.samples[0].id
    log.samples[0].error = EvalError(message="the provider failed\nat line 2", traceback="", traceback_ansi="")
    write_eval_log(log, str(tmp_path / "edited.json"))
    again = score_replies(tmp_path / "edited.json", dicobench_cli, small_build, tmp_path, capsys)
    assert again["complete"] is False and again["unscored"] == 1
    line = next(json.loads(l) for l in (tmp_path / "predictions.jsonl").read_text().splitlines() if failed in l)
    assert line == {"id": failed, "response": None, "error": "the provider failed"}
    # another benchmark's import refuses the log
    capsys.readouterr()
    assert multipanelvqa_cli(["import", "inspect", str(path), "--out", str(tmp_path / "m.jsonl")]) == 2
    err = capsys.readouterr().err
    assert ("is a log of Inspect task 'dicobench/dicobench', not dicobench/multipanelvqa" in err
            and len(err.splitlines()) == 1)


def test_import_inspect_refuses_what_is_not_a_log(tmp_path, capsys):
    (tmp_path / "notes.json").write_text('{"hello": 1}')
    for path, message in ((tmp_path / "notes.json", "not an Inspect eval log"), (tmp_path / "gone.eval", "no such")):
        assert dicobench_cli(["import", "inspect", str(path), "--out", str(tmp_path / "p.jsonl")]) == 2
        err = capsys.readouterr().err
        assert message in err and len(err.splitlines()) == 1
    assert not (tmp_path / "p.jsonl").exists()


def test_inspect_eval_multipanelvqa_offline_against_the_stub(tmp_path, installed, capsys):
    root = tmp_path / "mpv"
    replies = write_multipanel(root)
    answers = dict(replies)
    answers[next(iter(answers))] = "Yes."  # Q1's answer is "no": one wrong

    def reply(body):
        return answers[body["messages"][0]["content"][-1]["text"].rsplit("\n", 1)[0]]

    with StubServer(reply) as stub:
        path = run_inspect("dicobench/multipanelvqa", root, stub, tmp_path, installed, "-T", "config=original")
    log = read_eval_log(str(path))
    assert all([p["type"] for p in r["body"]["messages"][0]["content"]] == ["image_url", "text"]
               for r in stub.requests)
    ours = score_replies(path, multipanelvqa_cli, root, tmp_path, capsys, "--config", "original")
    assert ours["accuracy"] == pytest.approx(2 / 3)
    assert log.results.scores[0].metrics["accuracy"].value == pytest.approx(ours["accuracy"])


def test_a_hub_repo_id_is_read_through_datasets(hub_repo):
    from inspect_ai.model import ContentImage, ContentText

    from dicobench.harnesses.inspect_tasks import dicobench

    task = dicobench(dataset="someone/dicobench", limit=2)
    assert "someone/dicobench" in hub_repo and len(task.dataset) == 2
    content = task.dataset[0].input[0].content
    assert [type(c) for c in content] == [ContentText, ContentImage, ContentText, ContentImage, ContentText]
    assert all(Path(c.image).read_bytes().startswith(b"\x89PNG") for c in content if isinstance(c, ContentImage))
