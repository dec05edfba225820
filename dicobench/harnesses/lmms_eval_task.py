"""lmms-eval callbacks for DiCoBench tasks: `dicobench export lmms-eval` copies this file into the
task folder as `utils.py`, with `dicobench.kit.eval.extract` written into it, so the folder runs in an
lmms-eval environment without this package (and can be contributed to lmms-eval as it is).

The messages are `dicobench.prompt` exactly, the two images introduced as "Image 1:" and
"Image 2:", the prompt's last line coming from the task's `lmms_eval_specific_kwargs` as
lmms-eval's own tasks do; a reply is read with `extract_choice` against the row's options, as
`dicobench score` reads it, so lmms-eval's `accuracy` equals `score`'s on the same replies.
Only the standard library is imported here (the export checks it).
"""

from __future__ import annotations

from dicobench.kit.eval.extract import extract_choice  # export: inline

LETTERS = "ABCDE"
#: the task YAML's `lmms_eval_specific_kwargs` (the project's prompt: docs/ARCHITECTURE.md)
SPECIFIC_KWARGS = {"default": {"pre_prompt": "",
                               "post_prompt": "Answer with the option's letter from the given choices directly."}}


def _letter(answer) -> str:
    return LETTERS[answer] if isinstance(answer, int) else str(answer).strip().upper()


def doc_to_visual(doc: dict) -> list:
    return [doc["image_a"], doc["image_b"]]


def doc_to_text(doc: dict, lmms_eval_specific_kwargs=None) -> str:
    """The prompt's text; lmms-eval also calls this on rows read without their images."""
    kwargs = {**SPECIFIC_KWARGS["default"], **(lmms_eval_specific_kwargs or {})}
    options = "\n".join(f"{letter}. {option}" for letter, option in zip(LETTERS, doc["options"]))
    return f"{kwargs['pre_prompt']}{doc['question']}\nOptions:\n{options}\n{kwargs['post_prompt']}"


def doc_to_messages(doc: dict, lmms_eval_specific_kwargs=None) -> list[dict]:
    content = []
    for number, image in enumerate(doc_to_visual(doc), 1):
        content += [{"type": "text", "text": f"Image {number}:"}, {"type": "image", "url": image}]
    return [{"role": "user", "content": content + [{"type": "text",
                                                    "text": doc_to_text(doc, lmms_eval_specific_kwargs)}]}]


def doc_to_target(doc: dict) -> str:
    return _letter(doc["answer"])


def process_results(doc: dict, results: list) -> dict:
    response = results[0] if results else None
    return {"accuracy": float(extract_choice(response, doc["options"]) == _letter(doc["answer"]))}
