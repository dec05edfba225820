"""Edit instructions written by an LLM (`--instructions openai:<model>`) and an optional VLM
check of finished edits (`--verify openai:<model>`), through `dicobench.kit.eval.chat.ChatClient`.

As in the paper, each mask gets six diverse instructions, asked one at a time with the
earlier ones fed back so the model does not repeat itself. Replies must be JSON objects
`{"instruction": ..., "option": ...}` (the option states the difference for the MCQ);
a reply that is not, or repeats an earlier one, is asked again with the reason.
"""

from __future__ import annotations

import base64
import json
import re
from dataclasses import dataclass

import numpy as np

from dicobench.kit.eval.chat import ChatClient
from dicobench.kit.io.imageio import encode_png
from dicobench.tasks.registry import get_task

PER_MASK = 6


@dataclass(frozen=True)
class Instruction:
    instruction: str  # what the editor is told
    option: str  # the MCQ option stating the resulting difference


class InstructionError(Exception):
    """The model gave no valid instruction within the allowed attempts."""


def image_part(pixels: np.ndarray) -> dict:
    data = base64.b64encode(encode_png(pixels)).decode()
    return {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{data}"}}


def parse_instruction(text: str) -> Instruction:
    """The JSON object in a reply (a ```json fence allowed); ValueError says what is wrong."""
    match = re.search(r"\{.*\}", text, re.DOTALL)
    if match is None:
        raise ValueError("no JSON object in the reply")
    data = json.loads(match.group(0))
    values = [data.get(key) for key in ("instruction", "option")] if isinstance(data, dict) else [None]
    if not all(isinstance(v, str) and v.strip() for v in values):
        raise ValueError('the object needs non-empty strings "instruction" and "option"')
    return Instruction(values[0].strip(), values[1].strip())


class InstructionGenerator:
    def __init__(self, client: ChatClient, per_mask: int = PER_MASK, attempts: int = 3):
        self.client, self.per_mask, self.attempts = client, per_mask, attempts

    def generate(self, region: np.ndarray, subject: str, task: str) -> list[Instruction]:
        """`per_mask` distinct instructions for editing `subject`, shown in `region` (the crop
        around the mask with its context), of the kind `task`'s model edit asks for."""
        found: list[Instruction] = []
        while len(found) < self.per_mask:
            found.append(self._next(region, subject, task, found))
        return found

    def _next(self, region, subject, task, earlier: list[Instruction]) -> Instruction:
        prompt = (f"The image shows a {subject} in its surroundings. Write one instruction for an image "
                  f"editor to {get_task(task).model_edit.llm_kind}. "
                  "The change must stay small and local and be clearly visible. "
                  'Reply with only a JSON object: {"instruction": "...", "option": "..."}, where option is '
                  "one sentence stating the resulting difference, naming the object but not its position.")
        if earlier:
            prompt += ("\nAlready written (write something clearly different):\n"
                       + "\n".join(f"- {e.instruction}" for e in earlier))
        messages = [{"role": "user", "content": [{"type": "text", "text": prompt}, image_part(region)]}]
        for _ in range(self.attempts):
            reply = self.client.complete(messages)
            if reply.text is None:
                raise InstructionError(f"no reply for {subject}: {reply.error}")
            try:
                found = parse_instruction(reply.text)
                if found.instruction.lower() in {e.instruction.lower() for e in earlier}:
                    raise ValueError("it repeats an earlier instruction")
                return found
            except ValueError as exc:
                messages = messages + [{"role": "assistant", "content": reply.text},
                                       {"role": "user",
                                        "content": f"Invalid: {exc}. Reply again with only the JSON object."}]
        raise InstructionError(f"no valid instruction for {subject} in {self.attempts} attempts")


class EditVerifier:
    """Asks a VLM whether an edit did what its instruction says (on top of the pixel checks)."""

    def __init__(self, client: ChatClient):
        self.client = client

    def verify(self, before: np.ndarray, after: np.ndarray, instruction: str) -> bool | None:
        """True or False; None when the model gave no usable answer (the edit is then unjudged)."""
        prompt = (f'Image 1 is before an edit, image 2 after. Instruction: "{instruction}". Was the instruction '
                  'carried out, with nothing else visibly changed? Reply with only a JSON object: '
                  '{"matches": true} or {"matches": false}.')
        reply = self.client.complete([{"role": "user", "content": [
            {"type": "text", "text": prompt}, image_part(before), image_part(after)]}])
        match = re.search(r'"matches"\s*:\s*(true|false)', reply.text or "")
        return None if match is None else match.group(1) == "true"
