"""`push` against a fake Hub: a repo is a folder, a commit applies its operations to it."""

from __future__ import annotations

from pathlib import Path

import datasets
import httpx2  # the HTTP client huggingface_hub 2.x raises errors with
import huggingface_hub.hf_api
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import yaml
from huggingface_hub import CommitOperationAdd, CommitOperationDelete, HfApi
from huggingface_hub.errors import HfHubHTTPError
from huggingface_hub.hf_api import RepoUrl
from PIL import Image

from dicobench.kit.cli import push as push_cli
from dicobench.kit.cli.commands import run
from dicobench.kit.errors import UserError
from dicobench.kit.release import hub
from dicobench.schema import TASKS as ALL_TASKS
from dicobench.schema import features

TOKEN = "hf_FAKEtoken0123456789abcdef"
TASKS = ("attribute", "instance")


class FakeHfApi(HfApi):
    """Stands in for `huggingface_hub.HfApi` where `dicobench.kit.release.hub` uses it (as `datasets`' own
    push tests do): repos live under `root`, and every call is recorded for the assertions.
    Only the calls that reach the network are replaced: the real `upload_folder` chooses the
    files and deletions, then commits through `create_commit` (hf_xet's streamed upload is
    switched off in the fixture, so that one commit applies them)."""

    root: Path
    calls: list

    def __init__(self, token=None):
        super().__init__(token=token)
        self.calls.append(("init", token))

    def _validate_yaml(self, content, *, repo_type=None, token=None):
        assert yaml.safe_load(content.split("---")[1]) is not None  # the Hub checks the card's YAML

    def _repo(self, repo_id, repo_type):
        assert repo_type == "dataset"
        return self.root / repo_id

    def create_repo(self, repo_id, *, repo_type=None, private=None, exist_ok=False, token=None):
        repo = self._repo(repo_id, repo_type)
        assert exist_ok or not repo.exists()
        repo.mkdir(parents=True, exist_ok=True)
        (repo / ".gitattributes").write_text("*.parquet filter=lfs diff=lfs merge=lfs -text\n")
        self.calls.append(("create_repo", repo_id, private))
        return RepoUrl(f"https://huggingface.co/datasets/{repo_id}")

    def create_branch(self, repo_id, *, branch, revision=None, token=None, repo_type=None, exist_ok=False):
        self.calls.append(("create_branch", branch, exist_ok))

    def list_repo_files(self, repo_id, *, repo_type=None, revision=None, token=None):
        repo = self._repo(repo_id, repo_type)
        return sorted(p.relative_to(repo).as_posix() for p in repo.rglob("*") if p.is_file())

    def create_commit(self, repo_id, operations, *, commit_message, repo_type=None, revision=None, **kwargs):
        repo = self._repo(repo_id, repo_type)
        operations = list(operations)
        self.calls.append(("commit", commit_message, operations))
        if revision == "denied":
            request = httpx2.Request("POST", f"https://huggingface.co/api/datasets/{repo_id}/commit/{revision}")
            raise HfHubHTTPError("403 Forbidden", response=httpx2.Response(403, request=request))
        self.calls.append(("committed to", revision))
        for op in operations:
            target = repo / op.path_in_repo
            if isinstance(op, CommitOperationDelete):
                target.unlink()
            else:
                assert isinstance(op, CommitOperationAdd)
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(Path(op.path_or_fileobj).read_bytes())


@pytest.fixture
def fake_hub(tmp_path, monkeypatch):
    monkeypatch.setattr(FakeHfApi, "root", tmp_path / "hub", raising=False)
    monkeypatch.setattr(FakeHfApi, "calls", [], raising=False)
    monkeypatch.setattr(hub, "HfApi", FakeHfApi)
    monkeypatch.setattr(huggingface_hub.hf_api, "is_xet_available", lambda: False)
    monkeypatch.delenv("HF_TOKEN", raising=False)
    return FakeHfApi


def write_card(out: Path, splits, title: str = "Fixture card") -> None:
    lines = ["---", "license: cc-by-4.0", "configs:"]
    for config in (*TASKS, "all"):
        folders = TASKS if config == "all" else (config,)
        lines += [f"- config_name: {config}"] + (["  default: true"] if config == "all" else []) + ["  data_files:"]
        for split in splits:
            lines += [f"  - split: {split}", "    path:"] + [f"    - {f}/{split}-*.parquet" for f in folders]
    (out / "README.md").write_text("\n".join(lines + ["---", f"# {title}", ""]))


def write_split(out: Path, split: str, tag: str, shards: int) -> None:
    """`shards` Parquet files per task for `split`, ids prefixed with `tag` to tell builds apart."""
    feats = features()
    for task in TASKS:
        folder = out / task
        folder.mkdir(parents=True, exist_ok=True)
        for old in folder.glob(f"{split}-*.parquet"):
            old.unlink()
        for i in range(shards):
            row = {
                "id": f"{tag}-{task}-{i}", "track": "difference" if task == "attribute" else "commonality",
                "task": task, "image_a": Image.new("RGB", (8, 6), "red"), "image_b": Image.new("RGB", (8, 6), "blue"),
                "question": "q", "options": ["a", "b", "c", "d", "e"], "answer": "A", "cues": [],
                "changed_area": 0.01, "source": "procedural:0", "seed": i, "generator": "test",
            }
            table = pa.Table.from_pylist([feats.encode_example(row)], schema=feats.arrow_schema)
            pq.write_table(table, folder / f"{split}-{i:05d}-of-{shards:05d}.parquet")


@pytest.fixture
def built(tmp_path):
    out = tmp_path / "built"
    out.mkdir()
    write_card(out, ("test", "train"))
    write_split(out, "test", "v1", shards=3)
    write_split(out, "train", "v1", shards=2)
    return out


