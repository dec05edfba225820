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

from dataclasses import dataclass
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


@dataclass(frozen=True)
class Answers:
    """The rows `score` and `decide` read, checked once (`Answers.checked`): columns of one length,
    labels as names (question types, subsets, layout styles; the dataset's ClassLabel indices
    too), `choices` () and `answered` True where not given, `num_subfigures` as text; an optional
    column that was not given is None."""

    predictions: tuple[str | None, ...]
    references: tuple[str, ...]
    questions: tuple[str, ...]
    question_types: tuple[str, ...]
    choices: tuple[tuple[str, ...], ...]
    answered: tuple[bool, ...]  # False where the model call failed
    augmentations: tuple[str, ...] | None = None
    subsets: tuple[str, ...] | None = None
    clusters: tuple[Hashable, ...] | None = None
    ids: tuple[str, ...] | None = None
    layout_styles: tuple[str, ...] | None = None
    num_subfigures: tuple[str, ...] | None = None
    sources: tuple[str, ...] | None = None
    controlled: tuple[bool, ...] | None = None  # kept by the paper's control

    def __len__(self) -> int:
        return len(self.predictions)

    @classmethod
    def checked(
        cls,
        predictions: Sequence[str | None],
        references: Sequence[str],
        questions: Sequence[str],
        question_types: Sequence[str | int],
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
        controlled: Sequence[bool] | None = None,
    ) -> Answers:
        """The columns as one table; ValueError naming the first column of another length or the
        first unknown label."""
        n = len(predictions)
        inputs = (("references", references), ("questions", questions), ("question_types", question_types),
                  ("choices", choices), ("augmentations", augmentations), ("subsets", subsets),
                  ("clusters", clusters), ("failed", failed), ("ids", ids), ("layout_styles", layout_styles),
                  ("num_subfigures", num_subfigures), ("sources", sources), ("controlled", controlled))
        for name, values in inputs:
            if values is not None and len(values) != n:
                raise ValueError(f"{name} has {len(values)} entries for {n} predictions")

        def column(values, convert=None) -> tuple | None:
            if values is None:
                return None
            return tuple(values) if convert is None else tuple(convert(v) for v in values)

        return cls(
            predictions=tuple(predictions), references=tuple(references), questions=tuple(questions),
            question_types=column(question_types, lambda q: _label(q, QUESTION_TYPES, "question type")),
            subsets=column(subsets, lambda s: _label(s, SUBSETS, "subset")),
            layout_styles=column(layout_styles, lambda s: _label(s, LAYOUT_STYLES, "layout style")),
            choices=column(choices, tuple) if choices is not None else ((),) * n,
            answered=column(failed, lambda f: not f) if failed is not None else (True,) * n,
            augmentations=column(augmentations), clusters=column(clusters), ids=column(ids),
            num_subfigures=column(num_subfigures, lambda k: str(int(k))), sources=column(sources),
            controlled=column(controlled),
        )


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

    The columns are keywords, as `evaluate`'s metric modules take them; they are checked once
    into an `Answers` table, which the rest of scoring reads.
    """
    if len(predictions) == 0:
        raise ValueError("no predictions to score")
    rows = Answers.checked(predictions, references, questions, question_types, choices=choices,
                           augmentations=augmentations, subsets=subsets, clusters=clusters, failed=failed, ids=ids,
                           layout_styles=layout_styles, num_subfigures=num_subfigures, sources=sources,
                           controlled=controlled)
    judge = as_judge(judge)  # a bad spec fails before any work, even when nothing needs judging
    check_factor_names(factors)  # before any judge request
    return _summarise(rows, *_decide(rows, judge), factors, confidence, n_boot, seed)


def _summarise(rows: Answers, verdicts: list[bool | None], counts: dict, factors: Sequence[str] | None,
               confidence: float, n_boot: int, seed: int) -> dict:
    """`score`'s result from each row's verdict and the rule and judge counts."""
    n = len(rows)
    scored = np.array([v is not None for v in verdicts])
    correct = np.array([v is True for v in verdicts], dtype=np.float64)

    def ci(values, members):
        sub = None if rows.clusters is None else [rows.clusters[i] for i in members]
        found = cluster_bootstrap_ci(values, sub, confidence=confidence, n_boot=n_boot, seed=seed)
        return list(found) if found else None

    def group(members: list[int]) -> dict:
        return {"n": len(members), "scored": int(scored[members].sum()), **bounded(correct, scored, members, ci)}

    def by(labels: Sequence[str | None] | None, order: Sequence[str] = ()) -> dict:
        """A group per label (rows labelled None belong to none), in `order`, then sorted."""
        if labels is None:
            return {}
        present = set(labels) - {None}
        keys = [k for k in order if k in present] + sorted(present - set(order))
        return {k: group([i for i in range(n) if labels[i] == k]) for k in keys}

    qtypes, subsets, panels = rows.question_types, rows.subsets, rows.num_subfigures
    overall = group(list(range(n)))
    overall["accuracy_ci"] = overall.pop("ci")
    return {
        **overall,
        **completeness(scored),
        "failed": n - sum(rows.answered),
        "correct": int(correct.sum()),
        **counts,
        "controlled": None if rows.controlled is None else group([i for i in range(n) if rows.controlled[i]]),
        "per_question_type": by(qtypes, QUESTION_TYPES),
        "per_augmentation": by(rows.augmentations),
        "per_subset": by(subsets, SUBSETS),
        "per_subset_question_type": {} if subsets is None else {
            sub: by([q if subsets[i] == sub else None for i, q in enumerate(qtypes)], QUESTION_TYPES)
            for sub in by(subsets, SUBSETS)},
        "per_layout_style": by(rows.layout_styles, LAYOUT_STYLES),
        "per_num_subfigures": by(panels, sorted(set(panels or ()), key=int)),
        "per_source": by(rows.sources),
        "factors": compare_factors(correct, scored, qtypes, augmentations=rows.augmentations,
                                   layout_styles=rows.layout_styles, ids=rows.ids, wanted=factors,
                                   confidence=confidence, n_boot=n_boot, seed=seed),
        "confidence": confidence,
        "ci_method": "cluster bootstrap" if rows.clusters is not None else "bootstrap",
    }


def decide(predictions: Sequence[str | None], references: Sequence[str], questions: Sequence[str],
           question_types: Sequence[str | int], judge: Judge | str | None = None, *,
           choices: Sequence[Sequence[str]] | None = None, failed: Sequence[bool] | None = None) -> list[bool | None]:
    """Each row's verdict as `score` reaches it: True or False, None when unscored (the judge or the
    model call failed)."""
    rows = Answers.checked(predictions, references, questions, question_types, choices=choices, failed=failed)
    return _decide(rows, as_judge(judge))[0]


def _decide(rows: Answers, judge: Judge | None) -> tuple[list[bool | None], dict]:
    """Rules first, the judge on what they cannot settle; (verdicts, rule and judge counts)."""
    answered = rows.answered
    verdicts = [rule_verdict(p, r, q, c) if ok else False
                for p, r, q, c, ok in zip(rows.predictions, rows.references, rows.question_types, rows.choices,
                                          answered)]
    undecided = [i for i, v in enumerate(verdicts) if v is None]
    ruled = [v for v, ok in zip(verdicts, answered) if ok]
    counts = {"rule_correct": ruled.count(True), "rule_wrong": ruled.count(False), "rule_undecided": len(undecided)}
    judge_info = {"judge": judge.spec if judge else None, "judged": 0, "unjudged": 0, "judge_usage": None,
                  "judge_errors": [], "judge_rows": {}}
    if judge and undecided:
        judge_info = _run_judge(judge, undecided, verdicts, rows)
    else:
        for i in undecided:
            verdicts[i] = False
    return [v if ok else None for v, ok in zip(verdicts, answered)], {**counts, **judge_info}


def _run_judge(judge: Judge, undecided: list[int], verdicts: list[bool | None], rows: Answers) -> dict:
    """Ask the judge about the `undecided` rows, filling `verdicts` in place (None stays for unjudged rows)."""
    client = judge.client()
    try:
        prompts = [judge_prompt(rows.questions[i], rows.predictions[i], rows.references[i], rows.question_types[i],
                                rows.choices[i]) for i in undecided]
        replies = client.complete_many([[{"role": "user", "content": p}] for p in prompts],
                                       readable=lambda text: judge_verdict(text) is not None)
    finally:
        client.close()
    for i, reply in zip(undecided, replies):
        verdicts[i] = judge_verdict(reply.text)
    errors = sorted({r.error for r in replies if r.error})
    unjudged = sum(verdicts[i] is None for i in undecided)
    return {"judge": judge.spec, "judged": len(undecided) - unjudged, "unjudged": unjudged,
            "judge_usage": client.usage.as_dict(), "judge_errors": errors[:5],
            "judge_rows": {i: verdicts[i] for i in undecided}}


def _label(value: str | int, names: Sequence[str], what: str) -> str:
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool) and 0 <= value < len(names):
        return names[value]
    if value in names:
        return value
    raise ValueError(f"unknown {what} {value!r}; expected one of {', '.join(names)}")
