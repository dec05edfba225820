"""The `evaluate` modules ship inside the package: they load from any directory, from a
non-editable install in a fresh environment, and from a Hub metric repository laid out by
`publish-metric` (served here from a folder over loopback, as the Hub serves Spaces)."""

import functools
import http.server
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import threading
from pathlib import Path

import evaluate
import huggingface_hub.hf_api
import pytest
import yaml
from huggingface_hub import CommitOperationAdd, HfApi
from huggingface_hub.hf_api import RepoUrl

import dicobench
import multipanelvqa
from dicobench.cli.main import main as dicobench_cli
from dicobench.kit.release import metric_modules
from dicobench.scoring import score

PREDS, REFS = ["The answer is (B).", "E", "no idea"], ["B", "A", "C"]
CHECKOUT = Path(__file__).resolve().parents[2]


class FakeSpaces(HfApi):
    """`HfApi` with the network calls replaced by a folder per repo; the real `upload_folder`
    picks the files and commits through `create_commit` (hf_xet off in the fixture)."""

    root: Path
    calls: list

    def create_repo(self, repo_id, *, repo_type=None, space_sdk=None, private=False, exist_ok=False, **kwargs):
        self.calls.append(("create_repo", repo_id, repo_type, space_sdk, private))
        (self.root / repo_id).mkdir(parents=True, exist_ok=True)
        return RepoUrl(f"https://huggingface.co/spaces/{repo_id}")

    def _validate_yaml(self, content, *, repo_type=None, token=None):
        assert yaml.safe_load(content.split("---")[1])

    def create_commit(self, repo_id, operations, *, commit_message, repo_type=None, **kwargs):
        self.calls.append(("commit", repo_id, repo_type, commit_message))
        for op in operations:
            assert isinstance(op, CommitOperationAdd)
            (self.root / repo_id / op.path_in_repo).write_bytes(Path(op.path_or_fileobj).read_bytes())


@pytest.fixture
def spaces(tmp_path, monkeypatch):
    monkeypatch.setattr(FakeSpaces, "root", tmp_path / "spaces", raising=False)
    monkeypatch.setattr(FakeSpaces, "calls", [], raising=False)
    monkeypatch.setattr(metric_modules, "HfApi", FakeSpaces)
    monkeypatch.setattr(huggingface_hub.hf_api, "is_xet_available", lambda: False)
    return FakeSpaces


class HubFiles(http.server.SimpleHTTPRequestHandler):
    """`/spaces/ORG/NAME/resolve/main/FILE` -> ROOT/ORG/NAME/FILE; other revisions are 404, as
    on a Space without release tags."""

    def translate_path(self, path):
        parts = path.split("?")[0].strip("/").split("/")
        if len(parts) == 6 and parts[0] == "spaces" and parts[3] == "resolve" and parts[4] == "main":
            return str(Path(self.directory, parts[1], parts[2], parts[5]))
        return str(Path(self.directory, "missing"))

    def log_message(self, *args):
        pass


