"""Every scores.json and run.json says how its number was made."""

import json
from datetime import datetime

from dicobench.cli.score import register as register_dicobench
from dicobench.kit.cli.commands import run
from dicobench.kit.eval.provenance import PACKAGES, dataset_source, fingerprint, run_settings, versions
from multipanelvqa.cli.score import register as register_multipanel
from tests.dicobench.test_score_cli import dicobench_dir, mpvqa_dir, write_jsonl  # noqa: F401 (fixtures)


def test_fingerprint_follows_the_rows():
    rows = {"id": ["a", "b"], "answer": ["A", "C"]}
    assert fingerprint(rows) == fingerprint({"answer": ["A", "C"], "id": ["a", "b"]})
    assert fingerprint(rows) != fingerprint({"id": ["a", "b"], "answer": ["A", "D"]})
    assert fingerprint(rows) != fingerprint({"id": ["b", "a"], "answer": ["C", "A"]})  # the order scored counts


def test_versions_and_sources(tmp_path):
    found = versions()
    assert set(found) == {"dicobench", *PACKAGES} and found["datasets"] and found["openai"]
    assert dataset_source(str(tmp_path)) == {"path": str(tmp_path.resolve()), "revision": None, "digest": None}


def test_a_copied_build_is_the_same_dataset_and_an_edited_one_is_not(dicobench_dir, tmp_path):  # noqa: F811
    import shutil

    copy = tmp_path / "moved"
    shutil.copytree(dicobench_dir, copy)
    made = dataset_source(str(dicobench_dir))
    assert made["digest"] and dataset_source(str(copy))["digest"] == made["digest"]
    shard = sorted(p for p in copy.rglob("*.parquet"))[0]
    shard.write_bytes(shard.read_bytes() + b"\0")
    assert dataset_source(str(copy))["digest"] != made["digest"]


def test_dicobench_scores_json_provenance(dicobench_dir, tmp_path):  # noqa: F811
    rows = [{"id": f"{t}-{i}", "response": "A"} for t in ("attribute", "spatial_relation", "instance")
            for i in range(4)]
    preds = write_jsonl(tmp_path / "p.jsonl", rows)
    reports = []
    for out, extra in (("a", []), ("b", []), ("c", ["--config", "instance"])):
        sub = [r for r in rows if r["id"].startswith("instance")] if extra else rows
        path = write_jsonl(tmp_path / f"{out}.jsonl", sub) if extra else preds
        assert run("dicobench", "t", [register_dicobench],
                   ["score", str(path), "--dataset", str(dicobench_dir), "--out", str(tmp_path / out),
                    "--n-boot", "30", "--model", "hf:org/model", "--name", "Model X", *extra]) == 0
        reports.append(json.loads((tmp_path / out / "scores.json").read_text())["provenance"])
    made = reports[0]
    assert made["model"] == "hf:org/model" and made["name"] == "Model X"
    assert made["versions"] == versions()
    assert made["dataset"] == {"path": str(dicobench_dir.resolve()), "revision": None,
                               "digest": dataset_source(str(dicobench_dir))["digest"]}
    assert made["config"] == "all" and made["split"] == "test" and made["view"] == "full"
    assert made["n_boot"] == 30 and made["seed"] == 0 and made["judge"] is None and made["n_rows"] == 12
    assert datetime.fromisoformat(made["time"]).tzinfo is not None
    assert made["fingerprint"] == reports[1]["fingerprint"]  # the same rows, the same fingerprint
    assert reports[2]["fingerprint"] != made["fingerprint"] and reports[2]["config"] == "instance"


def test_score_reads_run_json_beside_the_predictions(mpvqa_dir, tmp_path):  # noqa: F811
    folder = tmp_path / "run"
    folder.mkdir()
    preds = write_jsonl(folder / "predictions.jsonl", [{"id": f"{a}-{k}", "response": "no"}
                                                       for a in ("original", "chessboard") for k in range(3)])
    (folder / "run.json").write_text(json.dumps({"model": "openai:m", "view": "full",
                                                 "provenance": {"prompt_hash": "abc123"}}))
    assert run_settings(preds)["prompt_hash"] == "abc123"
    assert run("multipanelvqa", "t", [register_multipanel], ["score", str(preds), "--dataset", str(mpvqa_dir),
                                                           "--n-boot", "20"]) == 0
    made = json.loads((folder / "predictions.scores" / "scores.json").read_text())["provenance"]
    assert made["model"] == "openai:m" and made["prompt_hash"] == "abc123" and made["name"] == "predictions"
    assert made["n_rows"] == 6 and len(made["fingerprint"]) == 64
