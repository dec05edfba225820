"""Score DiCoBench answers: accuracy with cluster-aware CIs, per task and track, and E-option bias.

Rows built from the same base scene are correlated, so intervals resample whole clusters.
Models over-pick E ("no visible difference/commonality"), so E gets its own precision/recall;
wrong answers are split into the paper's error types (dicobench.analysis).
Rows whose model call failed are unscored: they bound the accuracy (dicobench.kit.eval.completeness).
"""

from __future__ import annotations

from typing import Hashable, Sequence

import numpy as np

from dicobench.analysis import error_types
from dicobench.error_judge import classify
from dicobench.kit.eval.completeness import bounded, completeness
from dicobench.kit.eval.extract import extract_choice
from dicobench.kit.eval.judge import Judge, as_judge
from dicobench.kit.eval.stats import cluster_bootstrap_ci
from dicobench.schema import LETTERS, TASKS, TRACKS, track_of

NONE_LETTER = LETTERS[-1]


def score(
    predictions: Sequence[str | None],
    references: Sequence[str | int],
    tasks: Sequence[str | int] | None = None,
    options: Sequence[Sequence[str]] | None = None,
    clusters: Sequence[Hashable] | None = None,
    *,
    failed: Sequence[bool] | None = None,
    judge: Judge | str | None = None,
    questions: Sequence[str] | None = None,
    cue_labels: Sequence[Sequence[str]] | None = None,
    confidence: float = 0.95,
    n_boot: int = 2000,
    seed: int = 0,
) -> dict:
    """Score free-form `predictions` against reference letters (or ClassLabel indices 0-4).

    `tasks` (names or ClassLabel indices) enables per-task and per-track results, `options`
    lets a reply that quotes an option's text be read, `clusters` (e.g. the base scene of each
    row) makes the confidence intervals account for correlated rows. `failed` marks rows whose
    model call failed (no answer to score): a result with any is incomplete.

    `judge` (a `dicobench.kit.eval.judge.Judge`, or "openai:<model>" for one with the default
    settings; with `questions`, `options` and each row's `cue_labels`) has an LLM classify every
    wrong answer into the paper's error types from its reply (meant for replies of `eval --mode
    describe`), reported as `judge_error_types` beside the rule-based `error_types`; replies are
    cached where the Judge says. Without a judge scoring sends nothing anywhere.
    """
    n = len(predictions)
    if n == 0:
        raise ValueError("no predictions to score")
    for name, values in (("references", references), ("tasks", tasks), ("options", options), ("clusters", clusters),
                         ("failed", failed), ("questions", questions), ("cue_labels", cue_labels)):
        if values is not None and len(values) != n:
            raise ValueError(f"{name} has {len(values)} entries for {n} predictions")
    judge = as_judge(judge)  # a bad spec fails before any work
    if judge and (questions is None or options is None or cue_labels is None):
        raise ValueError("judging error types needs questions, options and cue_labels")
    refs = [reference_letter(r) for r in references]
    names = [task_name(t) for t in tasks] if tasks is not None else None
    scored = np.array([not f for f in failed] if failed is not None else [True] * n, dtype=bool)
    answers = [p if ok else None for p, ok in zip(predictions, scored)]
    parsed = read_letters(answers, options)
    strict = [extract_choice(p, strict=True) for p in answers]
    correct = np.array([p == r for p, r in zip(parsed, refs)], dtype=np.float64)
    strict_correct = np.array([p == r for p, r in zip(strict, refs)], dtype=np.float64)

    def ci(values, rows):
        sub = None if clusters is None else [clusters[i] for i in rows]
        found = cluster_bootstrap_ci(values, sub, confidence=confidence, n_boot=n_boot, seed=seed)
        return list(found) if found else None

    def group(rows: list[int]) -> dict:
        return {
            "n": len(rows),
            "unscored": int((~scored[rows]).sum()),
            **bounded(correct, scored, rows, ci),
            **bounded(strict_correct, scored, rows, name="strict_accuracy", ci_name=None),
        }

    every = list(range(n))
    per_task: dict[str, dict] = {}
    per_track: dict[str, dict] = {}
    if names is not None:
        for task in TASKS:
            rows = [i for i in every if names[i] == task]
            if rows:
                per_task[task] = group(rows)
        for track in TRACKS:
            rows = [i for i in every if track_of(names[i]) == track]
            if rows:
                per_track[track] = group(rows)
    answered = int(scored.sum())
    return {
        "n": n,
        **completeness(scored),
        **bounded(correct, scored, every, ci, ci_name="accuracy_ci"),
        **bounded(strict_correct, scored, every, ci, name="strict_accuracy", ci_name="strict_accuracy_ci"),
        **_task_mean(per_task),
        "unparsed_rate": int(sum(p is None and ok for p, ok in zip(parsed, scored))) / answered if answered else None,
        **_none_option(parsed, refs),
        "error_types": error_types(parsed, refs, names, scored),
        "judge_error_types": None if not judge else classify(
            judge, [i for i in every if scored[i] and not correct[i]], questions=questions, options=options,
            references=refs, parsed=parsed, predictions=predictions, cues=cue_labels, tasks=names),
        "per_task": per_task,
        "per_track": per_track,
        "confidence": confidence,
        "ci_method": "cluster bootstrap" if clusters is not None else "bootstrap",
        "n_clusters": len(set(map(str, clusters))) if clusters is not None else n,
    }


