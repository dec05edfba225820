"""DiCoBench error types (the paper's Figure 7): counts by hand, per task and overall, and the chart."""

import json
import re

from chart_capture import bar_widths, drawn  # noqa: F401 (fixture)

from dicobench.analysis import error_type
from dicobench.cli.score import register
from dicobench.kit.cli.commands import run
from dicobench.scoring import score
from tests.dicobench.test_score_cli import dicobench_dir, write_jsonl  # noqa: F401 (fixture)


def test_each_type_by_its_definition():
    assert error_type("B", "B") is None
    assert error_type("E", "B") == "missed_cue"
    assert error_type("C", "E") == "ex_nihilo"
    assert error_type("C", "A") == "wrong_option"
    assert error_type(None, "E") == "unparsed"


def test_counts_per_task_and_overall_skip_unscored_rows():
    preds = ["E", "B", "I'm sorry, I cannot tell.", "A", "A", "E", "C", None]
    refs = ["A", "E", "C", "A", "B", "E", "D", "D"]
    tasks = ["attribute", "attribute", "attribute", "attribute", "instance", "instance", "instance", "instance"]
    r = score(preds, refs, tasks, failed=[False] * 7 + [True], n_boot=10)
    assert r["error_types"]["per_task"]["attribute"] == {"missed_cue": 1, "ex_nihilo": 1, "wrong_option": 0,
                                                          "unparsed": 1, "errors": 3}
    assert r["error_types"]["per_task"]["instance"] == {"missed_cue": 0, "ex_nihilo": 0, "wrong_option": 2,
                                                         "unparsed": 0, "errors": 2}  # the failed row is unscored
    assert r["error_types"]["overall"] == {"missed_cue": 1, "ex_nihilo": 1, "wrong_option": 2, "unparsed": 1,
                                           "errors": 5}


def svg_texts(path):
    return re.findall(r"<text[^>]*>([^<]*)</text>", path.read_text())


def test_score_writes_error_types_and_their_chart(dicobench_dir, tmp_path, capsys, drawn):  # noqa: F811
    # answers per task are A, B, C, D (fixture). attribute: E, E, C, A -> 2 missed cues, 1 wrong option;
    # spatial_relation: all right; instance: one unreadable reply, three right.
    answers = {"attribute": ["E", "E", "C", "A"], "spatial_relation": list("ABCD"),
               "instance": ["I cannot tell", "B", "C", "D"]}
    preds = write_jsonl(tmp_path / "p.jsonl", [{"id": f"{t}-{i}", "response": r} for t, rs in answers.items()
                                               for i, r in enumerate(rs)])
    out = tmp_path / "o"
    assert run("dicobench", "t", [register], ["score", str(preds), "--dataset", str(dicobench_dir), "--out", str(out),
                                              "--n-boot", "20"]) == 0
    report = json.loads((out / "scores.json").read_text())["error_types"]
    assert report["overall"] == {"missed_cue": 2, "ex_nihilo": 0, "wrong_option": 1, "unparsed": 1, "errors": 4}
    assert report["per_task"]["attribute"]["missed_cue"] == 2 and report["per_task"]["instance"]["unparsed"] == 1
    assert report["per_task"]["spatial_relation"]["errors"] == 0
    assert "errors: 4 (missed cue 2, ex nihilo 0, wrong option 1, unparsed 1)" in capsys.readouterr().out
    texts = svg_texts(out / "error_types.svg")
    # bars: attribute (n=3: 67% missed cue, 33% wrong option), instance (n=1: 100% unparsed), overall (n=4)
    assert {"n=3", "n=1", "n=4"} <= set(texts) and "n=0" not in texts
    assert {"67", "33", "100", "50", "25"} <= set(texts)
    assert (out / "error_types.png").read_bytes()[:4] == b"\x89PNG"
    # shares of missed_cue, ex_nihilo, wrong_option, unparsed: attribute, instance, overall
    assert bar_widths(drawn["error_types"]) == [66.7, 0.0, 33.3, 0.0, 0.0, 0.0, 0.0, 100.0, 50.0, 0.0, 25.0, 25.0]
