"""Rebuilding honours the review: rejected rows come back from the next seed, nothing else moves."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pyarrow.parquet as pq

from dicobench.benchmark import BENCHMARK
from dicobench.build import build
from dicobench.kit.people.decisions import DecisionLog, decisions_path, make_decision

SPEC = BENCHMARK.people

OPTIONS = dict(per_task=4, seed=3, tasks="attribute,instance", rows_per_shard=2)


def rows_by_shard(out: Path) -> dict[Path, list[dict]]:
    return {f: pq.read_table(f).to_pylist() for f in sorted(out.glob("*/test-*.parquet"))}


def rebuild(out: Path) -> None:
    """`dicobench build` again with the same options, as a user reruns it."""
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    args = ["--out", str(out), "--per-task", "4", "--seed", "3", "--tasks", "attribute,instance",
            "--rows-per-shard", "2", "--num-proc", "1", "--quiet"]
    subprocess.run([sys.executable, "-m", "dicobench.cli.main", "build", *args], check=True, env=env, timeout=300,
                   capture_output=True)


def test_rebuild_regenerates_rejected_rows_only(tmp_path):
    out = tmp_path / "bench"
    build(out, num_proc=1, progress=False, **OPTIONS)
    before = rows_by_shard(out)
    stamps = {f: f.stat().st_mtime_ns for f in before}
    rows = {r["id"]: r for shard in before.values() for r in shard}
    first_attribute, second_instance = "attribute-test-s3-00001", "instance-test-s3-00002"
    log = DecisionLog(decisions_path(out))
    log.check_writable()
    for row_id, who, verdict, criteria in [
        (first_attribute, "ann", "reject", ["naturalness"]),
        ("attribute-test-s3-00000", "ann", "accept", []),
        (second_instance, "ann", "accept", []),
        (second_instance, "bob", "reject", ["fidelity", "scale"]),  # one reviewer's rejection is enough
        ("instance-test-s3-00003", "bob", "reject", []),
        ("instance-test-s3-00003", "bob", "accept", []),  # ... unless the same reviewer changed their mind
    ]:
        log.append(make_decision(row_id, who, verdict, criteria, "", rows[row_id]["seed"], SPEC.criteria_keys))
    with open(log.path, "a") as f:
        f.write('{"id": "attribute-test-s3-00002", "reviewer": "cy", "verdict": "reject", "criteria": [], '
                '"note": "no seed", "time": "2026-12-01T00:00:00+00:00"}\nnot json\n')

    rebuild(out)
    after = rows_by_shard(out)
    assert list(after) == list(before)
    changed = {f for f in before if f.stat().st_mtime_ns != stamps[f]}
    holding = {f for f, shard in before.items() if {r["id"] for r in shard} & {first_attribute, second_instance}}
    assert changed == holding and len(holding) == 2  # only the shards holding a rejected row were rewritten
    new = {r["id"]: r for shard in after.values() for r in shard}
    for row_id, row in rows.items():
        if row_id in (first_attribute, second_instance):
            assert new[row_id]["seed"] != row["seed"] and new[row_id]["answer"] == row["answer"]
            assert new[row_id]["image_b"]["bytes"] != row["image_b"]["bytes"]
        else:
            assert new[row_id] == row  # byte-identical, images included
    letters = lambda rs: Counter((r["task"], r["answer"]) for r in rs.values())  # noqa: E731
    assert letters(new) == letters(rows)  # counts per task and letter balance unchanged
    card = (out / "README.md").read_text()
    section = card.split("## Human review")[1].split("## Checks")[0]
    assert "2 of 8 rows as they are now were reviewed by 2 reviewer(s) (ann, bob)" in section
    assert "2 row(s) were regenerated" in section
    assert "| attribute | 1 | 4 | 1 | 1 |" in section and "| instance | 1 | 4 | 1 | 1 |" in section
    assert "fidelity 1, naturalness 1, scale 1" in section and "malformed line(s) (not counted): lines 8" in section
    assert "1 decision line(s) name no `seed`" in section
    stats = json.loads((out / "attribute" / ".stats" / "test-00000-of-00002.parquet.json").read_text())
    assert stats["rejections"]["review"] == 1 and "review" not in card.split("## Human review")[0]

    stamps = {f: f.stat().st_mtime_ns for f in after}
    rebuild(out)  # converged: the regenerated rows are unreviewed, nothing to redo
    assert all(f.stat().st_mtime_ns == stamps[f] for f in after)


def test_multipanelvqa_rebuild_redraws_a_rejected_image_in_every_config(tmp_path):
    from multipanelvqa.benchmark import BENCHMARK
    from multipanelvqa.build import build as mpv_build
    MPV = BENCHMARK.people

    options = dict(layouts="6,7,8", sources="procedural_edit", configs="original,captions", images_per_shard=2,
                   num_proc=1, progress=False)
    out = tmp_path / "mpv"
    mpv_build(out, **options)
    before = rows_by_shard(out)
    stamps = {f: f.stat().st_mtime_ns for f in before}
    rows = {r["id"]: r for shard in before.values() for r in shard}
    rejected = next(i for i in rows if i.startswith("captions-") and "L007" in i and i.endswith("q2"))
    log = DecisionLog(decisions_path(out))
    log.check_writable()
    log.append(make_decision(rejected, "ann", "reject", ["position"], "", rows[rejected]["seed"], MPV.criteria_keys))

    mpv_build(out, **options)
    after = rows_by_shard(out)
    changed = {f for f in before if f.stat().st_mtime_ns != stamps[f]}
    holding = {f for f, shard in before.items() if any("L007" in r["id"] for r in shard)}
    assert changed == holding and len(holding) == 2  # the image's shard, in both configs
    new = {r["id"]: r for shard in after.values() for r in shard}
    assert new.keys() == rows.keys()
    for row_id, row in rows.items():
        if "L007" in row_id:  # all three questions of the image, in every config, drawn afresh
            assert new[row_id]["seed"] != row["seed"] and new[row_id]["image"]["bytes"] != row["image"]["bytes"]
            if row_id.endswith(("q1", "q3")):  # Q1's yes/no and Q3's letter keep the build's balance
                assert new[row_id]["answer"] == row["answer"]
        else:
            assert new[row_id] == row
    stamps = {f: f.stat().st_mtime_ns for f in after}
    mpv_build(out, **options)
    assert all(f.stat().st_mtime_ns == stamps[f] for f in after)
    assert "1 row(s) were regenerated" in (out / "README.md").read_text()
