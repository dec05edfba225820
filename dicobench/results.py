"""`dicobench.score_predictions`: a predictions file scored against a DiCoBench dataset, as a Report.

What `dicobench score` writes and prints, without a command line: the scores.json dict (with its
provenance), the per-task table, the charts' data (per task, the radar, the error types) and why
the result is incomplete, if it is (dicobench.kit.eval.report). Scoring with `judge=None` sends
nothing anywhere; a `Judge` (dicobench.kit.eval.judge) adds the error analysis of wrong answers.
"""

from __future__ import annotations

from pathlib import Path

from dicobench.analysis import ERROR_TYPES
from dicobench.error_judge import JUDGE_TYPES
from dicobench.kit.errors import UserError
from dicobench.kit.eval import provenance
from dicobench.kit.eval.completeness import PARTIAL_REMEDY, format_value, interval, partial_reason, percent, text_table
from dicobench.kit.eval.judge import Judge, as_judge
from dicobench.kit.eval.report import Completeness, Figure, Report
from dicobench.kit.io.predictions import join, limited, load_references, read_records, read_sample
from dicobench.kit.people import study_scores as study
from dicobench.schema import CONFIG_COLUMN, CONFIGS, TASKS
from dicobench.scoring import score

# Columns that can group rows built from the same base scene, in order of preference.
CLUSTER_COLUMNS = ("source",)
RETRY_REMEDY = "rerun eval with the same --out: it keeps the answered rows and asks only these"


def score_predictions(predictions: str | Path, dataset: str | Path, *, config: str = "all", split: str = "test",
                      name: str | None = None, model: str | None = None, cluster_by: str = "auto",
                      judge: Judge | str | None = None, n_boot: int = 2000, limit: int | None = None,
                      allow_partial: bool = False, selection: int | None = None) -> Report:
    """Score the JSON Lines file `predictions` (one {"id", "response"} per row) against `dataset`'s
    `config`/`split`: the Report `dicobench score` writes (`write_report`) and prints.

    `name` is the run's name on charts and leaderboards (default: the file's stem); `model` its
    id (default: from the run.json `eval` wrote beside the file). `cluster_by` is the column
    grouping correlated rows for the CIs ("auto": the base scene's source; "none"). `limit` N:
    the predictions answer the first N rows of each task (`eval --limit N`, lmms-eval's `--limit
    N`); the other rows are unscored, bounds over the split. `selection` N scores only those rows,
    as a selection of their own (what `eval --limit N` writes; by default the one the run.json
    beside the file records). Both are recorded as `limit`.
    `allow_partial` scores predictions of some rows only. Bad input raises UserError."""
    predictions = Path(predictions)
    if config not in CONFIGS:
        raise UserError(f"unknown task or config {config!r}; expected one of {', '.join(CONFIGS)}")
    judge = as_judge(judge)
    records = read_records(predictions)
    wanted = ["id", "task", "answer", "options", *CLUSTER_COLUMNS] + (["question", "cues"] if judge else [])
    if cluster_by not in ("auto", "none"):
        wanted.append(cluster_by)
    ref = load_references(dataset, config, split, wanted)
    for column in ("id", "task", "answer"):
        if column not in ref:
            raise UserError(f"dataset {dataset} has no {column!r} column: is it a DiCoBench dataset?")
    cluster_by = _cluster_column(cluster_by, ref)
    settings = provenance.run_settings(predictions)
    provenance.check_rows(settings, str(dataset), config, split)
    if selection is None and limit is None and not allow_partial:
        selection = provenance.run_limit(settings, config, split)
    ref = limited(ref, CONFIG_COLUMN, limit, selection)
    sample = read_sample(predictions)
    ref, responses, unscored = join(records, ref, f"{dataset} ({config}/{split})", sample, limit=limit,
                                    allow_partial=allow_partial, configs=ref[CONFIG_COLUMN])
    missing = 0 if sample is not None else sum(i not in records for i in ref["id"])
    try:
        result = score(responses, ref["answer"], ref["task"], ref.get("options"),
                       ref[cluster_by] if cluster_by else None, failed=unscored, judge=judge,
                       questions=ref.get("question"),
                       cue_labels=[[c["label"] for c in cues] for cues in ref["cues"]] if judge else None,
                       n_boot=n_boot)
    except ValueError as exc:
        raise UserError(str(exc)) from None
    if result["judge_error_types"]:  # each judged row by its id, for the results explorer and the report
        result["judge_error_types"]["rows"] = {ref["id"][i]: t for i, t in result["judge_error_types"]["rows"].items()}
    name = name or predictions.stem
    made = provenance.record(
        model=model or settings.get("model") or study.model(sample), name=name, dataset=str(dataset), config=config,
        split=split, view=settings.get("view", "full"), prompt_hash=settings.get("prompt_hash"),
        judge=judge.spec if judge else None, seed=0, n_boot=n_boot, rows={c: ref[c] for c in ("id", "task", "answer")},
    )
    scores = {"benchmark": "dicobench", "predictions": str(predictions), "dataset": str(dataset), "config": config,
              "split": split, **({"limit": limit or selection} if limit or selection else {}),
              "cluster_by": cluster_by, "mode": settings.get("mode"), **result,
              **({"missing": missing} if missing else {}), **study.about(sample), "provenance": made}
    return Report("dicobench", scores, format_table(result), figures(result, name),
                  _completeness(scores, missing, sample is not None))


