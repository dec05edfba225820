"""The last tracebacks and leaks of the command line: photo builds without OpenCV, a failed first
build that blocked the next, counts too large to plan, judge endpoints that are not http(s), and
secrets echoed in usage errors."""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
from pathlib import Path

import pytest
from PIL import Image

from dicobench.cli.main import main as dicobench
from dicobench.kit.errors import UserError
from multipanelvqa.cli.main import main as multipanelvqa

CLIS = {"dicobench": dicobench, "multipanelvqa": multipanelvqa}
ROOT = Path(__file__).resolve().parents[2]

# Runs a CLI in a fresh interpreter where `import cv2` fails as it does without the `edit` extra.
WITHOUT_CV2 = """
import sys
class NoOpenCV:
    def find_spec(self, name, path=None, target=None):
        if name == "cv2" or name.startswith("cv2."):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
sys.meta_path.insert(0, NoOpenCV())
sys.modules.pop("cv2", None)
from dicobench.cli.main import main
sys.exit(main(sys.argv[1:]))
"""


def _python(code: str, *args, limit_bytes: int | None = None, timeout: float = 120) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}

    def cap():  # a runaway plan fails here instead of taking the machine's memory
        if limit_bytes:
            resource.setrlimit(resource.RLIMIT_AS, (limit_bytes, limit_bytes))

    return subprocess.run([sys.executable, "-c", code, *map(str, args)], capture_output=True, text=True, env=env,
                          timeout=timeout, preexec_fn=cap)


def one_line(result: subprocess.CompletedProcess, cli: str, *needles) -> None:
    assert result.returncode == 2, (result.returncode, result.stderr[-2000:])
    err = result.stderr
    assert err.startswith(f"{cli}: error: ") and err.count("\n") == 1 and "Traceback" not in err, err
    for needle in needles:
        assert needle in err, err


def _photos(folder: Path, n: int = 3) -> Path:
    folder.mkdir()
    for i in range(n):
        Image.new("RGB", (1200, 900), (40 * i, 120, 200)).save(folder / f"p{i}.png")
    return folder


def test_a_photo_build_without_opencv_names_the_extra(tmp_path):
    photos = _photos(tmp_path / "photos")
    result = _python(WITHOUT_CV2, "build", "--out", tmp_path / "b", "--source", f"folder:{photos}", "--tasks",
                     "attribute", "--per-task", "1", "--num-proc", "1", "--quiet")
    one_line(result, "dicobench", "OpenCV", "pip install 'dicobench[edit]'")
    assert not (tmp_path / "b").exists()
    procedural = _python(WITHOUT_CV2, "build", "--out", tmp_path / "p", "--tasks", "attribute", "--per-task", "1",
                         "--difficulty", "easy", "--num-proc", "1", "--quiet")
    assert procedural.returncode == 0, procedural.stderr  # the scene engine needs no OpenCV


def test_a_failed_first_build_leaves_nothing_that_blocks_the_corrected_one(tmp_path, capsys):
    unreadable = tmp_path / "unreadable"
    unreadable.mkdir()
    for i in range(3):
        (unreadable / f"p{i}.jpg").write_bytes(os.urandom(4000))
    out = tmp_path / "b"
    assert dicobench(["build", "--out", str(out), "--source", f"folder:{unreadable}", "--tasks", "attribute",
                      "--per-task", "1", "--num-proc", "1", "--quiet"]) == 2
    assert "photo_unreadable" in capsys.readouterr().err
    assert not out.exists()
    # into a folder the user made: it stays, empty
    out.mkdir()
    assert dicobench(["build", "--out", str(out), "--source", f"folder:{unreadable}", "--tasks", "attribute",
                      "--per-task", "1", "--num-proc", "1", "--quiet"]) == 2
    assert out.is_dir() and list(out.iterdir()) == []
    capsys.readouterr()
    assert dicobench(["build", "--out", str(out), "--tasks", "attribute", "--per-task", "1", "--difficulty", "easy",
                      "--num-proc", "1", "--quiet"]) == 0, capsys.readouterr().err
    assert (out / "attribute" / "test-00000-of-00001.parquet").exists()


@pytest.mark.parametrize("cli,argv,needle", [
    ("dicobench", ["build", "--per-task", "1000000000"], "at most 1000000, because"),
    ("multipanelvqa", ["build", "--images", "1000000000"], "at most 100000, because"),
])
def test_a_count_too_large_to_plan_is_refused_at_once(cli, argv, needle, tmp_path):
    code = f"import sys; from {cli}.cli.main import main; sys.exit(main(sys.argv[1:]))"
    result = _python(code, *argv, "--out", tmp_path / "b", "--num-proc", "1", "--quiet", limit_bytes=3 << 30,
                     timeout=60)
    one_line(result, cli, argv[1] + " " + argv[2], needle)
    assert not (tmp_path / "b").exists()


