"""A study session scored like a model on the sample it declares, and its Human rows (one per
time limit) on the leaderboard; every number below is counted by hand from the answers given."""

from __future__ import annotations

import csv
import json
import shutil
import time
import urllib.request

import pytest

from dicobench.benchmark import BENCHMARK
from dicobench.cli.main import main as dicobench
from dicobench.kit.cli.commands import run
from dicobench.kit.io.rowstore import RowStore
from dicobench.schema import TASKS

SPEC = BENCHMARK.people

pytest.importorskip("starlette")

TIMEOUT, STOP = object(), object()


def _call(url: str, token: str, body=None) -> dict:
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, headers={"X-Token": token, "Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=10) as r:
        return json.loads(r.read())


def session(spec, build, participant, limit, n, answer) -> list[str]:
    """Run one study session through its HTTP API; `answer(row_id)` gives the reply, TIMEOUT
    (let the clock run out) or STOP (leave the session unfinished). Returns the declared ids."""
    from dicobench.kit.people.webapp.launch import study

    server = study(spec, build, time_limit=limit, participant=participant, n=n, port=0, background=True,
                   announce=lambda line: None)
    label = "none" if limit is None else f"{limit:g}"
    ids = json.loads((build / ".study" / f"{participant}-{label}.sample.json").read_text())["ids"]
    try:
        page = urllib.request.urlopen(server.url, timeout=10).read().decode()
        token = json.loads(page.split("window.SETTINGS = ")[1].split(";</script>")[0])["token"]
        while not (item := _call(server.url + "api/next", token, {})).get("done"):
            reply = answer(ids[item["k"]])
            if reply is STOP:
                break
            if reply is TIMEOUT:
                time.sleep(limit + 0.1)  # the next request finds the clock run out and records a timeout
                continue
            _call(server.url + "api/answer", token, {"k": item["k"], "response": reply})
    finally:
        server.stop()
    return ids


def wrong(letter: str) -> str:
    return "B" if letter == "A" else "A"


@pytest.fixture
def bench(small_build, tmp_path):
    out = tmp_path / "bench"
    shutil.copytree(small_build, out)
    return out


def score(files, *extra) -> int:
    return dicobench(["score", str(files), "--n-boot", "20", *extra])


def test_a_session_is_scored_on_its_declared_sample_and_ranked_per_time_limit(bench, tmp_path, capsys):
    rows = RowStore(bench, list(TASKS), SPEC.image_columns).rows
    plan: dict[str, object] = {}

    def ann(row_id):  # 4 right, 1 timeout, 1 wrong, then she leaves with 2 items unanswered
        if len(plan) == 6:
            return STOP
        kind = ["right"] * 4 + ["timeout", "wrong"]
        plan[row_id] = kind[len(plan)]
        return {"right": rows[row_id]["answer"], "wrong": wrong(rows[row_id]["answer"]), "timeout": TIMEOUT}[
            plan[row_id]]

    ids = session(SPEC, bench, "ann", 0.5, 8, ann)
    assert len(ids) == 8 and {rows[i]["task"] for i in ids} == set(TASKS)  # one row per task
    study_file = bench / ".study" / "ann-0.5.jsonl"
    capsys.readouterr()
    # unfinished: the 2 unasked rows are unscored, not dropped; the timeout counts wrong
    assert score(study_file, "--dataset", str(bench)) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "2 rows unscored" in err[0] and "rerun the same study command" in err[0]
    report = json.loads((bench / ".study" / "ann-0.5.scores" / "scores.json").read_text())
    assert report["n"] == 8 and report["complete"] is False and report["unscored"] == 2
    assert (report["accuracy_lower"], report["accuracy_upper"]) == (4 / 8, 6 / 8)
    assert report["study"] == {"participant": "ann", "time_limit": 0.5, "seed": 0, "n": 8}
    assert report["provenance"]["model"] == "human:ann" and report["provenance"]["n_rows"] == 8

    # resuming with other options would mix two samples in one file: refused
    from dicobench.kit.errors import UserError
    with pytest.raises(UserError, match="another sample"):
        session(SPEC, bench, "ann", 0.5, 4, lambda row_id: STOP)
    # the 7th item was on screen when she left: its clock kept running (it is kept on disk), so
    # once the limit has passed, the resumed session records it as timed out and shows the 8th
    time.sleep(0.5 + 0.1)
    plan[next(i for i in ids if i not in plan)] = "timeout"
    session(SPEC, bench, "ann", 0.5, 8, lambda row_id: plan.setdefault(row_id, "right") and rows[row_id]["answer"])
    assert score(study_file, "--dataset", str(bench)) == 0
    report = json.loads((bench / ".study" / "ann-0.5.scores" / "scores.json").read_text())
    assert report["complete"] and report["accuracy"] == 5 / 8 and report["n"] == 8
    assert report["error_types"]["overall"]["unparsed"] == 2  # the two timeouts: no answer, wrong

    # a model's predictions for the same 8 rows but without a declared sample stay refused (exit 2)
    partial = tmp_path / "partial.jsonl"
    partial.write_text("".join(json.dumps({"id": i, "response": "A"}) + "\n" for i in ids))
    capsys.readouterr()
    assert score(partial, "--dataset", str(bench)) == 2
    assert "missing ids" in capsys.readouterr().err
    # an answer to a row outside the declared sample is refused too
    stray = bench / ".study" / "ann-0.5.jsonl"
    extra = next(i for i in rows if i not in ids)
    with stray.open("a") as f:
        f.write(json.dumps({"id": extra, "response": "A", "latency": 1.0, "time_limit": 0.5, "participant": "ann",
                            "timed_out": False}) + "\n")
    assert score(stray, "--dataset", str(bench), "--out", str(tmp_path / "stray")) == 2
    assert "outside the declared sample" in capsys.readouterr().err
    stray.write_text("".join(l + "\n" for l in stray.read_text().splitlines()[:-1]))

    # cy: every item right under 0.5 s; dee: unlimited, all right but one
    session(SPEC, bench, "cy", 0.5, 8, lambda row_id: rows[row_id]["answer"])
    dee_wrong = ids[0]
    session(SPEC, bench, "dee", None, 8,
            lambda row_id: wrong(rows[row_id]["answer"]) if row_id == dee_wrong else rows[row_id]["answer"])
    for name in ("cy-0.5", "dee-none"):
        assert score(bench / ".study" / f"{name}.jsonl", "--dataset", str(bench)) == 0
    model = tmp_path / "model" / "predictions.jsonl"
    model.parent.mkdir()
    model.write_text("".join(json.dumps({"id": i, "response": rows[i]["answer"] if rows[i]["track"] == "difference"
                                         else "E"}) + "\n" for i in rows))
    assert score(model, "--dataset", str(bench), "--out", str(model.parent), "--name", "M") == 0

    out = tmp_path / "board"
    human = [bench / ".study" / f"{name}.scores" for name in ("dee-none", "ann-0.5", "cy-0.5")]
    assert dicobench(["leaderboard", str(model.parent), "--out", str(out), "--human", *map(str, human)]) == 0
    table = {r["model"]: r for r in csv.DictReader((out / "leaderboard.csv").open())}
    assert list(table) == ["M", "Random chance", "Human (0.5 s)", "Human (no limit)"]
    fast, unlimited = table["Human (0.5 s)"], table["Human (no limit)"]
    assert fast["kind"] == unlimited["kind"] == "human" and fast["runs"] == "2" and unlimited["runs"] == "1"
    # one row per task in each session: a task is 100 for ann when she answered it right, else 0; cy 100
    for row_id in ids:
        task = rows[row_id]["task"]
        if plan[row_id] == "right":
            assert (fast[task], fast[f"{task}_std"]) == ("100.00", "0.00")
        else:  # mean of 0 and 100, sample std 70.71
            assert (fast[task], fast[f"{task}_std"]) == ("50.00", "70.71")
        assert unlimited[task] == ("0.00" if row_id == dee_wrong else "100.00")
    # the average (every task weighs the same): ann 5/8, cy 8/8 -> 81.25 ± 26.52; dee 7/8
    assert (fast["average"], fast["average_std"], unlimited["average"]) == ("81.25", "26.52", "87.50")
    md = (out / "leaderboard.md").read_text()
    assert "| *Human (0.5 s)* |" in md and "| *Human (no limit)* |" in md and md.index("0.5 s") < md.index("no limit")


def test_multipanelvqa_session_free_text_scored_by_the_rules(tmp_path):
    from multipanelvqa.benchmark import BENCHMARK
    from multipanelvqa.build import build
    from multipanelvqa.cli.score import register as register_multipanel
    MPV = BENCHMARK.people

    bench = tmp_path / "mpv"
    build(bench, layouts="6,7,8", sources="procedural_edit", configs="original", images_per_shard=2, num_proc=1,
          progress=False)
    rows = RowStore(bench, ["original"], MPV.image_columns).rows
    given = {}

    def answer(row_id):  # Q1/Q2 free text: the answer in other words the rules read, or a wrong one; Q3 a click
        row = rows[row_id]
        k = len(given)
        if row["question_type"] == "q3":
            reply = row["answer"] if k % 2 == 0 else next(l for l in "abcd" if l != row["answer"])
        elif row["answer"] in ("yes", "no"):
            reply = f"{row['answer'].capitalize()}." if k % 2 == 0 else ("no" if row["answer"] == "yes" else "yes")
        else:
            reply = f"The {row['answer']}!" if k % 2 == 0 else "a spaceship"
        given[row_id] = k % 2 == 0
        return reply

    ids = session(MPV, bench, "ann", None, 6, answer)
    assert len(ids) == 6
    code = run("multipanelvqa", "t", [register_multipanel],
               ["score", str(bench / ".study" / "ann-none.jsonl"), "--dataset", str(bench), "--config", "original",
                "--n-boot", "20"])
    report = json.loads((bench / ".study" / "ann-none.scores" / "scores.json").read_text())
    assert code == 0 and report["n"] == 6 and report["complete"]
    assert report["accuracy"] == sum(given.values()) / 6 == 0.5
    assert report["rule_correct"] == 3 and report["study"]["participant"] == "ann"
    expected = {}
    for qt in ("q1", "q2", "q3"):
        asked = [i for i in ids if rows[i]["question_type"] == qt]
        expected[qt] = f"{100 * sum(given[i] for i in asked) / len(asked):.2f}"
        assert report["per_question_type"][qt]["n"] == len(asked) == 2  # balanced over the question types
        assert f"{100 * report['per_question_type'][qt]['accuracy']:.2f}" == expected[qt]

    # beside a model scored on every row: the session's row under "Human (no limit)"
    model = tmp_path / "model.jsonl"
    model.write_text("".join(json.dumps({"id": i, "response": "yes"}) + "\n" for i in rows))
    assert run("multipanelvqa", "t", [register_multipanel],
               ["score", str(model), "--dataset", str(bench), "--config", "original", "--n-boot", "20"]) == 0
    from multipanelvqa.cli.leaderboard import register as register_board

    out = tmp_path / "board"
    assert run("multipanelvqa", "t", [register_board],
               ["leaderboard", str(tmp_path / "model.scores"), "--out", str(out),
                "--human", str(bench / ".study" / "ann-none.scores")]) == 0
    table = {r["model"]: r for r in csv.DictReader((out / "leaderboard.csv").open())}
    assert list(table) == ["model", "Random chance", "Human (no limit)"]
    human = table["Human (no limit)"]
    assert {qt: human[f"synthetic_{qt}"] for qt in expected} == expected and human["synthetic_overall"] == "50.00"


def test_the_human_figure_with_one_time_limit_draws_its_series_at_the_tick(tmp_path, monkeypatch):
    from matplotlib.figure import Figure

    from dicobench.kit.people.human import figure

    drawn = []
    save = Figure.savefig
    monkeypatch.setattr(Figure, "savefig", lambda fig, *a, **k: (drawn.append(fig), save(fig, *a, **k))[1])
    group = {"accuracy": 0.8, "ci": [0.7, 0.9]}
    figure({"30": {"overall": group, "difference": group, "commonality": group}},
           ["overall", "difference", "commonality"], {"model": 0.5}, tmp_path / "human_accuracy.png", "one limit")
    ax = drawn[0].axes[0]
    assert ax.get_xlim() == (-0.5, 0.5)
    xs = [x for line in ax.lines if line.get_marker() == "o" for x in line.get_xdata()]
    assert len(xs) == 3 and all(abs(x) <= 0.05 for x in xs)  # beside the tick, not at the plot's edges
    drawn[0].canvas.draw()
    [label] = ax.texts
    assert ax.bbox.contains(*label.get_window_extent().corners()[0])  # the model's name inside the plot
