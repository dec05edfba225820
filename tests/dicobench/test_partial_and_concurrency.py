"""Partial predictions scored as what they are (bounds over the whole split, never the accuracy of
a subset), and `evaluate()` for Python functions: a progress bar, threads with row-ordered and
resumable results, raising on the first error, and advice that fits a run without a folder."""

import json
import threading
import time

import datasets
import pytest

import dicobench
from dicobench.cli.main import main as dicobench_cli
from dicobench.kit.eval.run_folder import PREDICTIONS
from dicobench.kit.io.predictions import first_per_config
from dicobench.schema import LETTERS, prompt_text


@pytest.fixture(scope="module")
def rows(small_build):
    return datasets.load_dataset(str(small_build), "all", split="test")


def oracle(rows):
    by_prompt = {prompt_text(r["question"], r["options"]): r for r in rows}
    return lambda images, prompt: f"Answer: {LETTERS[by_prompt[prompt]['answer']]}"


def write(path, rows, ids):
    path.write_text("".join(json.dumps({"id": r["id"], "response": f"({LETTERS[r['answer']]})"}) + "\n"
                            for r in rows if r["id"] in ids))


def test_allow_partial_scores_a_subset_as_bounds_over_the_split(small_build, rows, tmp_path, capsys):
    n = len(rows)
    some = {rows[0]["id"], rows[5]["id"], rows[9]["id"]}  # spread out, as lmms-eval --limit 1 per task answers
    predictions = tmp_path / "p.jsonl"
    write(predictions, rows, some)
    argv = ["score", str(predictions), "--dataset", str(small_build), "--out", str(tmp_path / "s")]
    assert dicobench_cli(argv) == 2  # a full run is expected by default
    err = capsys.readouterr().err
    assert "missing ids" in err and "--allow-partial" in err
    assert dicobench_cli(argv + ["--allow-partial"]) == 1  # scored, and incomplete
    err = capsys.readouterr().err
    assert f"{n - 3} rows have no prediction (a partial run)" in err and "rerun eval" not in err
    scores = json.loads((tmp_path / "s" / "scores.json").read_text())
    assert scores["complete"] is False and "accuracy" not in scores and scores["n"] == n
    assert scores["missing"] == scores["unscored"] == n - 3
    assert scores["accuracy_lower"] == pytest.approx(3 / n) and scores["accuracy_upper"] == 1.0


def test_limit_expects_the_first_rows_of_each_config_and_refuses_others(small_build, rows, tmp_path, capsys):
    """`--limit N` is lmms-eval's: the first N rows of each config (each task of `all`)."""
    n = len(rows)
    first = [rows[i]["id"] for i in first_per_config(rows["task"], 1)]
    assert len(first) == 8 and len({r["task"] for r in rows if r["id"] in first}) == 8  # one row of every task
    predictions = tmp_path / "p.jsonl"
    write(predictions, rows, set(first))
    argv = ["score", str(predictions), "--dataset", str(small_build), "--out", str(tmp_path / "s")]
    assert dicobench_cli(argv + ["--limit", "1"]) == 1
    scores = json.loads((tmp_path / "s" / "scores.json").read_text())
    assert (scores["n"], scores["unscored"], scores["accuracy_lower"]) == (n, n - 8, pytest.approx(8 / n))
    assert scores["limit"] == 1
    capsys.readouterr()
    second = next(r["id"] for r in rows if r["task"] == rows[0]["task"] and r["id"] != first[0])
    write(predictions, rows, {*first, second})
    assert dicobench_cli(argv + ["--limit", "1"]) == 2  # a second row of a task lies beyond the limit
    assert f"beyond the first 1 rows of each config: {second}" in capsys.readouterr().err
    write(predictions, rows, set(first[:-1]))
    assert dicobench_cli(argv + ["--limit", "1"]) == 2  # the last task's first row is missing
    assert f"missing ids among the first 1 rows of each config: {first[-1]}" in capsys.readouterr().err
    with pytest.raises(SystemExit) as usage:  # a usage error, as argparse reports them
        dicobench_cli(argv + ["--limit", "0"])
    assert usage.value.code == 2 and "--limit: must be 1 or more" in capsys.readouterr().err
    write(predictions, rows, set(rows["id"]))  # a full run with --allow-partial is complete
    assert dicobench_cli(argv + ["--allow-partial"]) == 0
    assert json.loads((tmp_path / "s" / "scores.json").read_text())["accuracy"] == 1.0