@pytest.mark.parametrize("cli,argv", [
    ("dicobench", ["score", "p.jsonl", "--dataset", "d", "--judge", "openai:m", "--judge-base-url", "ftp://x"]),
    ("dicobench", ["eval", "--dataset", "d", "--model", "openai:m", "--out", "o", "--judge", "openai:m",
                   "--judge-base-url", "ftp://x"]),
    ("multipanelvqa", ["score", "p.jsonl", "--dataset", "d", "--judge", "openai:m", "--judge-base-url", "ftp://x"]),
    ("multipanelvqa", ["human", "d", "--judge", "openai:m", "--judge-base-url", "ftp://x"]),
])
def test_judge_endpoints_are_http_everywhere(cli, argv, capsys):
    with pytest.raises(SystemExit) as caught:
        CLIS[cli](argv)
    err = capsys.readouterr().err
    assert caught.value.code == 2 and "http:// or https://" in err and err.count("\n") == 1, err


def test_the_python_api_refuses_a_judge_endpoint_that_is_not_http():
    import evaluate

    import dicobench
    import multipanelvqa

    for package in (dicobench, multipanelvqa):  # the one Judge both benchmarks' scoring takes
        with pytest.raises(UserError, match="http:// or https://"):
            package.Judge.from_spec("openai:m", base_url="ftp://x", api_key="k")
    with pytest.raises(UserError, match="http:// or https://"):  # the metrics' keyword form builds the same Judge
        evaluate.load(dicobench.METRIC).compute(
            predictions=["A", "B"], references=["A", "A"], tasks=["attribute", "attribute"], options=[["x"] * 5] * 2,
            judge="openai:m", questions=["q", "q"], cue_labels=[[], []], judge_base_url="ftp://x", judge_api_key="k")
    with pytest.raises(UserError, match="http:// or https://"):
        evaluate.load(multipanelvqa.METRIC).compute(
            predictions=["red"], references=["blue"], questions=["What colour?"], question_types=["q2"],
            judge="openai:m", judge_base_url="ftp://x", judge_api_key="k")


SECRETS = ("sk-SECRETvalue123", "hf_SECRETtoken456", "s3cr3t-PASS789")


def _subcommands(parser: argparse.ArgumentParser, prefix=()):
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield (*prefix, name)
                yield from _subcommands(sub, (*prefix, name))


def _parser(cli, monkeypatch) -> argparse.ArgumentParser:
    captured = {}
    with monkeypatch.context() as m:
        m.setattr(argparse.ArgumentParser, "parse_args",
                  lambda self, argv=None: captured.setdefault("p", self) and sys.exit(0))
        with pytest.raises(SystemExit):
            CLIS[cli]([])
    return captured["p"]


@pytest.mark.parametrize("cli", CLIS)
def test_usage_errors_never_echo_a_secret(cli, monkeypatch, capsys):
    mistyped = ["--judge-api-key", SECRETS[0], f"--hub-token={SECRETS[1]}", "--client-secret", SECRETS[2]]
    checked = 0
    for path in _subcommands(_parser(cli, monkeypatch)):
        for argv in ([*path, *mistyped], [*path, "--api-key"], [*path, "--token", SECRETS[1], "extra"]):
            try:
                status = CLIS[cli](argv)
            except SystemExit as exc:
                status = exc.code
            err = capsys.readouterr().err
            assert status == 2 and err.count("\n") == 1, (argv, err)
            assert not any(s in err for s in SECRETS), (argv, err)
            checked += 1
    assert checked > 30


@pytest.mark.parametrize("cli,argv", [  # complete commands, so that argparse gets as far as the mistyped option
    ("multipanelvqa", ["eval", "--dataset", "d", "--model", "openai:m", "--out", "o", "--grader-api-key", SECRETS[0]]),
    ("dicobench", ["score", "p.jsonl", "--dataset", "d", "--api-key=" + SECRETS[0]]),
    ("dicobench", ["push", "d", "--repo-id", "a/b", "--token", SECRETS[1], "--secret-token", SECRETS[2]]),
    ("dicobench", ["eval", "--dataset", "d", "--model", "openai:m", "--out", "o", "--api-key", SECRETS[0],
                   "--judge-token", SECRETS[1]]),
])
def test_unrecognized_arguments_are_named_but_secret_values_redacted(cli, argv, capsys):
    with pytest.raises(SystemExit) as caught:
        CLIS[cli](argv)
    err = capsys.readouterr().err
    assert caught.value.code == 2 and "unrecognized arguments" in err and err.count("\n") == 1, err
    assert not any(s in err for s in SECRETS), err
    assert "***" in err
