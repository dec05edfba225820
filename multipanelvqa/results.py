"""`multipanelvqa.score_predictions`: a predictions file scored against a MultipanelVQA dataset, as a Report.

What `multipanelvqa score` writes and prints, without a command line: the scores.json dict (with
its provenance), the table, the charts' data (per question type, augmentation, number of
subfigures, the interference factors) and why the result is incomplete, if it is
(dicobench.kit.eval.report). Rules alone with `judge=None`, which sends nothing anywhere; a
`Judge` (dicobench.kit.eval.judge) settles what the rules cannot.
"""

from __future__ import annotations

from pathlib import Path
from typing import Sequence

from dicobench.kit.errors import UserError
from dicobench.kit.eval import provenance
from dicobench.kit.eval.completeness import PARTIAL_REMEDY, format_value, interval, partial_reason, percent, text_table
from dicobench.kit.eval.judge import Judge, as_judge
from dicobench.kit.eval.report import Completeness, Figure, Report
from dicobench.kit.io.predictions import join, limited, load_references, read_records, read_sample, texts
from dicobench.kit.people import study_scores as study
from multipanelvqa.schema import CONFIG_COLUMN, QUESTION_TYPES
from multipanelvqa.scoring import decide, score
from multipanelvqa.singles import controlled
from multipanelvqa.views import targets_one


def score_predictions(predictions: str | Path, dataset: str | Path, *, config: str = "all", split: str = "test",
                      name: str | None = None, model: str | None = None, cluster_by: str = "none",
                      judge: Judge | str | None = None, view: str | None = None,
                      require_singles: str | Path | None = None, factors: Sequence[str] | None = None,
                      n_boot: int = 2000, limit: int | None = None, allow_partial: bool = False,
                      selection: int | None = None) -> Report:
    """Score the JSON Lines file `predictions` (one {"id", "response"} per row) against `dataset`'s
    `config`/`split`: the Report `multipanelvqa score` writes (`write_report`) and prints.

    `name`, `model`, `limit`, `selection` and `allow_partial` work as in `dicobench.score_predictions`
    (a config is an augmentation, or real_world);
    `cluster_by` is a column grouping correlated rows for the CIs ("none" by default). `view` is
    the eval view the answers were given in (default: from run.json beside the file, else full);
    `require_singles` the predictions of `eval --view single` for the paper's singles control;
    `factors` the interference factors to compare (default: all present). Bad input raises UserError."""
    predictions = Path(predictions)
    judge = as_judge(judge)
    records = read_records(predictions)
    wanted = ["id", "question_type", "question", "answer", "choices", "subset", "augmentation", "layout_style",
              "num_subfigures", "source"]
    if cluster_by != "none":
        wanted.append(cluster_by)
    ref = load_references(dataset, config, split, wanted)
    for column in ("id", "question_type", "question", "answer"):
        if column not in ref:
            raise UserError(f"dataset {dataset} has no {column!r} column: is it a MultipanelVQA dataset?")
    if cluster_by != "none" and cluster_by not in ref:
        raise UserError(f"--cluster-by {cluster_by!r}: the dataset has no such column")
    settings = provenance.run_settings(predictions)
    provenance.check_rows(settings, str(dataset), config, split)
    if selection is None and limit is None and not allow_partial:
        selection = provenance.run_limit(settings, config, split)
    ref = limited(ref, CONFIG_COLUMN, limit, selection)
    view = view or settings.get("view") or "full"
    if view != "full":  # the isolation ablation asked only the questions that target one subfigure
        keep = [i for i, q in enumerate(ref["question_type"]) if targets_one(_qtype(q))]
        ref = {column: [values[i] for i in keep] for column, values in ref.items()}
    sample = read_sample(predictions)
    ref, responses, unscored = join(records, ref, f"{dataset} ({config}/{split}, view {view})", sample,
                                    limit=limit, allow_partial=allow_partial, configs=ref.get(CONFIG_COLUMN))
    missing = 0 if sample is not None else sum(i not in records for i in ref["id"])
    try:
        kept = _controlled(Path(require_singles), ref, judge, f"{dataset} ({config}/{split})") \
            if require_singles else None
        result = score(
            responses, ref["answer"], ref["question"], ref["question_type"], judge, choices=ref.get("choices"),
            augmentations=ref.get("augmentation"), subsets=ref.get("subset"),
            clusters=ref[cluster_by] if cluster_by != "none" else None, failed=unscored, ids=ref["id"],
            layout_styles=ref.get("layout_style"), num_subfigures=ref.get("num_subfigures"),
            sources=ref.get("source"), factors=list(factors) if factors else None, controlled=kept, n_boot=n_boot,
        )
    except ValueError as exc:
        raise UserError(str(exc)) from None
    result["judge_rows"] = {ref["id"][i]: v for i, v in result["judge_rows"].items()}  # judged rows by id
    name = name or predictions.stem
    made = provenance.record(
        model=model or settings.get("model") or study.model(sample), name=name, dataset=str(dataset), config=config,
        split=split, view=view, prompt_hash=settings.get("prompt_hash"), judge=judge.spec if judge else None, seed=0,
        n_boot=n_boot, rows={c: ref[c] for c in ("id", "question_type", "question", "answer")},
    )
    scores = {"benchmark": "multipanelvqa", "predictions": str(predictions), "dataset": str(dataset),
              "config": config, "split": split, **({"limit": limit or selection} if limit or selection else {}),
              **result, **({"missing": missing} if missing else {}),
              **study.about(sample), "provenance": made}
    return Report("multipanelvqa", scores, format_table(result), figures(result, name),
                  _completeness(scores, missing, sample is not None))