def load_ids(folder: Path, config: str, split: str, cache: Path) -> list[str]:
    return datasets.load_dataset(str(folder), config, split=split, cache_dir=str(cache))["id"]


def test_full_push_then_split_push_replaces_only_that_split(fake_hub, built, tmp_path):
    url = hub.push_folder(built, "org/bench", token=TOKEN, private=True)
    assert url == "https://huggingface.co/datasets/org/bench"
    repo = fake_hub.root / "org/bench"
    assert sorted(p.name for p in (repo / "attribute").iterdir()) == [
        "test-00000-of-00003.parquet", "test-00001-of-00003.parquet", "test-00002-of-00003.parquet",
        "train-00000-of-00002.parquet", "train-00001-of-00002.parquet",
    ]
    assert ("create_repo", "org/bench", True) in fake_hub.calls

    # Rebuild only `test`, now with one shard per task; the local folder no longer has `train`.
    for old in built.glob("*/train-*.parquet"):
        old.unlink()
    write_split(built, "test", "v2", shards=1)
    write_card(built, ("test", "train"), title="Rebuilt test split")
    hub.push_folder(built, "org/bench", token=TOKEN, split="test")
    assert (repo / "README.md").read_text() == (built / "README.md").read_text()

    commits = [c for c in fake_hub.calls if c[0] == "commit"]
    assert len(commits) == 2 and commits[1][1] == "Update split test"
    deleted = sorted(op.path_in_repo for op in commits[1][2] if isinstance(op, CommitOperationDelete))
    assert deleted == [f"{t}/test-0000{i}-of-00003.parquet" for t in TASKS for i in range(3)]
    assert sorted(p.name for p in (repo / "instance").iterdir()) == [
        "test-00000-of-00001.parquet", "train-00000-of-00002.parquet", "train-00001-of-00002.parquet",
    ]
    assert (repo / ".gitattributes").exists()

    cache = tmp_path / "cache"
    assert load_ids(repo, "all", "test", cache) == ["v2-attribute-0", "v2-instance-0"]
    assert sorted(load_ids(repo, "attribute", "train", cache)) == ["v1-attribute-0", "v1-attribute-1"]
    pushed = datasets.load_dataset(str(repo), "instance", split="test", cache_dir=str(cache))[0]
    assert isinstance(pushed["image_b"], Image.Image) and pushed["image_b"].size == (8, 6)
    assert pushed["task"] == ALL_TASKS.index("instance")

    assert [c[1] for c in fake_hub.calls if c[0] == "init"] == [TOKEN, TOKEN]
    for folder in (repo, built):
        for path in folder.rglob("*"):
            assert not path.is_file() or TOKEN.encode() not in path.read_bytes(), path


def test_full_push_deletes_stale_shards(fake_hub, built):
    hub.push_folder(built, "org/bench")
    write_split(built, "train", "v2", shards=1)
    hub.push_folder(built, "org/bench")
    repo = fake_hub.root / "org/bench"
    assert sorted(p.name for p in (repo / "attribute").glob("train-*")) == ["train-00000-of-00001.parquet"]
    assert [c[1] for c in fake_hub.calls if c[0] == "init"] == [None, None]  # huggingface_hub reads HF_TOKEN


def test_split_push_refuses_a_card_whose_other_split_is_missing_remotely(fake_hub, built):
    with pytest.raises(UserError, match="split 'train'.*would match no file"):
        hub.push_folder(built, "org/fresh", split="test")
    assert not [c for c in fake_hub.calls if c[0] == "commit"]


@pytest.mark.parametrize(
    "breakage, split, message",
    [
        (lambda out: (out / "README.md").unlink(), None, "README.md not found"),
        (lambda out: (out / "README.md").write_text("# no front matter\n"), None, "no `configs:`"),
        (lambda out: [p.unlink() for p in out.glob("*/*.parquet")], None, "no <split>-\\*.parquet shards"),
        (lambda out: [p.unlink() for p in out.glob("instance/train-*")], None, "'instance' split 'train'"),
        (lambda out: None, "validation", "split 'validation' is not in"),
    ],
)
def test_bad_folder_is_a_user_error_before_any_hub_call(fake_hub, built, breakage, split, message):
    breakage(built)
    with pytest.raises(UserError, match=message):
        hub.push_folder(built, "org/bench", split=split)
    assert fake_hub.calls == []


def test_revision_is_created_then_committed_to_and_refusal_is_a_user_error(fake_hub, built):
    hub.push_folder(built, "org/bench", revision="v2")
    assert ("create_branch", "v2", True) in fake_hub.calls and ("committed to", "v2") in fake_hub.calls
    with pytest.raises(UserError, match=r"refused access to org/bench \(HTTP 403\)"):
        hub.push_folder(built, "org/bench", revision="denied")


def test_cli_prints_url_and_never_the_token(fake_hub, built, capsys):
    argv = ["push", str(built), "--repo-id", "org/bench", "--token", TOKEN, "--message", "first"]
    assert run("dicobench", "test", [push_cli.make_register(lambda folder: None)], argv) == 0
    out, err = capsys.readouterr()
    assert out.strip() == "https://huggingface.co/datasets/org/bench" and TOKEN not in out + err
    assert [c[1] for c in fake_hub.calls if c[0] == "commit"] == ["first"]

    assert run("dicobench", "test", [push_cli.make_register(lambda folder: None)],
               ["push", str(built), "--repo-id", "not a/valid/id"]) == 2
    assert capsys.readouterr().err.startswith("dicobench: error: bad --repo-id")
