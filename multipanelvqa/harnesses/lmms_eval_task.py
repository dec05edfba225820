"""lmms-eval callbacks for MultipanelVQA configs (written by `multipanelvqa export lmms-eval`).

The messages are `multipanelvqa.prompt` exactly (the composite, then the question with its
answer instruction); a reply is scored by MultipanelVQA's rules, as `multipanelvqa score` does.
With `MULTIPANELVQA_JUDGE=openai:<model>` in the environment (and optionally
`MULTIPANELVQA_JUDGE_BASE_URL`, the key in `OPENAI_API_KEY`) the answers the rules cannot
settle go to that judge with the paper's prompt, cached like `score --judge`. While the judge
leaves rows unanswered the accuracy is NaN: the result is incomplete, and `score` reports bounds
instead of an accuracy for it (benchkit.eval.completeness); a rerun asks only those rows, the judged
ones come from the cache. Without a judge they count as wrong.
"""

from __future__ import annotations

import functools
import os

from benchkit.eval.evaluation import interleave
from benchkit.eval.harnesses.messages import chat_message
from multipanelvqa.prompting import prompt
from multipanelvqa.schema import QUESTION_TYPES
from multipanelvqa.scoring import default_cache_dir, judge_prompt, judge_verdict, rule_verdict


def _qtype(doc: dict) -> str:
    qtype = doc["question_type"]
    return QUESTION_TYPES[qtype] if isinstance(qtype, int) else qtype


def doc_to_visual(doc: dict) -> list:
    return prompt(doc)[0]


def doc_to_text(doc: dict, lmms_eval_specific_kwargs=None) -> str:
    """The prompt's text; lmms-eval also calls this on rows read without their images."""
    return prompt({**doc, "image": None})[1]


def doc_to_messages(doc: dict, lmms_eval_specific_kwargs=None) -> list[dict]:
    return chat_message(interleave(*prompt(doc)))


def doc_to_target(doc: dict) -> str:
    return doc["answer"]


@functools.lru_cache(maxsize=1)
def _judge(spec: str, base_url: str | None):
    from benchkit.eval.judge import ChatClient, parse_judge

    return ChatClient(parse_judge(spec), base_url=base_url, cache_dir=default_cache_dir())


def process_results(doc: dict, results: list) -> dict:
    """{"accuracy": verdict}: True, False, or None for a row no judge settled."""
    response = results[0] if results else None
    qtype, choices = _qtype(doc), list(doc.get("choices") or ())
    verdict = rule_verdict(response, doc["answer"], qtype, choices)
    if verdict is None:
        spec = os.environ.get("MULTIPANELVQA_JUDGE")
        if not spec:
            return {"accuracy": False}
        reply = _judge(spec, os.environ.get("MULTIPANELVQA_JUDGE_BASE_URL")).complete(
            [{"role": "user", "content": judge_prompt(doc["question"], response, doc["answer"], qtype, choices)}])
        verdict = judge_verdict(reply.text)
    return {"accuracy": verdict}


def aggregate_accuracy(verdicts: list) -> float:
    """The share of right answers; NaN when a row has no verdict (leaving it out would inflate it)."""
    if not verdicts or any(v is None for v in verdicts):
        return float("nan")
    return sum(v is True for v in verdicts) / len(verdicts)