def _completeness(scores: dict, missing: int, study_session: bool) -> Completeness:
    """Why rows are unscored and what to do, as the score command says it."""
    if study_session:
        return Completeness.of(scores, *study.UNFINISHED)
    failed = scores.get("unscored", 0) - missing
    reasons = "; ".join(filter(None, [partial_reason(missing), failed and f"{failed} model calls failed; the errors "
                                                                       "are in the predictions file"]))
    return Completeness.of(scores, reasons, RETRY_REMEDY if failed else PARTIAL_REMEDY)


def figures(result: dict, name: str) -> tuple[Figure, ...]:
    """The charts of one run: accuracy per task, the radar (three tasks or more), the error types
    (when there are errors) and the judge's error types (when it named any)."""
    found = [Figure("per_task.png", "bars", result["per_task"], (f"DiCoBench: {name}",))]
    if len(result["per_task"]) >= 3:
        found.append(Figure("radar.png", "radar", {name: result["per_task"]}, ("DiCoBench accuracy by task",)))
    errors = result["error_types"]
    if errors["overall"]["errors"]:
        found.append(Figure("error_types.png", "stacked_shares", {**errors["per_task"], "overall": errors["overall"]},
                            (ERROR_TYPES, f"DiCoBench error types: {name}")))
    judged = result["judge_error_types"]
    if judged and any(judged["overall"][k] for k in JUDGE_TYPES):
        found.append(Figure("judge_error_types.png", "stacked_shares",
                            {**judged["per_task"], "overall": judged["overall"]},
                            (JUDGE_TYPES, f"DiCoBench error types by {judged['judge']}: {name}")))
    return tuple(found)


def _cluster_column(choice: str, ref: dict) -> str | None:
    if choice == "none":
        return None
    if choice == "auto":
        return next((c for c in CLUSTER_COLUMNS if c in ref), None)
    if choice not in ref:
        raise UserError(f"--cluster-by {choice!r}: the dataset has no such column")
    return choice


def format_table(result: dict) -> str:
    """The table `score` prints: `table_rows` aligned, then `table_notes`."""
    return "\n".join(text_table(table_rows(result), result) + table_notes(result))


def table_rows(result: dict) -> list[tuple[str, ...]]:
    """The per-task table (a header, then a row per task, per track and overall), as text cells."""
    rows = [("task", "n", "acc %", f"{round(100 * result['confidence'])}% CI", "strict %")]
    for task in TASKS:
        g = result["per_task"].get(task)
        if g:
            rows.append((task, str(g["n"]), format_value(g), interval(g["ci"]), format_value(g, "strict_accuracy")))
    for track, g in result["per_track"].items():
        rows.append((f"{track} track", str(g["n"]), format_value(g), interval(g["ci"]),
                     format_value(g, "strict_accuracy")))
    rows.append(("overall", str(result["n"]), format_value(result), interval(result["accuracy_ci"]),
                 format_value(result, "strict_accuracy")))
    return rows


def table_notes(result: dict) -> list[str]:
    """The lines under the table: the E option's use, the CI method and the error types."""
    lines = []
    lines.append(
        f"unparsed {percent(result['unparsed_rate'])}%  E chosen {percent(result['e_rate'])}% "
        f"(answer E {percent(result['e_reference_rate'])}%)  E precision {percent(result['e_precision'])}% "
        f"recall {percent(result['e_recall'])}% F1 {percent(result['e_f1'])}%  CIs: {result['ci_method']}, "
        f"{result['n_clusters']} clusters"
    )
    errors = result["error_types"]["overall"]
    lines.append(f"errors: {errors['errors']} (" + ", ".join(f"{k.replace('_', ' ')} {errors[k]}" for k in ERROR_TYPES)
                 + ")")
    judged = result.get("judge_error_types")
    if judged:
        j = judged["overall"]
        lines.append(f"judge {judged['judge']}: " + ", ".join(f"{k.replace('_', ' ')} {j[k]}" for k in JUDGE_TYPES)
                     + f"; {j['unjudged']} unjudged (rerun to retry them: judged ones come from the cache)")
    return lines
