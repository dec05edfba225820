"""benchmarks/bench_readings.py: recorded readings count only on the rows they were made on."""

import importlib.util
import io
import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from dicobench.kit.io.rowstore import RowStore
from dicobench.schema import TASKS

ROOT = Path(__file__).resolve().parent.parent
READINGS = ROOT / "benchmarks" / "readings"


@pytest.fixture(scope="module")
def bench():
    spec = importlib.util.spec_from_file_location("bench_readings", ROOT / "benchmarks" / "bench_readings.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def mpv_build(tmp_path_factory) -> Path:
    """One small MultipanelVQA build (layout 0, one source) the MultipanelVQA tests read."""
    from multipanelvqa.build import build

    out = tmp_path_factory.mktemp("mpv")
    build(out, layouts="0", configs="original", sources="procedural_edit", num_proc=1, progress=False)
    return out


def _rows(build: Path, n: int) -> list[dict]:
    return pq.read_table(sorted(build.glob("attribute/*.parquet"))[0]).slice(0, n).to_pylist()


def _write(path: Path, readings: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in readings), encoding="utf-8")
    return path


def test_a_row_drawn_otherwise_or_missing_is_left_out_and_several_readings_of_a_row_count_once(
        bench, small_build, tmp_path, capsys):
    first, second = _rows(small_build, 2)
    digest = RowStore(small_build, TASKS, ("image_a", "image_b")).digest(first["id"])  # what review decisions bind to
    keyed = "ABCDE"[first["answer"]]
    wrong = next(letter for letter in "ABCDE" if letter != keyed)
    readings = _write(tmp_path / "r.jsonl", [
        {"id": first["id"], "digest": digest, "protocol": "glance", "reader": "g1", "response": keyed},
        {"id": first["id"], "digest": digest, "protocol": "glance", "reader": "g2", "response": wrong},
        {"id": second["id"], "digest": digest, "protocol": "glance", "reader": "g1", "response": "A"},
        {"id": "attribute-test-s0-99999", "digest": digest, "protocol": "careful", "reader": "c1", "response": "A"},
    ])
    bench.main(["--dataset", str(small_build), "--readings", str(readings)])
    out = capsys.readouterr().out
    assert "4 readings of 3 rows; 2 are of rows this build holds as they were read" in out
    assert f"left out: 2 readings of 2 rows this build lacks or drew otherwise ({second['id']}, " in out
    assert "careful" not in out.split("left out")[1]  # its one reading was left out: no table
    overall = next(line.split() for line in out.splitlines() if line.strip().startswith("all "))
    assert overall[1:5] == ["1", "2", "0.5", "50.0%"]
    assert "track difference" in out and "attribute" in out


def test_an_all_right_sample_still_has_an_interval_below_100(bench):
    low, high = bench.wilson(1.0, 120)
    assert high == 1.0 and 0.96 < low < 0.975
    low, high = bench.wilson(0.6, 200)
    assert 0.52 < low < 0.54 and 0.66 < high < 0.67


@pytest.mark.parametrize("line", ["not json", json.dumps({"id": "x", "digest": "d", "protocol": "glance"}), "[]"])
def test_a_malformed_reading_is_a_one_line_error(bench, small_build, tmp_path, capsys, line):
    path = tmp_path / "r.jsonl"
    path.write_text(json.dumps({"id": "a", "digest": "d", "protocol": "glance", "reader": "g", "response": "A"})
                    + "\n" + line + "\n", encoding="utf-8")
    with pytest.raises(SystemExit) as exit_:
        bench.main(["--dataset", str(small_build), "--readings", str(path)])
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and err.count("\n") == 1 and f"{path}:2: not a reading" in err


def test_a_folder_without_a_build_is_a_one_line_error(bench, tmp_path, capsys):
    path = _write(tmp_path / "r.jsonl", [{"id": "a", "digest": "d", "protocol": "glance", "reader": "g",
                                          "response": "A"}])
    with pytest.raises(SystemExit) as exit_:
        bench.main(["--dataset", str(tmp_path), "--readings", str(path)])
    assert exit_.value.code == 2 and "neither a DiCoBench nor a MultipanelVQA build" in capsys.readouterr().err


@pytest.mark.parametrize("name", ["dicobench-hard-seed0.jsonl", "multipanelvqa-hard-seed0.jsonl"])
def test_the_recorded_readings_are_readings_of_one_row_version_each(bench, name):
    readings = bench.read_readings(READINGS / name)
    assert {r["protocol"] for r in readings} == {"glance", "careful"}
    digests: dict[str, str] = {}
    for r in readings:
        assert len(r["digest"]) == 32 and int(r["digest"], 16) >= 0
        assert digests.setdefault(r["id"], r["digest"]) == r["digest"], r["id"]
        assert isinstance(r["response"], str) and r["response"].strip()
    assert len({(r["id"], r["reader"]) for r in readings}) == len(readings)  # a reader reads a row once


def test_a_multipanelvqa_build_is_scored_by_its_own_rules(bench, mpv_build, tmp_path, capsys):
    rows = pq.read_table(sorted(mpv_build.glob("original/*.parquet"))[0]).to_pylist()
    store = RowStore(mpv_build, ["original"], ("image",))
    readings = [{"id": r["id"], "digest": store.digest(r["id"]), "protocol": "glance",
                 "reader": "g1", "response": f"{r['answer'].upper()}."} for r in rows]
    bench.main(["--dataset", str(mpv_build), "--readings", str(_write(tmp_path / "r.jsonl", readings))])
    out_text = capsys.readouterr().out
    assert out_text.startswith("multipanelvqa:")
    overall = next(line.split() for line in io.StringIO(out_text) if line.strip().startswith("all "))
    assert overall[1] == str(len(rows)) and overall[4] == "100.0%"  # "YES." is yes, "B." is (b), as scoring reads them


def test_without_readings_the_recorded_file_of_the_builds_benchmark_is_read(bench, mpv_build, capsys):
    bench.main(["--dataset", str(mpv_build)])
    recorded = bench.read_readings(READINGS / "multipanelvqa-hard-seed0.jsonl")
    assert capsys.readouterr().out.startswith(f"multipanelvqa: {len(recorded)} readings of ")
