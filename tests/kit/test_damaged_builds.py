"""Every command that reads or publishes a build refuses a damaged one the same way: one `error:`
line naming the file and the problem, status 2, nothing written. The damages: a shard cut in
half (a full disk, an interrupted copy), a shard without its `answer` column, a column of
another type, a shard with fewer rows than the card records, a shard removed."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from dicobench.cli.main import main as dicobench
from dicobench.kit.errors import UserError
from dicobench.kit.release.verify import verify_build
from multipanelvqa.build import build as build_multipanelvqa
from multipanelvqa.cli.main import main as multipanelvqa

CLIS = {"dicobench": dicobench, "multipanelvqa": multipanelvqa}
ROOT = Path(__file__).resolve().parents[2]


def _truncate(shard: Path) -> None:
    data = shard.read_bytes()
    shard.write_bytes(data[: len(data) // 2])


def _rewrite(shard: Path, change) -> None:
    table = pq.read_table(shard)
    pq.write_table(change(table), shard)


def _drop_answer(shard: Path) -> None:
    _rewrite(shard, lambda t: t.drop_columns(["answer"]))


def _answer_as_text(shard: Path) -> None:
    def change(t: pa.Table) -> pa.Table:
        i = t.schema.get_field_index("answer")
        return t.set_column(i, "answer", pa.array([str(v) for v in t.column("answer").to_pylist()]))

    _rewrite(shard, change)


def _drop_a_row(shard: Path) -> None:
    _rewrite(shard, lambda t: t.slice(0, t.num_rows - 1))


DAMAGES = {  # name -> (damage, what the error line must say besides the file)
    "truncated": (_truncate, "not a readable Parquet file"),
    "no_answer": (_drop_answer, "no 'answer' column"),
    "retyped": (_answer_as_text, "column 'answer' is string"),
    "short": (_drop_a_row, "rows, its card records"),  # 1 of 2 (attribute) or 15 of 16 (all)
    "removed": (Path.unlink, "matches no shard"),
}


@pytest.fixture(scope="module")
def damaged(small_build, tmp_path_factory):
    """A copy of the small DiCoBench build per damage, each done to its `attribute` shard."""
    root = tmp_path_factory.mktemp("damaged")
    out = {}
    for name, (damage, _) in DAMAGES.items():
        shutil.copytree(small_build, root / name)
        damage(next((root / name / "attribute").glob("test-*.parquet")))
        out[name] = root / name
    ids = [i for f in sorted(small_build.glob("*/test-*.parquet"))
           for i in pq.read_table(f, columns=["id"])["id"].to_pylist()]
    out["preds"] = root / "preds.jsonl"
    out["preds"].write_text("".join(json.dumps({"id": i, "response": "A"}) + "\n" for i in ids))
    out["samples"] = root / "20260101_samples_dicobench_attribute.jsonl"
    out["samples"].write_text(json.dumps({"doc_id": 0, "filtered_resps": ["A"]}) + "\n")
    return out


@pytest.fixture(scope="module")
def damaged_mpv(tmp_path_factory):
    root = tmp_path_factory.mktemp("damaged_mpv")
    good = build_multipanelvqa(root / "good", layouts=[0], configs=["original"], num_proc=1, progress=False)
    out = {}
    for name in ("truncated", "no_answer"):
        shutil.copytree(good, root / name)
        DAMAGES[name][0](next((root / name / "original").glob("test-*.parquet")))
        out[name] = root / name
    ids = pq.read_table(next((good / "original").glob("test-*.parquet")), columns=["id"])["id"].to_pylist()
    out["preds"] = root / "preds.jsonl"
    out["preds"].write_text("".join(json.dumps({"id": i, "response": "yes"}) + "\n" for i in ids))
    out["samples"] = root / "20260101_samples_multipanelvqa_original.jsonl"
    out["samples"].write_text(json.dumps({"doc_id": 0, "filtered_resps": ["yes"]}) + "\n")
    return out


def refused(cli: str, argv, capsys, *needles) -> str:
    """`cli argv` in this process: status 2 and one `error:` line holding every needle."""
    try:
        status = CLIS[cli]([str(a) for a in argv])
    except SystemExit as exc:
        status = exc.code
    err = capsys.readouterr().err
    assert status == 2, err
    assert err.startswith(f"{cli}: error: ") and err.count("\n") == 1 and "Traceback" not in err, err
    for needle in needles:
        assert needle in err, err
    return err


def _server(cli: str, *args) -> subprocess.CompletedProcess:
    """A review or study server on a damaged build must refuse to start (a timeout: it served)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", f"{cli}.cli.main", *map(str, args), "--port", "0"],
                          capture_output=True, text=True, env=env, timeout=90)


