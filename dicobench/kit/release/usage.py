"""The card's "Load and score" section: code that runs as it is, naming where the rows are.

`push` records the repo id it publishes to in the build folder (`REPO_FILE`, never uploaded)
before it rewrites the card, so the card on the Hub says `load_dataset("ORG/NAME", ...)`; a
card never pushed loads the folder it sits in (`os.getcwd()`, `"$PWD"`: run the code from inside
it), so that its bytes do not depend on where the build was written.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from dicobench.kit.io.shards import Location, child, exists, read_json, write_text_atomic
from dicobench.kit.release.card import Section

REPO_FILE = ".hub.json"  # {"repo_id": ...}, written by push


def record_repo(out: Location, repo_id: str) -> None:
    write_text_atomic(child(out, REPO_FILE), json.dumps({"repo_id": repo_id}) + "\n")


def recorded_repo(out: Location) -> str | None:
    path = child(out, REPO_FILE)
    return read_json(path).get("repo_id") if exists(path) else None


@dataclass(frozen=True)
class Usage:
    """How one benchmark is loaded and scored, for its card."""

    command: str  # "dicobench"
    config: str  # a config to show, e.g. "attribute"
    default: str  # the config with every row ("all")
    metric: str  # the package attribute holding the metric module's path, e.g. "dicobench.METRIC"
    metric_inputs: str  # the keyword arguments the metric example passes besides predictions


def section(out: Location, usage: Usage) -> Section:
    """The "Load and score" section of the card of the build in `out`. Each block runs on its own,
    pasted alone into a fresh interpreter."""
    repo = recorded_repo(out)
    python, shell = (f'"{repo}"', repo) if repo else ("os.getcwd()", '"$PWD"')
    imports = "" if repo else "import os\n\n"
    load = f'ds = load_dataset({python}, "{usage.config}", split="test")'
    body = (
        ("" if repo else "Run these from inside the build folder (once pushed, the card names its Hub repo).\n\n")
        + f"```python\n{imports}from datasets import load_dataset\n\n"
        f'{load}  # or "{usage.default}", every row\n```\n\n'
        f"Score any model with the `{usage.command}` package (`pip install dicobench`): a Python function, "
        "a transformers model (`hf:ID`) or any OpenAI-compatible endpoint (`openai:MODEL`):\n\n"
        f"```python\n{imports}import {usage.command}\n\n"
        f'scores = {usage.command}.evaluate({python}, lambda images, prompt: "A", limit=8)  # your model here\n'
        'print(scores["accuracy"])\n```\n\n'
        f"```bash\n{usage.command} eval --dataset {shell} --model openai:gpt-4o --out ../runs/gpt-4o\n"
        f"{usage.command} score ../runs/gpt-4o/predictions.jsonl --dataset {shell}\n```\n\n"
        f"or with `evaluate`, on replies you already have:\n\n"
        f"```python\n{imports}import evaluate\nimport {usage.command}\nfrom datasets import load_dataset\n\n"
        f"{load}\n"
        f"replies = [\"The answer is (A).\"] * len(ds)  # your model's replies, one per row\n"
        f"metric = evaluate.load({usage.metric})\n"
        f"print(metric.compute(predictions=replies, references=ds[\"answer\"], {usage.metric_inputs})"
        f"[\"accuracy\"])\n```"
    )
    return Section("load", "Load and score", body)