def read_letters(predictions: Sequence[str | None],
                 options: Sequence[Sequence[str]] | None = None) -> list[str | None]:
    """The letter `score` reads from each reply (`extract_choice`, against the row's options when
    given); None where it reads none or there is no reply. The results explorer and the HTML report
    read each row's letter through it too."""
    return [extract_choice(p, options[i] if options is not None else None) for i, p in enumerate(predictions)]


def _task_mean(per_task: dict) -> dict:
    """The mean of the per-task accuracies (each task weighs the same), bounded like they are."""
    if not per_task:
        return {"task_mean_accuracy": None}
    if all("accuracy" in g for g in per_task.values()):
        return {"task_mean_accuracy": float(np.mean([g["accuracy"] for g in per_task.values()]))}
    return {f"task_mean_accuracy_{end}": float(np.mean([g.get("accuracy", g.get(f"accuracy_{end}"))
                                                         for g in per_task.values()]))
            for end in ("lower", "upper")}


def _none_option(parsed: list[str | None], refs: list[str]) -> dict:
    """How often E is chosen, and how well the choices of E match the rows whose answer is E."""
    chosen = sum(p == NONE_LETTER for p in parsed)
    actual = sum(r == NONE_LETTER for r in refs)
    hits = sum(p == r == NONE_LETTER for p, r in zip(parsed, refs))
    precision = hits / chosen if chosen else None
    recall = hits / actual if actual else None
    f1 = (2 * precision * recall / (precision + recall) if precision and recall
          else (0.0 if chosen and actual else None))
    return {
        "e_rate": chosen / len(parsed),
        "e_reference_rate": actual / len(refs),
        "e_precision": precision,
        "e_recall": recall,
        "e_f1": f1,
    }


def reference_letter(reference: str | int) -> str:
    """A reference as its letter: "A"-"E" (any case) or the `answer` ClassLabel index 0-4; else a
    ValueError naming it."""
    if isinstance(reference, (int, np.integer)) and not isinstance(reference, bool) and 0 <= reference < len(LETTERS):
        return LETTERS[reference]
    if isinstance(reference, str) and reference.strip().upper() in LETTERS:
        return reference.strip().upper()
    raise ValueError(f"reference {reference!r} is not one of {', '.join(LETTERS)} (or 0-4)")


def task_name(task: str | int) -> str:
    """A task as its name (a ClassLabel index or a name)."""
    if isinstance(task, (int, np.integer)) and not isinstance(task, bool) and 0 <= task < len(TASKS):
        return TASKS[task]
    if task in TASKS:
        return task
    raise ValueError(f"unknown task {task!r}; expected one of {', '.join(TASKS)}")
