"""lmms-eval callbacks for MultipanelVQA configs (written by `multipanelvqa export lmms-eval`).

The messages are `multipanelvqa.prompt` exactly (the composite, then the question with its
answer instruction); a reply is right when MultipanelVQA's rules say so, as in `multipanelvqa
score` without a judge (an answer the rules cannot settle counts as wrong there too).
"""

from __future__ import annotations

from benchkit.evaluation import interleave
from benchkit.harnesses.messages import chat_message
from multipanelvqa.prompting import prompt
from multipanelvqa.schema import QUESTION_TYPES
from multipanelvqa.scoring import rule_verdict


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


def process_results(doc: dict, results: list) -> dict:
    response = results[0] if results else None
    verdict = rule_verdict(response, doc["answer"], _qtype(doc), doc.get("choices") or ())
    return {"accuracy": float(verdict is True)}
