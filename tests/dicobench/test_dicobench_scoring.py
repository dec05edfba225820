"""DiCoBench scoring: accuracies, E-option statistics, and intervals that respect clusters."""

import sys

import numpy as np
import pytest

from dicobench.kit.eval.stats import cluster_bootstrap_ci
from dicobench.scoring import score

OPTIONS = ["red cup", "blue lamp", "green clock", "a dog", "There is no visible difference between the two images"]


def test_accuracy_strict_and_unparsed():
    preds = ["B", "The answer is (C).", "I can't tell.", "e", "There is no visible difference between the two images"]
    refs = ["B", "C", "A", "E", "E"]
    r = score(preds, refs, options=[OPTIONS] * 5)
    assert r["n"] == 5
    assert r["accuracy"] == pytest.approx(4 / 5)
    assert r["strict_accuracy"] == pytest.approx(2 / 5)  # only "B" and "e" are bare letters
    assert r["unparsed_rate"] == pytest.approx(1 / 5)
    assert r["accuracy_ci"][0] <= r["accuracy"] <= r["accuracy_ci"][1]


def test_references_as_classlabel_indices_and_tasks_as_indices():
    r = score(["A", "E", "C"], [0, 4, 1], tasks=[0, 4, 4])
    assert r["accuracy"] == pytest.approx(2 / 3)
    assert r["per_task"]["attribute"]["accuracy"] == 1.0
    assert r["per_task"]["instance"] == {**r["per_task"]["instance"], "n": 2, "accuracy": 0.5}
    assert set(r["per_track"]) == {"difference", "commonality"}
    assert r["task_mean_accuracy"] == pytest.approx(0.75)


def test_e_option_statistics():
    preds = ["E", "E", "E", "A", "B"]
    refs = ["E", "A", "B", "E", "B"]
    r = score(preds, refs)
    assert r["e_rate"] == pytest.approx(3 / 5)
    assert r["e_reference_rate"] == pytest.approx(2 / 5)
    assert r["e_precision"] == pytest.approx(1 / 3)
    assert r["e_recall"] == pytest.approx(1 / 2)
    assert r["e_f1"] == pytest.approx(2 * (1 / 3) * (1 / 2) / (1 / 3 + 1 / 2))


def test_e_statistics_undefined_without_e():
    r = score(["A"], ["B"])
    assert r["e_precision"] is None and r["e_recall"] is None and r["e_f1"] is None


def test_per_track_groups_tasks():
    tasks = ["attribute", "entity", "instance", "category"]
    r = score(["A", "A", "A", "B"], ["A", "A", "A", "A"], tasks=tasks)
    assert r["per_track"]["difference"]["accuracy"] == 1.0
    assert r["per_track"]["commonality"]["accuracy"] == 0.5


@pytest.mark.parametrize(
    "kwargs,message",
    [
        ({"references": ["A"]}, "references has 1 entries"),
        ({"tasks": ["attribute", "nope"]}, "unknown task 'nope'"),
        ({"references": ["A", "F"]}, "reference 'F'"),
        ({"clusters": [1]}, "clusters has 1"),
    ],
)
def test_bad_input(kwargs, message):
    args = {"predictions": ["A", "B"], "references": ["A", "B"], **kwargs}
    with pytest.raises(ValueError, match=message):
        score(**args)


def test_cluster_bootstrap_is_wider_for_correlated_rows():
    # 20 scenes, 10 rows each, all rows of a scene right or wrong together.
    clusters = np.repeat(np.arange(20), 10)
    values = (clusters % 2).astype(float)
    rows_ci = cluster_bootstrap_ci(values, None, seed=1)
    cluster_ci = cluster_bootstrap_ci(values, clusters, seed=1)
    assert cluster_ci[1] - cluster_ci[0] > 2 * (rows_ci[1] - rows_ci[0])
    assert cluster_ci[0] < 0.5 < cluster_ci[1]


def test_bootstrap_is_deterministic_and_covers_the_mean():
    rng = np.random.default_rng(0)
    values = rng.random(300) < 0.3
    a = cluster_bootstrap_ci(values, seed=0)
    assert a == cluster_bootstrap_ci(values, seed=0)
    assert a[0] < values.mean() < a[1]
    assert cluster_bootstrap_ci([], None) is None


def test_score_reports_cluster_method():
    r = score(["A"] * 4, ["A", "A", "B", "B"], clusters=["s1", "s1", "s2", "s2"])
    assert r["ci_method"] == "cluster bootstrap" and r["n_clusters"] == 2
    assert r["accuracy_ci"] == [0.0, 1.0]  # two perfectly correlated scenes: the mean is 0 or 1 when resampled


def test_a_long_bootstrap_shows_a_progress_bar_on_a_terminal(capsys, monkeypatch):
    values = np.random.default_rng(0).random(5000) > 0.5  # 5000 clusters x 2000 resamples: three chunks
    short = cluster_bootstrap_ci(values[:50], seed=0)
    assert "bootstrap" not in capsys.readouterr().err
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    assert cluster_bootstrap_ci(values[:50], seed=0) == short
    assert "bootstrap" not in capsys.readouterr().err  # one chunk: too short for a bar
    cluster_bootstrap_ci(values, seed=0)
    assert "bootstrap (5000 clusters)" in capsys.readouterr().err
