"""score_predictions -> Report and write_report, for both benchmarks: the library gives what the
`score` command writes, and scoring without a judge touches no network."""

import json
import socket

import pytest

import dicobench
import multipanelvqa
from dicobench.kit.eval import provenance
from dicobench.kit.eval.report import Report, write_report
from tests.dicobench.test_score_cli import dicobench as dicobench_cli
from tests.dicobench.test_score_cli import dicobench_dir, mpvqa_dir, multipanel, write_jsonl  # noqa: F401 (fixtures)

FROZEN = "2026-01-01T00:00:00+00:00"


@pytest.fixture
def frozen(monkeypatch):
    """Provenance's time fixed, so that two scorings of the same input write the same bytes."""
    monkeypatch.setattr(provenance, "now", lambda: FROZEN)


@pytest.fixture
def no_network(monkeypatch):
    """Any attempt to open a connection, or to make an endpoint client, fails the test."""
    def refuse(*args, **kwargs):
        raise AssertionError(f"a network call while scoring without a judge: {args}")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    import dicobench.kit.eval.chat

    monkeypatch.setattr(dicobench.kit.eval.chat.ChatClient, "__init__", refuse)


def dico_predictions(tmp_path, failed=False):
    rows = [{"id": f"attribute-{i}", "response": "ABCD"[i]} for i in range(4)]
    rows += [{"id": f"spatial_relation-{i}", "response": "E"} for i in range(4)]
    rows += [{"id": f"instance-{i}", "response": None if failed and i == 0 else "A",
              **({"error": "APIError: boom"} if failed and i == 0 else {})} for i in range(4)]
    return write_jsonl(tmp_path / "model.jsonl", rows)


def mpv_predictions(tmp_path):
    answers = {"0": "Yes.", "1": "no idea", "2": "b) top right"}
    return write_jsonl(tmp_path / "mpv.jsonl", [{"id": f"{a}-{k}", "response": v}
                                                for a in ("original", "chessboard") for k, v in answers.items()])


def files(folder):
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


def test_dicobench_report_is_what_score_writes(dicobench_dir, tmp_path, frozen, no_network, capsys):  # noqa: F811
    preds = dico_predictions(tmp_path)
    report = dicobench.score_predictions(preds, dicobench_dir, name="m", n_boot=50)
    assert isinstance(report, Report) and report.benchmark == "dicobench" and report.complete
    assert report.completeness.bounds is None and report.completeness.unscored == 0
    assert report.provenance["name"] == "m" and report.provenance["judge"] is None
    assert [f.file for f in report.figures] == ["per_task.png", "radar.png", "error_types.png"]
    written = write_report(report, tmp_path / "lib")
    assert [p.name for p in written] == ["scores.json", "per_task.png", "radar.png", "error_types.png"]

    assert dicobench_cli(["score", str(preds), "--dataset", str(dicobench_dir), "--out", str(tmp_path / "cli"),
                      "--name", "m", "--n-boot", "50"]) == 0
    printed = capsys.readouterr().out
    cli = json.loads((tmp_path / "cli" / "scores.json").read_text())
    assert report.to_dict() == cli and report.scores["accuracy"] == pytest.approx(5 / 12)
    assert printed.startswith(report.table + "\n")
    assert files(tmp_path / "lib").keys() == files(tmp_path / "cli").keys()
    assert files(tmp_path / "lib")["scores.json"] == files(tmp_path / "cli")["scores.json"]


def test_multipanelvqa_report_is_what_score_writes(mpvqa_dir, tmp_path, frozen, no_network, capsys):  # noqa: F811
    preds = mpv_predictions(tmp_path)
    report = multipanelvqa.score_predictions(preds, mpvqa_dir, n_boot=50)
    assert report.benchmark == "multipanelvqa" and report.scores["judge"] is None
    assert report.scores["rule_undecided"] == 2 and report.scores["correct"] == 4  # no judge: counted wrong
    write_report(report, tmp_path / "lib")
    assert multipanel(["score", str(preds), "--dataset", str(mpvqa_dir), "--out", str(tmp_path / "cli"),
                       "--n-boot", "50"]) == 0
    assert capsys.readouterr().out.startswith(report.table + "\n")
    assert report.to_dict() == json.loads((tmp_path / "cli" / "scores.json").read_text())
    assert files(tmp_path / "lib").keys() == files(tmp_path / "cli").keys()
    assert files(tmp_path / "lib")["scores.json"] == files(tmp_path / "cli")["scores.json"]


def test_an_incomplete_report_carries_its_bounds_and_the_commands_line(dicobench_dir, tmp_path, frozen,  # noqa: F811
                                                                       capsys):
    preds = dico_predictions(tmp_path, failed=True)
    report = dicobench.score_predictions(preds, dicobench_dir, n_boot=20)
    assert not report.complete and report.completeness.unscored == 1
    assert report.completeness.bounds == (report.scores["accuracy_lower"], report.scores["accuracy_upper"])
    assert report.completeness.bounds == (pytest.approx(4 / 12), pytest.approx(5 / 12))
    assert dicobench_cli(["score", str(preds), "--dataset", str(dicobench_dir), "--out", str(tmp_path / "o"),
                      "--n-boot", "20"]) == 1
    err = capsys.readouterr().err
    assert err == f"dicobench: {report.completeness.message(report.scores)}\n"
    assert "1 model calls failed" in err


def test_bad_input_raises_a_user_error_before_anything_is_written(dicobench_dir, tmp_path):  # noqa: F811
    from dicobench.kit.errors import UserError

    preds = dico_predictions(tmp_path)
    with pytest.raises(UserError, match="unknown task or config 'nope'"):
        dicobench.score_predictions(preds, dicobench_dir, config="nope")
    with pytest.raises(UserError, match="unknown judge 'gpt-4o'"):
        dicobench.score_predictions(preds, dicobench_dir, judge="gpt-4o")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["model.jsonl"]
