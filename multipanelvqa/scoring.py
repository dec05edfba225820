"""Score MultipanelVQA answers: rules first, then (optionally) the paper's LLM judge on the rest.

Rules settle what they can read for certain: a normalised exact match, a yes/no, a choice a-d,
a number (digits or words). A reply the rules cannot settle goes to the judge when one is
given, with the two prompts of the paper's Appendix D (Table 6); without a judge it counts as
wrong. A judge that fails (API error, or a reply that is neither yes nor no) leaves the row
unjudged, and a failed model call leaves it unanswered: either is unscored, never counted wrong
nor left out; a result with unscored rows is incomplete and reports accuracy bounds
(dicobench.kit.eval.completeness). Accuracy is per question, not per image.
"""

from __future__ import annotations

from typing import Hashable, Sequence

import numpy as np

from dicobench.kit.eval.completeness import bounded, completeness
from dicobench.kit.eval.judge import Judge, as_judge
from dicobench.kit.eval.stats import cluster_bootstrap_ci
from multipanelvqa.factors import check_names as check_factor_names
from multipanelvqa.factors import factors as compare_factors
from multipanelvqa.rules import PROMPT_ANSWER, judge_prompt, judge_verdict, normalise, rule_verdict  # noqa: F401 (re-exported)
from multipanelvqa.schema import LAYOUT_STYLES

QUESTION_TYPES = ("q1", "q2", "q3")
SUBSETS = ("synthetic", "real_world")


def score(
    predictions: Sequence[str | None],
    references: Sequence[str],
    questions: Sequence[str],
    question_types: Sequence[str | int],
    judge: Judge | str | None = None,
    *,
    choices: Sequence[Sequence[str]] | None = None,
    augmentations: Sequence[str] | None = None,
    subsets: Sequence[str | int] | None = None,
    clusters: Sequence[Hashable] | None = None,
    failed: Sequence[bool] | None = None,
    ids: Sequence[str] | None = None,
    layout_styles: Sequence[str | int] | None = None,
    num_subfigures: Sequence[int] | None = None,
    sources: Sequence[str] | None = None,
    factors: Sequence[str] | None = None,
    controlled: Sequence[bool] | None = None,
    confidence: float = 0.95,
    n_boot: int = 2000,
    seed: int = 0,
) -> dict:
    """Accuracy overall, per question type, per augmentation and subset when given.

    `judge` (a `dicobench.kit.eval.judge.Judge`: any OpenAI-compatible endpoint, or "openai:<model>"
    for one with the default settings) judges the rule mismatches, its replies cached where the
    Judge says so that a rerun sends nothing; without a judge scoring sends nothing anywhere.
    `failed` marks rows whose model call failed. Rows left unjudged or failed make the result
    incomplete (`complete: false`, `unscored`, `accuracy_lower`/`accuracy_upper`). `judge_rows` maps
    the position of each row the judge was asked about to its verdict (None: unjudged).

    `layout_styles`, `num_subfigures` and `sources` add the per-group accuracies of the paper's
    analyses; with `ids` and `augmentations` (and `layout_styles`) the interference factors of its
    Tables 3 and 4 are compared (multipanelvqa.factors): every factor whose splits are present,
    or those named in `factors` (then each must be present). `controlled` marks the rows kept by
    the paper's control (their subfigures answered right alone): adds `controlled`, their accuracy.
    """
    n = len(predictions)
    if n == 0:
        raise ValueError("no predictions to score")
    inputs = (("references", references), ("questions", questions), ("question_types", question_types),
              ("choices", choices), ("augmentations", augmentations), ("subsets", subsets), ("clusters", clusters),
              ("failed", failed), ("ids", ids), ("layout_styles", layout_styles), ("num_subfigures", num_subfigures),
              ("sources", sources), ("controlled", controlled))
    for name, values in inputs:
        if values is not None and len(values) != n:
            raise ValueError(f"{name} has {len(values)} entries for {n} predictions")
    judge = as_judge(judge)  # a bad spec fails before any work, even when nothing needs judging
    qtypes = [_label(q, QUESTION_TYPES, "question type") for q in question_types]
    subset_names = [_label(s, SUBSETS, "subset") for s in subsets] if subsets is not None else None
    styles = [_label(s, LAYOUT_STYLES, "layout style") for s in layout_styles] if layout_styles is not None else None
    check_factor_names(factors)  # before any judge request
    row_choices = [list(c) for c in choices] if choices is not None else [[] for _ in range(n)]

    answered = [not f for f in failed] if failed is not None else [True] * n
    verdicts, counts = _decide(predictions, references, questions, qtypes, row_choices, answered, judge)
    scored = np.array([v is not None for v in verdicts])
    correct = np.array([v is True for v in verdicts], dtype=np.float64)

    def ci(values, rows):
        sub = None if clusters is None else [clusters[i] for i in rows]
        found = cluster_bootstrap_ci(values, sub, confidence=confidence, n_boot=n_boot, seed=seed)
        return list(found) if found else None

    def group(rows: list[int]) -> dict:
        return {"n": len(rows), "scored": int(scored[rows].sum()), **bounded(correct, scored, rows, ci)}

    def by(labels: Sequence[str | None] | None, order: Sequence[str] = ()) -> dict:
        """A group per label (rows labelled None belong to none), in `order`, then sorted."""
        if labels is None:
            return {}
        present = set(labels) - {None}
        keys = [k for k in order if k in present] + sorted(present - set(order))
        return {k: group([i for i in range(n) if labels[i] == k]) for k in keys}

    panels = [str(int(k)) for k in num_subfigures] if num_subfigures is not None else None
    augs = list(augmentations) if augmentations is not None else None
    overall = group(list(range(n)))
    overall["accuracy_ci"] = overall.pop("ci")
    return {
        **overall,
        **completeness(scored),
        "failed": n - sum(answered),
        "correct": int(correct.sum()),
        **counts,
        "controlled": None if controlled is None else group([i for i in range(n) if controlled[i]]),
        "per_question_type": by(qtypes, QUESTION_TYPES),
        "per_augmentation": by(augs),
        "per_subset": by(subset_names, SUBSETS),
        "per_subset_question_type": {} if subset_names is None else {
            sub: by([q if subset_names[i] == sub else None for i, q in enumerate(qtypes)], QUESTION_TYPES)
            for sub in by(subset_names, SUBSETS)},
        "per_layout_style": by(styles, LAYOUT_STYLES),
        "per_num_subfigures": by(panels, sorted(set(panels or ()), key=int)),
        "per_source": by(list(sources) if sources is not None else None),
        "factors": compare_factors(correct, scored, qtypes, augmentations=augs, layout_styles=styles, ids=ids,
                                   wanted=factors, confidence=confidence, n_boot=n_boot, seed=seed),
        "confidence": confidence,
        "ci_method": "cluster bootstrap" if clusters is not None else "bootstrap",
    }