def _completeness(scores: dict, missing: int, study_session: bool) -> Completeness:
    """Why rows are unscored and what to do, as the score command says it."""
    unanswered, remedy = (study.UNFINISHED if study_session else
                          ("model calls failed", "failed model calls: rerun eval with the same --out"))
    failed = scores["failed"] - missing
    reasons = ", ".join(part for part in (f"{scores['unjudged']} unjudged" if scores["unjudged"] else "",
                                          f"{failed} {unanswered}" if failed else "", partial_reason(missing)) if part)
    if not (scores["unjudged"] or failed):
        return Completeness.of(scores, reasons, PARTIAL_REMEDY)
    return Completeness.of(scores, reasons, "rerun the same command to resume: judged rows come from the cache "
                                            f"({remedy})")


def figures(result: dict, name: str) -> tuple[Figure, ...]:
    """The charts of one run: by question type, by augmentation, by number of subfigures (more
    than one count) and the interference factors (when compared)."""
    found = [Figure("per_question_type.png", "bars", result["per_question_type"], ("MultipanelVQA by question type",))]
    if result["per_augmentation"]:
        found.append(Figure("per_augmentation.png", "bars", result["per_augmentation"],
                            ("MultipanelVQA by augmentation",)))
    if len(result["per_num_subfigures"]) > 1:
        found.append(Figure("per_num_subfigures.png", "lines", {name: result["per_num_subfigures"]},
                            ("MultipanelVQA by number of subfigures",), {"xlabel": "subfigures"}))
    if result["factors"]:
        found.append(Figure("factors.png", "deltas", {name: {f["factor"]: f for f in result["factors"]}},
                            ("MultipanelVQA interference factors",)))
    return tuple(found)


def _controlled(singles_path: Path, ref: dict, judge: Judge | None, where: str) -> list[bool]:
    """The rows kept by the singles control; singles of rows outside these Q2 questions are refused."""
    singles = read_records(singles_path)
    index = {key: i for i, key in enumerate(ref["id"])}
    outside = [key for key in singles if key not in index or _qtype(ref["question_type"][index[key]]) != "q2"]
    if outside:
        raise UserError(f"--require-singles {singles_path}: {len(outside)} answers are not of Q2 questions of "
                        f"{where}, e.g. {outside[0]!r}: give `eval --view single` predictions of the same dataset")
    rows = [index[key] for key in singles]
    verdicts = decide(list(texts(singles).values()), [ref["answer"][i] for i in rows],
                      [ref["question"][i] for i in rows], ["q2"] * len(rows), judge,
                      failed=[singles[k][1] is not None for k in singles])
    augs = ref.get("augmentation") or [""] * len(ref["id"])
    return controlled(ref["id"], augs, list(singles), [augs[i] for i in rows], verdicts)


def _qtype(value) -> str:
    return QUESTION_TYPES[value] if isinstance(value, int) else value


def format_table(result: dict) -> str:
    """The table `score` prints: `table_rows` aligned, then `table_notes`."""
    return "\n".join(text_table(table_rows(result), result) + table_notes(result))


def table_rows(result: dict) -> list[tuple[str, ...]]:
    """The table (a header, then a row per question type, subset, augmentation, layout style, number
    of subfigures and source, the controlled rows, overall), as text cells."""
    rows = [("group", "n", "scored", "acc %", f"{round(100 * result['confidence'])}% CI")]
    sections = (("", result["per_question_type"]), ("subset ", result["per_subset"]),
                ("augmentation ", result["per_augmentation"]), ("layout ", result["per_layout_style"]),
                ("subfigures ", result["per_num_subfigures"]), ("source ", result["per_source"]))
    for prefix, groups in sections:
        for key, g in groups.items():
            rows.append((prefix + key, str(g["n"]), str(g["scored"]), format_value(g), interval(g["ci"])))
    if result.get("controlled"):
        g = result["controlled"]
        rows.append(("controlled (singles right)", str(g["n"]), str(g["scored"]), format_value(g), interval(g["ci"])))
    rows.append(("overall", str(result["n"]), str(result["scored"]), format_value(result),
                 interval(result["accuracy_ci"])))
    return rows


def table_notes(result: dict) -> list[str]:
    """The lines under the table: rules and judge, the interference factors, the judge's tokens."""
    lines = []
    judge = result["judge"] or "none (rules only)"
    lines.append(
        f"rules: {result['rule_correct']} correct, {result['rule_wrong']} wrong, {result['rule_undecided']} "
        f"undecided; judge {judge}: {result['judged']} judged, {result['unjudged']} unjudged (unscored)"
    )
    for f in result["factors"]:
        ci = interval(f["delta_ci"])
        lines.append(f"factor {f['factor']}: {f['base']} {percent(f['base_accuracy'])}% -> {f['variant']} "
                     f"{percent(f['variant_accuracy'])}% (delta {percent(f['delta'])} points {ci}, n={f['n']}"
                     + (", paired)" if f["paired"] else ", unpaired)")
                     + (f" ({f['unscored']} unscored pairs left out)" if f["unscored"] else ""))
    if result["judge_usage"]:
        u = result["judge_usage"]
        lines.append(f"judge tokens: {u['prompt_tokens']} prompt, {u['completion_tokens']} completion; "
                     f"{u['requests']} requests, {u['cache_hits']} from cache")
    return lines
