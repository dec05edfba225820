"""lmms-eval callbacks for MultipanelVQA configs: `multipanelvqa export lmms-eval` copies this file
into the task folder as `utils.py`, with `multipanelvqa.rules` and `dicobench.kit.eval.extract` written
into it, so the folder runs in an lmms-eval environment without this package.

The messages are `multipanelvqa.prompt` exactly (the composite, then the question with its
answer instruction); a reply is scored by MultipanelVQA's rules, as `multipanelvqa score` does.
With `MULTIPANELVQA_JUDGE=openai:<model>` in the environment (and optionally
`MULTIPANELVQA_JUDGE_BASE_URL`, the key in `OPENAI_API_KEY`) the answers the rules cannot
settle go to that judge (through the `openai` client lmms-eval's own models use) with the
paper's prompt, its replies cached under `$XDG_CACHE_HOME/multipanelvqa/lmms-eval-judge`. While
the judge leaves rows unanswered the accuracy is NaN: the result is incomplete, and `score`
reports bounds instead of an accuracy for it (dicobench.kit.eval.completeness); a rerun asks only
those rows, the judged ones come from the cache. Without a judge they count as wrong.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
from pathlib import Path

from multipanelvqa.rules import judge_prompt, judge_verdict, rule_verdict  # export: inline

QUESTION_TYPES = ("q1", "q2", "q3")
INSTRUCTIONS = {  # the answer instructions of multipanelvqa.prompting, in lmms_eval_specific_kwargs form
    "q1": "Answer the question using a single word or phrase.",
    "q2": "Answer the question using a single word or phrase.",
    "q3": "Answer with the option's letter from the given choices directly.",
}
#: the task YAML's `lmms_eval_specific_kwargs`
SPECIFIC_KWARGS = {"default": {"pre_prompt": "", **{f"post_prompt_{q}": text for q, text in INSTRUCTIONS.items()}}}


def _qtype(doc: dict) -> str:
    qtype = doc["question_type"]
    return QUESTION_TYPES[qtype] if isinstance(qtype, int) else qtype


def doc_to_visual(doc: dict) -> list:
    return [doc["image"]]


def doc_to_text(doc: dict, lmms_eval_specific_kwargs=None) -> str:
    """The prompt's text; lmms-eval also calls this on rows read without their images."""
    kwargs = {**SPECIFIC_KWARGS["default"], **(lmms_eval_specific_kwargs or {})}
    return f"{kwargs['pre_prompt']}{doc['question']}\n{kwargs['post_prompt_' + _qtype(doc)]}"


def doc_to_messages(doc: dict, lmms_eval_specific_kwargs=None) -> list[dict]:
    return [{"role": "user", "content": [{"type": "image", "url": doc["image"]},
                                         {"type": "text", "text": doc_to_text(doc, lmms_eval_specific_kwargs)}]}]


def doc_to_target(doc: dict) -> str:
    return doc["answer"]


@functools.lru_cache(maxsize=1)
def _client(base_url: str | None):
    import openai  # lmms-eval's environment has it (its openai model uses it)

    return openai.OpenAI(base_url=base_url)


def _judge(spec: str, prompt: str) -> str | None:
    """The judge's reply (temperature 0, cached by model, endpoint and prompt); None when it failed."""
    kind, _, model = spec.partition(":")
    if kind != "openai" or not model:
        raise ValueError(f"MULTIPANELVQA_JUDGE={spec!r}: expected openai:<model>")
    base_url = os.environ.get("MULTIPANELVQA_JUDGE_BASE_URL")
    home = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    key = hashlib.sha256(json.dumps([model, base_url, prompt]).encode()).hexdigest()
    cached = Path(home) / "multipanelvqa" / "lmms-eval-judge" / f"{key}.json"
    if cached.exists():
        return json.loads(cached.read_text())["reply"]
    try:
        response = _client(base_url).chat.completions.create(
            model=model, temperature=0, messages=[{"role": "user", "content": prompt}])
        reply = response.choices[0].message.content
    except Exception:  # an API failure leaves the row unjudged (NaN), never wrong
        return None
    if reply is not None:
        cached.parent.mkdir(parents=True, exist_ok=True)
        cached.write_text(json.dumps({"reply": reply}))
    return reply


def process_results(doc: dict, results: list) -> dict:
    """{"accuracy": verdict}: True, False, or None for a row no judge settled."""
    response = results[0] if results else None
    qtype, choices = _qtype(doc), list(doc.get("choices") or ())
    verdict = rule_verdict(response, doc["answer"], qtype, choices)
    if verdict is None:
        spec = os.environ.get("MULTIPANELVQA_JUDGE")
        if not spec:
            return {"accuracy": False}
        verdict = judge_verdict(_judge(spec, judge_prompt(doc["question"], response, doc["answer"], qtype, choices)))
    return {"accuracy": verdict}


def aggregate_accuracy(verdicts: list) -> float:
    """The share of right answers; NaN when a row has no verdict (leaving it out would inflate it)."""
    if not verdicts or any(v is None for v in verdicts):
        return float("nan")
    return sum(v is True for v in verdicts) / len(verdicts)