def _commands(build: Path, files: dict, tmp: Path) -> dict[str, list]:
    """Every command that reads a build, each writing (if anywhere) under `tmp`."""
    return {
        "eval": ["eval", "--dataset", build, "--model", "openai:m", "--base-url", "http://127.0.0.1:9/v1",
                 "--api-key", "k", "--out", tmp / "run", "--quiet"],
        "score": ["score", files["preds"], "--dataset", build, "--out", tmp / "scores"],
        "export lmms-eval": ["export", "lmms-eval", "--dataset", build, "--out", tmp / "lmms"],
        "export vlmevalkit": ["export", "vlmevalkit", "--dataset", build, "--out", tmp / "vlm" / "X.tsv"],
        "import lmms-eval": ["import", "lmms-eval", files["samples"],
                             "--dataset", build, "--out", tmp / "imported.jsonl"],
        "push --dry-run": ["push", build, "--repo-id", "org/name", "--dry-run"],
        "push": ["push", build, "--repo-id", "org/name"],
        "info --verify": ["info", "--verify", build],
        "preview": ["preview", build, "--out", tmp / "sheet.png"],
        "human": ["human", build, "--out", tmp / "human"],
    }


@pytest.mark.parametrize("damage", DAMAGES)
def test_every_command_refuses_a_damaged_dicobench_build(damage, damaged, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")  # push must stop at the check, never reach for the Hub
    build, message = damaged[damage], DAMAGES[damage][1]
    before = sorted(p.relative_to(build).as_posix() for p in build.rglob("*"))
    where = "attribute/test-00000-of-00001.parquet" if damage not in ("short", "removed") else ""
    out = tmp_path / "out"  # every command writes under it, if anywhere
    for argv in _commands(build, damaged, out).values():
        refused("dicobench", argv, capsys, message, where)
    assert not out.exists(), "a refused command left files behind"
    assert sorted(p.relative_to(build).as_posix() for p in build.rglob("*")) == before


@pytest.mark.parametrize("damage", ["truncated", "no_answer"])
def test_review_and_study_servers_refuse_a_damaged_build(damage, damaged):
    build = damaged[damage]
    for args in (("review", build), ("study", build, "--time-limit", "30")):
        r = _server("dicobench", *args)
        assert r.returncode == 2 and r.stderr.count("\n") == 1, (args, r.stderr)
        assert DAMAGES[damage][1] in r.stderr and "attribute/test-00000-of-00001.parquet" in r.stderr
    assert not (build / ".review").exists() and not (build / ".study").exists()


@pytest.mark.parametrize("damage", ["truncated", "no_answer"])
def test_every_command_refuses_a_damaged_multipanelvqa_build(damage, damaged_mpv, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    build = damaged_mpv[damage]
    out = tmp_path / "out"
    for argv in _commands(build, damaged_mpv, out).values():
        refused("multipanelvqa", argv, capsys, DAMAGES[damage][1], "original/test-00000-of-00001.parquet")
    for args in (("review", build), ("study", build, "--time-limit", "30")):
        r = _server("multipanelvqa", *args)
        assert r.returncode == 2 and r.stderr.count("\n") == 1 and DAMAGES[damage][1] in r.stderr, (args, r.stderr)
    assert not out.exists() and not (build / ".review").exists() and not (build / ".study").exists()


def test_a_sound_build_verifies(small_build, capsys):
    verified = verify_build(small_build)
    assert len(verified.shards) == 8 and verified.rows[("all", "test")] == 16
    assert verified.rows[("attribute", "test")] == 2
    assert dicobench(["info", "--verify", str(small_build)]) == 0
    out = capsys.readouterr().out
    assert "verified 8 shards of 9 configs (16 rows in split test)" in out


def test_verification_narrows_to_what_a_command_reads(damaged):
    verified = verify_build(damaged["truncated"], config="entity", split="test")  # attribute is not read
    assert verified.shards == ("entity/test-00000-of-00001.parquet",)
    with pytest.raises(UserError, match="lists no config 'colour'"):
        verify_build(damaged["truncated"], config="colour")
    with pytest.raises(UserError, match="no 'hint' column: not a build of this benchmark"):
        verify_build(damaged["no_answer"], config="entity", columns=["hint"])  # one the caller needs


@pytest.mark.parametrize("damage", ["truncated", "no_answer", "retyped", "short", "removed"])
def test_rerunning_the_build_rewrites_the_damaged_shard(damage, tmp_path):
    """What the error line advises works: the same `build` again rewrites the damaged shard."""
    from dicobench.build import build

    out = build(tmp_path / "b", per_task=1, tasks=["attribute"], difficulty="easy", num_proc=1, progress=False)
    shard = next((out / "attribute").glob("test-*.parquet"))
    good = shard.read_bytes()
    DAMAGES[damage][0](shard)
    with pytest.raises(UserError):
        verify_build(out)
    build(out, per_task=1, tasks=["attribute"], difficulty="easy", num_proc=1, progress=False)
    assert shard.read_bytes() == good and verify_build(out).rows[("all", "test")] == 1


def test_a_dataset_verify_cannot_reach_still_fails_on_one_line_naming_the_cause(damaged, monkeypatch, capfd):
    """A Hub dataset is not verified here (its files are not on this machine): `datasets`' own
    failure is then the one line, with its cause rather than "An error occurred while generating"."""
    import dicobench.kit.release.verify as verify
    from dicobench.kit.io.predictions import load_references

    monkeypatch.setattr(verify, "verify_dataset", lambda dataset, **checks: None)
    with pytest.raises(UserError) as caught:
        load_references(str(damaged["no_answer"]), "all", "test", ["id", "answer"])
    assert "answer" in str(caught.value) and "An error occurred" not in str(caught.value)
    assert capfd.readouterr().err == ""  # no schema dump in the log
