"""Training on DiCoBench with TRL's `GRPOTrainer`: rows as its conversational examples, and a reward
that reads completions exactly as `score` reads replies.

`grpo_example` turns a row into TRL's multimodal form (`prompt`: one user message with the
evaluation prompt, "Image 1:"/"Image 2:" and an image placeholder before each image; `images`:
the pair), so a model is trained on the prompt it is scored with. `letter_reward` has the
signature `GRPOTrainer(reward_funcs=...)` calls: `prompts`, `completions` and every other dataset
column as keyword lists; it uses `answer` and `options`. Build the rows with `dicobench build
--split train` (seeds apart from the test split's: docs/guides/training.md).
"""

from __future__ import annotations

from typing import Sequence

from dicobench.kit.eval.evaluation import interleave
from dicobench.kit.eval.extract import extract_choice
from dicobench.prompting import prompt
from dicobench.scoring import reference_letter


def grpo_example(row: dict) -> dict:
    """A dataset row as TRL's conversational multimodal example: {"prompt", "images"} (map it over
    the dataset; the other columns stay for the reward)."""
    images, text = prompt(row)
    content = [{"type": "text", "text": part} if isinstance(part, str) else {"type": "image"}
               for part in interleave(images, text)]
    return {"prompt": [{"role": "user", "content": content}], "images": list(images)}


def completion_text(completion) -> str:
    """A completion's text: a string as is; a conversational one (a list of messages), its last
    message's content, text parts joined."""
    if isinstance(completion, str):
        return completion
    content = completion[-1]["content"] if completion else ""
    if isinstance(content, str):
        return content
    return "".join(part.get("text") or "" for part in content if isinstance(part, dict))


def letter_reward(completions: Sequence, answer: Sequence, options: Sequence | None = None, **kwargs) -> list[float]:
    """1.0 where the letter read from a completion (`extract_choice`, with the row's options, as
    `score` reads replies) is the row's answer, else 0.0: an unreadable reply earns nothing, and a
    guess is never read in. `answer` holds the dataset's ClassLabel indices or letters. The
    keywords GRPOTrainer adds (prompts, completion_ids, trainer_state, the other columns) are
    accepted and unused."""
    if len(answer) != len(completions) or (options is not None and len(options) != len(completions)):
        raise ValueError(f"{len(completions)} completions for {len(answer)} answers")
    rows = options if options is not None else [None] * len(completions)
    return [float(extract_choice(completion_text(c), o) == reference_letter(a))
            for c, a, o in zip(completions, answer, rows)]
