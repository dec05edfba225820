"""Each row of a scored DiCoBench run, as `score` reached it: the letter read from the reply
(`dicobench.scoring.read_letters`), right or wrong, the error type (`dicobench.analysis`) and the
judge's type where `score --judge` classified the error. The rows are the ones `score` joined
(`dicobench.kit.io.predictions.join`), so the results explorer and the HTML report show what
was scored (`dicobench.kit.eval.runs`)."""

from __future__ import annotations

from dicobench.analysis import error_type
from dicobench.kit.eval.runs import Outcome, ScoredRun
from dicobench.kit.io.predictions import join, load_references, read_records, read_sample
from dicobench.scoring import read_letters, reference_letter, task_name


def row_outcomes(run: ScoredRun, dataset: str) -> list[Outcome]:
    """The rows of `run` scored against `dataset` (the config and split its scores name)."""
    scores = run.scores
    records = read_records(run.predictions)
    sample = read_sample(run.predictions)
    ref = load_references(dataset, scores["config"], scores["split"], ["id", "task", "answer", "options"])
    ref["position"] = list(range(len(ref["id"])))
    ref, responses, unscored = join(records, ref, f"{dataset} ({scores['config']}/{scores['split']})", sample,
                                    allow_partial=sample is None)
    answers = [None if failed else text for text, failed in zip(responses, unscored)]
    letters = read_letters(answers, ref["options"])
    judged = (scores.get("judge_error_types") or {}).get("rows") or {}
    rows = []
    for i, key in enumerate(ref["id"]):
        right, letter = reference_letter(ref["answer"][i]), letters[i]
        kind = None if unscored[i] else error_type(letter, right)
        rows.append(Outcome(
            id=key, position=ref["position"][i], group=task_name(ref["task"][i]), answer=right,
            response=responses[i], read=letter,
            outcome="unscored" if unscored[i] else "wrong" if kind else "right", error_type=kind,
            unparsed=not unscored[i] and letter is None,
            judge=(judged[key] or "unjudged") if key in judged else None,
            unscored=None if not unscored[i] else records[key][1] if key in records else "not answered",
        ))
    return rows