def test_evaluate_with_limit_and_allow_partial_bounds_the_whole_split(small_build, rows, tmp_path):
    result = dicobench.evaluate(small_build, oracle(rows), limit=1, allow_partial=True, out=tmp_path / "r")
    assert result["split"] == "test" and result["n"] == len(rows) and result["complete"] is False
    assert result["accuracy_lower"] == pytest.approx(8 / len(rows)) and result["accuracy_upper"] == 1.0
    selection = dicobench.evaluate(small_build, oracle(rows), limit=1, out=tmp_path / "s")  # a selection of its own
    assert (selection["split"], selection["limit"], selection["n"], selection["accuracy"]) == ("test", 1, 8, 1.0)
    assert len(selection["per_task"]) == 8  # every task, not the first rows of the first one
    # score reads the run as eval scored it (run.json records the selection): the same numbers, no flag
    assert dicobench_cli(["score", str(tmp_path / "s" / PREDICTIONS), "--dataset", str(small_build),
                          "--out", str(tmp_path / "again")]) == 0
    again = json.loads((tmp_path / "again" / "scores.json").read_text())
    assert (again["limit"], again["n"], again["accuracy"]) == (1, 8, 1.0)


def test_concurrency_keeps_row_order_and_resumes(small_build, rows, tmp_path):
    answer = oracle(rows)
    active, most, lock = [0], [0], threading.Lock()
    failed_once = set()
    flaky = {prompt_text(rows[k]["question"], rows[k]["options"]) for k in (3, 7)}

    def slow(images, prompt):
        with lock:
            active[0] += 1
            most[0] = max(most[0], active[0])
        time.sleep(0.05 if hash(prompt) % 2 else 0.01)  # replies finish out of order
        with lock:
            active[0] -= 1
        if prompt in flaky and prompt not in failed_once:  # rows 3 and 7 fail on the first run only
            failed_once.add(prompt)
            raise ConnectionError("endpoint went away")
        return answer(images, prompt)

    out = tmp_path / "run"
    first = dicobench.evaluate(small_build, slow, concurrency=4, out=out)
    assert most[0] > 1  # several calls were in flight at once
    lines = [json.loads(line) for line in (out / PREDICTIONS).read_text().splitlines()]
    assert [r["id"] for r in lines] == list(rows["id"])  # written in row order
    assert first["complete"] is False and first["unscored"] == 2
    again = dicobench.evaluate(small_build, slow, concurrency=4, out=out)
    assert again["complete"] is True and again["accuracy"] == 1.0
    sequential = dicobench.evaluate(small_build, answer, out=tmp_path / "seq")
    assert {k: v for k, v in sequential.items() if k not in ("predictions", "provenance")} == \
        {k: v for k, v in again.items() if k not in ("predictions", "provenance")}


def test_raise_on_error_and_the_advice_without_an_out_folder(small_build, rows, tmp_path, capsys):
    def broken(images, prompt):
        raise ValueError("bad tensor shape")

    with pytest.raises(ValueError, match="bad tensor shape"):
        dicobench.evaluate(small_build, broken, config="attribute", limit=2, raise_on_error=True, out=tmp_path / "r")
    assert not (tmp_path / "r").exists()  # nothing answered: nothing left behind
    capsys.readouterr()
    result = dicobench.evaluate(small_build, broken, config="attribute", limit=2)
    assert result["complete"] is False and result["unscored"] == 2
    err = capsys.readouterr().err
    assert "the first error: ValueError: bad tensor shape" in err and "pass out=" in err
    assert "rerun eval" not in err and "--out" not in err
    dicobench.evaluate(small_build, broken, config="attribute", limit=2, out=tmp_path / "kept")
    assert "rerun eval with the same --out" in capsys.readouterr().err  # a folder one can resume in


def test_progress_is_an_option_of_evaluate_for_functions(small_build, rows, capsys):
    result = dicobench.evaluate(small_build, oracle(rows), limit=2, progress=True)
    assert result["accuracy"] == 1.0
    assert "dicobench eval" in capsys.readouterr().err  # the bar, on stderr