def test_modules_load_from_any_directory(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    metric = evaluate.load(dicobench.METRIC)
    assert metric.compute(predictions=PREDS, references=REFS) == score(PREDS, REFS)
    assert Path(multipanelvqa.METRIC, "multipanelvqa_accuracy.py").is_file()
    # the checkout's metrics/ folder is the single source of the shipped modules
    for name in metric_modules.NAMES:
        assert Path(metric_modules.module_path(name)).resolve() == (CHECKOUT / "metrics" / name).resolve()


def test_publish_lays_out_a_metric_repo_that_evaluate_loads_from_the_hub(spaces, tmp_path, monkeypatch, capsys):
    assert dicobench_cli(["publish-metric", "--repo-id", "org/dicobench_accuracy", "--private"]) == 0
    assert capsys.readouterr().out.strip() == "https://huggingface.co/spaces/org/dicobench_accuracy"
    assert ("create_repo", "org/dicobench_accuracy", "space", "gradio", True) in spaces.calls
    repo = spaces.root / "org/dicobench_accuracy"
    assert sorted(p.name for p in repo.iterdir()) == ["README.md", "app.py", "dicobench_accuracy.py",
                                                      "requirements.txt"]
    header = yaml.safe_load((repo / "README.md").read_text().split("---")[1])
    assert header["sdk"] == "gradio" and header["app_file"] == "app.py" and "metric" in header["tags"]
    assert 'evaluate.load("org/dicobench_accuracy")' in (repo / "app.py").read_text()
    assert 'evaluate.load("org/dicobench_accuracy")' in (repo / "README.md").read_text()
    # the Space installs this release by its exact version, which a Space can install once it is published
    assert (repo / "requirements.txt").read_text() == f"evaluate\ndicobench=={dicobench.__version__}\n"

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0),
                                             functools.partial(HubFiles, directory=str(spaces.root)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        monkeypatch.setattr(evaluate.config, "HUB_EVALUATE_URL",
                            f"http://127.0.0.1:{server.server_port}/spaces/{{path}}/resolve/{{revision}}/{{name}}")
        metric = evaluate.load("org/dicobench_accuracy", cache_dir=str(tmp_path / "cache"))
    finally:
        server.shutdown()
    assert metric.compute(predictions=PREDS, references=REFS) == score(PREDS, REFS)


def test_publish_dry_run_and_bad_repo_ids(spaces, capsys):
    assert dicobench_cli(["publish-metric", "--repo-id", "org/dicobench_accuracy", "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("dry run: would upload to the Space org/dicobench_accuracy") and "app.py" in out
    assert dicobench_cli(["publish-metric", "--repo-id", "org/dicobench_accuracy", "--dry-run", "--requirement",
                          "dicobench @ git+https://example.invalid/dicobench@v0"]) == 0
    capsys.readouterr()
    with tempfile.TemporaryDirectory() as tmp:
        metric_modules.stage("dicobench_accuracy", "org/dicobench_accuracy", Path(tmp),
                             "dicobench @ git+https://example.invalid/dicobench@v0")
        assert Path(tmp, "requirements.txt").read_text().splitlines()[1] == "dicobench @ git+https://example.invalid/dicobench@v0"
    for bad in ("org/dicobench-accuracy", "no_org", "a b/c"):
        assert dicobench_cli(["publish-metric", "--repo-id", bad]) == 2
        assert capsys.readouterr().err.startswith("dicobench: error:")
    assert spaces.calls == []


@pytest.mark.slow
def test_a_non_editable_install_in_a_fresh_environment_loads_the_modules(tmp_path):
    """`pip install --no-deps` of the project into a new virtual environment that sees this one's
    dependencies (a .pth file), then `evaluate.load(dicobench.METRIC)` run outside the checkout."""
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    site = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          capture_output=True, text=True, check=True).stdout.strip()
    Path(site, "dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    source = tmp_path / "source"  # a copy: building writes build/ and *.egg-info beside setup.cfg
    shutil.copytree(CHECKOUT, source, symlinks=True,
                    ignore=shutil.ignore_patterns(".git", "tests", "build", "*.egg-info", "__pycache__", ".venv*"))
    subprocess.run([str(python), "-m", "pip", "install", "-q", "--no-deps", "--no-build-isolation",
                    "--no-index", str(source)], check=True, env=env, cwd=tmp_path, capture_output=True)
    shutil.rmtree(source)  # nothing of the checkout is left to import from
    code = ("import dicobench, evaluate, multipanelvqa; "
            f"m = evaluate.load(dicobench.METRIC); print(dicobench.__file__); "
            f"print(m.compute(predictions={PREDS!r}, references={REFS!r})['accuracy']); "
            "print(evaluate.load(multipanelvqa.METRIC).compute(predictions=['yes'], references=['yes'], "
            "questions=['Is there a cat?'], question_types=['q1'])['accuracy'])")
    out = subprocess.run([str(python), "-c", code], capture_output=True, text=True, env=env, cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    where, accuracy, mpv_accuracy = out.stdout.split()
    assert Path(where).is_relative_to(venv) and float(accuracy) == score(PREDS, REFS)["accuracy"]
    assert float(mpv_accuracy) == 1.0