def decide(predictions: Sequence[str | None], references: Sequence[str], questions: Sequence[str],
           question_types: Sequence[str | int], judge: Judge | str | None = None, *,
           choices: Sequence[Sequence[str]] | None = None, failed: Sequence[bool] | None = None) -> list[bool | None]:
    """Each row's verdict as `score` reaches it: True or False, None when unscored (the judge or the
    model call failed)."""
    n = len(predictions)
    qtypes = [_label(q, QUESTION_TYPES, "question type") for q in question_types]
    row_choices = [list(c) for c in choices] if choices is not None else [[] for _ in range(n)]
    answered = [not f for f in failed] if failed is not None else [True] * n
    return _decide(predictions, references, questions, qtypes, row_choices, answered, as_judge(judge))[0]


def _decide(predictions, references, questions, qtypes, row_choices, answered,
            judge: Judge | None) -> tuple[list[bool | None], dict]:
    """Rules first, the judge on what they cannot settle; (verdicts, rule and judge counts)."""
    verdicts = [rule_verdict(p, r, q, c) if ok else False
                for p, r, q, c, ok in zip(predictions, references, qtypes, row_choices, answered)]
    undecided = [i for i, v in enumerate(verdicts) if v is None]
    ruled = [v for v, ok in zip(verdicts, answered) if ok]
    counts = {"rule_correct": ruled.count(True), "rule_wrong": ruled.count(False), "rule_undecided": len(undecided)}
    judge_info = {"judge": judge.spec if judge else None, "judged": 0, "unjudged": 0, "judge_usage": None, "judge_errors": [],
                  "judge_rows": {}}
    if judge and undecided:
        judge_info = _run_judge(judge, undecided, verdicts, predictions, references, questions, qtypes, row_choices)
    else:
        for i in undecided:
            verdicts[i] = False
    return [v if ok else None for v, ok in zip(verdicts, answered)], {**counts, **judge_info}


def _run_judge(judge: Judge, rows, verdicts, predictions, references, questions, qtypes, row_choices) -> dict:
    """Ask the judge about `rows`, filling `verdicts` in place (None stays for unjudged rows)."""
    client = judge.client()
    try:
        prompts = [judge_prompt(questions[i], predictions[i], references[i], qtypes[i], row_choices[i]) for i in rows]
        replies = client.complete_many([[{"role": "user", "content": p}] for p in prompts],
                                       readable=lambda text: judge_verdict(text) is not None)
    finally:
        client.close()
    for i, reply in zip(rows, replies):
        verdicts[i] = judge_verdict(reply.text)
    errors = sorted({r.error for r in replies if r.error})
    unjudged = sum(verdicts[i] is None for i in rows)
    return {"judge": judge.spec, "judged": len(rows) - unjudged, "unjudged": unjudged,
            "judge_usage": client.usage.as_dict(), "judge_errors": errors[:5],
            "judge_rows": {i: verdicts[i] for i in rows}}


def _label(value: str | int, names: Sequence[str], what: str) -> str:
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool) and 0 <= value < len(names):
        return names[value]
    if value in names:
        return value
    raise ValueError(f"unknown {what} {value!r}; expected one of {', '.join(names)}")
