"""lmms-eval callbacks for DiCoBench tasks (written by `dicobench export lmms-eval`).

The messages are `dicobench.prompt` exactly, the two images introduced as "Image 1:" and
"Image 2:"; a reply is read with `benchkit.extract_choice` against the row's options, as
`dicobench score` reads it, so lmms-eval's `accuracy` equals `score`'s on the same replies.
"""

from __future__ import annotations

from benchkit.eval.evaluation import interleave
from benchkit.eval.extract import extract_choice
from benchkit.eval.harnesses.messages import chat_message
from dicobench.prompting import prompt
from dicobench.schema import LETTERS


def _letter(answer) -> str:
    return LETTERS[answer] if isinstance(answer, int) else str(answer).strip().upper()


def doc_to_visual(doc: dict) -> list:
    return prompt(doc)[0]


def doc_to_text(doc: dict, lmms_eval_specific_kwargs=None) -> str:
    """The prompt's text; lmms-eval also calls this on rows read without their images."""
    return prompt({**doc, "image_a": None, "image_b": None})[1]


def doc_to_messages(doc: dict, lmms_eval_specific_kwargs=None) -> list[dict]:
    return chat_message(interleave(*prompt(doc)))


def doc_to_target(doc: dict) -> str:
    return _letter(doc["answer"])


def process_results(doc: dict, results: list) -> dict:
    response = results[0] if results else None
    return {"accuracy": float(extract_choice(response, doc["options"]) == _letter(doc["answer"]))}
