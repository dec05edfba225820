"""Each row of a scored MultipanelVQA run, as `score` reached it: the rules' verdict
(`multipanelvqa.rules.rule_verdict`), else the judge's as `score --judge` recorded it, else wrong
(no judge: the rules could not settle it); what the rules read from the reply (Q3's letter as
`eval` reads it, else the normalised answer they compared; nothing where they could not settle it). The rows are the
ones `score` joined, in the view it scored, so the results explorer and the HTML report show what was scored
(`dicobench.kit.eval.runs`)."""

from __future__ import annotations

from dicobench.kit.errors import UserError
from dicobench.kit.eval.runs import Outcome, ScoredRun
from dicobench.kit.io.predictions import join, load_references, read_records, read_sample
from multipanelvqa.evaluation import parse
from multipanelvqa.rules import normalise, rule_verdict
from multipanelvqa.schema import QUESTION_TYPES
from multipanelvqa.views import targets_one

# Why an answer is wrong: an empty reply; the rules read a wrong answer; the rules could not settle
# it and the judge said wrong; the rules could not settle it and no judge was asked (counted wrong).
ERROR_TYPES = ("no_answer", "wrong_by_rules", "wrong_by_judge", "unsettled")


def row_outcomes(run: ScoredRun, dataset: str) -> list[Outcome]:
    """The rows of `run` scored against `dataset` (the config, split and view its scores name)."""
    scores = run.scores
    records = read_records(run.predictions)
    sample = read_sample(run.predictions)
    ref = load_references(dataset, scores["config"], scores["split"],
                          ["id", "question_type", "question", "answer", "choices", "augmentation"])
    ref["position"] = list(range(len(ref["id"])))
    ref["question_type"] = [q if isinstance(q, str) else QUESTION_TYPES[q] for q in ref["question_type"]]
    view = scores["provenance"].get("view") or "full"
    if view != "full":  # the isolation ablation asked only the questions that target one subfigure
        keep = [i for i, q in enumerate(ref["question_type"]) if targets_one(q)]
        ref = {column: [values[i] for i in keep] for column, values in ref.items()}
    ref, responses, unscored = join(records, ref, f"{dataset} ({scores['config']}/{scores['split']}, view {view})",
                                    sample, allow_partial=sample is None)
    judged = scores.get("judge_rows")
    if scores.get("judge") and judged is None:
        raise UserError(f"{run.folder} was scored with a judge before scores recorded its verdicts: score it again "
                        "(the judge's replies come from its cache)")
    rows = []
    for i, key in enumerate(ref["id"]):
        row = {column: values[i] for column, values in ref.items()}
        text, qtype, choices = responses[i], row["question_type"], row["choices"] or []
        failure = None if not unscored[i] else records[key][1] if key in records else "not answered"
        rule = None if failure else rule_verdict(text, row["answer"], qtype, choices)
        verdict, kind, judge = rule, "wrong_by_rules", None
        if not failure and not (text or "").strip():
            kind = "no_answer"
        elif not failure and rule is None:
            if judged is not None and key in judged:
                verdict, kind = judged[key], "wrong_by_judge"
                judge = {True: "right", False: "wrong", None: "unjudged"}[verdict]
            else:
                verdict, kind = False, "unsettled"
        outcome = "unscored" if failure or verdict is None else "right" if verdict else "wrong"
        read = None if rule is None else (parse(row, text) if qtype == "q3" else None) or normalise(text) or None
        rows.append(Outcome(
            id=key, position=row["position"], group=row["augmentation"] or scores["config"], answer=row["answer"],
            response=text, read=read, outcome=outcome, error_type=kind if outcome == "wrong" else None,
            unparsed=not failure and rule is None, judge=judge,
            unscored=failure or ("unjudged" if verdict is None else None),
        ))
    return rows
