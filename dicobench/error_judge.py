"""The paper's error analysis by an LLM judge: each wrong answer given with a description (`eval
--mode describe`) is classified into the four types of its Figure 7 from the reply and the row's
cue labels. Replies are cached (dicobench.kit.eval.judge), so a rerun sends only what is still missing; a
judge that fails or answers none of the types leaves the error unjudged, never guessed.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Sequence

from dicobench.schema import LETTERS, TASKS

if TYPE_CHECKING:
    from dicobench.kit.eval.judge import Judge

JUDGE_TYPES = ("missed_cue", "ex_nihilo", "wrong_option", "miscellaneous")

PROMPT = (
    "A model compared two images and answered a multiple-choice question wrongly. Classify its error.\n"
    "Question: {question}\n"
    "Options:\n{options}\n"
    "Correct answer: {reference}. Where the visual cue is: {cues}\n"
    "The model's reply (a description, then its answer {chosen}):\n{response}\n\n"
    "Error types:\n"
    "missed_cue: it ignored the visual cue, the difference or commonality between the two images;\n"
    "wrong_option: a factual descriptive hallucination, it misdescribed what the images show (e.g. the "
    "orientation of an animal, the position of a person);\n"
    "ex_nihilo: a hallucination from nothing, it perceived a difference between identical images or a "
    "commonality where there is none;\n"
    "miscellaneous: a refusal, or an error whose cause cannot be determined.\n"
    "Reply with the type's name only."
)
_TYPE = re.compile(r"\b(" + "|".join(t.replace("_", r"[\s_-]+") for t in JUDGE_TYPES) + r")\b", re.IGNORECASE)


def judge_prompt(question: str, options: Sequence[str], reference: str, chosen: str | None, response: str,
                 cues: Sequence[str]) -> str:
    listed = "\n".join(f"{letter}. {text}" for letter, text in zip(LETTERS, options))
    where = "; ".join(cues) if cues else "none (the two images show no difference or commonality)"
    return PROMPT.format(question=question, options=listed, reference=reference, chosen=chosen or "unreadable",
                         response=response, cues=where)


def judge_type(reply: str | None) -> str | None:
    """The one type the judge named; None when it named none, or several."""
    found = {re.sub(r"[\s_-]+", "_", m.lower()) for m in _TYPE.findall(reply)} if reply else set()
    return found.pop() if len(found) == 1 else None


def classify(judge: Judge, rows: Sequence[int], *, questions, options, references, parsed, predictions, cues,
             tasks) -> dict:
    """`{"judge", "overall": {type: count, "errors", "unjudged"}, "per_task": ..., "judge_usage", "rows"}` over
    `rows`; "rows" maps each row's position to the type the judge named (None: unjudged)."""
    client = judge.client()
    try:
        prompts = [judge_prompt(questions[i], options[i], references[i], parsed[i], predictions[i] or "", cues[i])
                   for i in rows]
        replies = client.complete_many([[{"role": "user", "content": p}] for p in prompts],
                                       readable=lambda text: judge_type(text) is not None)
    finally:
        client.close()

    def empty() -> dict:
        return {**{t: 0 for t in JUDGE_TYPES}, "errors": 0, "unjudged": 0}

    overall, per_task, kinds = empty(), {}, {}
    for i, reply in zip(rows, replies):
        kind = kinds[i] = judge_type(reply.text)
        groups = [overall] + ([per_task.setdefault(tasks[i], empty())] if tasks is not None else [])
        for g in groups:
            g["errors"] += 1
            g[kind or "unjudged"] += 1
    order = {t: k for k, t in enumerate(TASKS)}
    return {"judge": judge.spec, "overall": overall,
            "per_task": dict(sorted(per_task.items(), key=lambda kv: order.get(kv[0], 99))),
            "judge_usage": client.usage.as_dict(), "judge_errors": sorted({r.error for r in replies if r.error})[:5],
            "rows": kinds}
