"""Numbers that survive faults (issue 35): no answer lost, no run mixed with another dataset,
tampering caught, and one line instead of a traceback for each hostile case."""

import json
import os

import datasets
import pytest

from dicobench.cli.main import main as dicobench
from dicobench.schema import LETTERS, prompt_text
from openai_stub import StubServer

SEPARATORS = "\u2028\u2029\u0085"


def records(path):
    return [json.loads(line) for line in path.read_text(encoding="utf-8").split("\n") if line]


def eval_argv(dataset, out, stub, *extra):
    return ["eval", "--dataset", str(dataset), "--model", "openai:stub", "--out", str(out), "--base-url",
            stub.base_url, "--api-key", "k", "--concurrency", "1", "--quiet", "--limit", "1", *extra]


def test_replies_with_unicode_line_separators_survive_resume_score_and_import(small_build, tmp_path):
    out = tmp_path / "run"
    with StubServer(lambda body: f"A{SEPARATORS}B") as stub:
        assert dicobench(eval_argv(small_build, out, stub)) == 0
        asked = len(stub.requests)
        assert dicobench(eval_argv(small_build, out, stub)) == 0
        assert len(stub.requests) == asked  # the resume kept every answer: nothing asked twice
    assert all(r["response"] == f"A{SEPARATORS}B" for r in records(out / "predictions.jsonl"))
    assert dicobench(["score", str(out / "predictions.jsonl"), "--dataset", str(small_build), "--out",
                      str(tmp_path / "s")]) == 0
    samples = tmp_path / "2024_samples_dicobench_entity.jsonl"
    samples.write_text("".join(json.dumps({"doc_id": i, "filtered_resps": [f"B{SEPARATORS}"]}, ensure_ascii=False)
                               + "\n" for i in range(2)), encoding="utf-8")
    assert dicobench(["import", "lmms-eval", str(samples), "--dataset", str(small_build), "--out",
                      str(tmp_path / "p.jsonl")]) == 0
    assert [r["response"] for r in records(tmp_path / "p.jsonl")] == [f"B{SEPARATORS}"] * 2


# ---- a build's shards are what it wrote: digests at build time, checked by info --verify and by a rerun ----

def _tamper(shard, column, change):
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pq.read_table(shard)
    values = table.column(column).to_pylist()
    values[0] = change(values[0])
    field = table.schema.field(column)
    pq.write_table(table.set_column(table.schema.get_field_index(column), field, pa.array(values, field.type)), shard)
    later = shard.stat().st_mtime + 10  # as a rebuild later on: `datasets` keys its cache on mtimes to the second
    os.utime(shard, (later, later))


def _seed_one_shard(tmp_path):
    from dicobench.build import build

    return build(tmp_path / "other", per_task=2, seed=1, tasks=["entity"], num_proc=1, progress=False)


@pytest.mark.parametrize("damage", ["answer", "image", "swap", "seed"])
def test_verify_names_a_changed_shard_and_a_rerun_of_build_repairs_it(build_copy, tmp_path, capsys, damage):
    from dicobench.build import build

    entity = build_copy / "entity" / "test-00000-of-00001.parquet"
    attribute = build_copy / "attribute" / "test-00000-of-00001.parquet"
    before = entity.read_bytes(), attribute.read_bytes()
    if damage == "answer":
        _tamper(entity, "answer", lambda a: (a + 1) % 5)
    elif damage == "image":
        _tamper(entity, "image_a", lambda image: {**image, "bytes": image["bytes"][:-1] + b"\0"})
    elif damage == "swap":
        entity.write_bytes(before[1]), attribute.write_bytes(before[0])
    else:
        entity.write_bytes((_seed_one_shard(tmp_path) / "entity" / "test-00000-of-00001.parquet").read_bytes())
    capsys.readouterr()
    assert dicobench(["info", str(build_copy), "--verify"]) == 2
    err = capsys.readouterr().err
    named = "attribute" if damage == "swap" else "entity"  # the first of the two swapped is named
    assert f"{named}/test-00000-of-00001.parquet: its bytes are not those the build wrote" in err
    assert len(err.strip().splitlines()) == 1
    build(build_copy, per_task=2, seed=0, num_proc=1, progress=False)  # the same options: a resume
    assert (entity.read_bytes(), attribute.read_bytes()) == before
    assert dicobench(["info", str(build_copy), "--verify"]) == 0


# ---- a run is bound to the rows it asked: no resume, no score across a rebuilt dataset ----

def test_eval_resume_and_score_refuse_a_dataset_whose_rows_changed(build_copy, tmp_path, capsys):
    """The dataset rebuilt with other options: the same ids, other options and images."""
    from dicobench.build import build

    out = tmp_path / "run"
    with StubServer(lambda body: "A") as stub:
        assert dicobench(eval_argv(build_copy, out, stub)) == 0
        asked = len(stub.requests)
        build(build_copy, per_task=2, seed=0, num_proc=1, progress=False, difficulty="easy", overwrite=True)
        capsys.readouterr()
        assert dicobench(eval_argv(build_copy, out, stub)) == 2
        assert len(stub.requests) == asked
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "options" in err and "another --out" in err
    assert dicobench(["score", str(out / "predictions.jsonl"), "--dataset", str(build_copy), "--out",
                      str(tmp_path / "s")]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "options" in err and not (tmp_path / "s").exists()


def test_a_second_eval_into_the_same_out_is_refused_while_the_first_runs(small_build, tmp_path, capsys):
    """Two runs into one folder: the second one's resume would replace the file the first appends to."""
    import subprocess
    import sys
    import time

    out = tmp_path / "run"
    with StubServer(lambda body: "A", delay=0.3) as stub:
        first = subprocess.Popen([sys.executable, "-m", "dicobench.cli.main", *eval_argv(small_build, out, stub)],
                                 stderr=subprocess.PIPE, text=True)
        try:
            deadline = time.time() + 120
            while not stub.requests and time.time() < deadline:  # the first run is asking
                time.sleep(0.1)
            assert dicobench(eval_argv(small_build, out, stub)) == 2
            err = capsys.readouterr().err.strip()
            assert len(err.splitlines()) == 1 and f"pid {first.pid}" in err
        finally:
            assert first.wait(timeout=300) == 0
        assert len(stub.requests) == 8  # each row asked once
    assert len(records(out / "predictions.jsonl")) == 8
