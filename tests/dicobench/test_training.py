"""`dicobench.training`: rows as TRL's GRPO examples and a reward in `GRPOTrainer`'s `reward_funcs`
signature that reads completions as `score` reads replies; and the recipe of docs/guides/training.md
run as written for one GRPO step with a tiny random LLaVA, offline."""

import os
import re
import subprocess
import sys
from pathlib import Path

import datasets
import numpy as np
import pytest
from tiny_vlm import build_tiny_llava

from dicobench.kit.eval.extract import extract_choice
from dicobench.prompting import prompt
from dicobench.schema import LETTERS
from dicobench.training import grpo_example, letter_reward

ROOT = Path(__file__).resolve().parents[2]
REPLIES = ["B", "The answer is (C).", "Answer: E", "I cannot tell.", "A or B", "<answer>d</answer>", "**E**",
           "The horse"]


@pytest.fixture(scope="module")
def rows(small_build):
    return datasets.load_dataset(str(small_build), "all", split="test")


def test_the_reward_reads_completions_as_score_reads_replies(rows):
    """Called as GRPOTrainer calls a reward function (its _calculate_rewards): prompts, completions,
    completion_ids, every other dataset column and the trainer's hooks, all as keywords."""
    pytest.importorskip("trl")
    examples = [{**row, **grpo_example(row)} for row in rows.select(range(8))]
    columns = {key: [e[key] for e in examples] for key in examples[0] if key not in ("prompt", "image_a", "image_b")}
    for replies in (REPLIES, REPLIES[::-1]):
        conversational = [[{"role": "assistant", "content": r}] for r in replies]
        for completions in (conversational, replies):  # conversational datasets, and plain-text ones
            rewards = letter_reward(prompts=[e["prompt"] for e in examples], completions=completions,
                                    completion_ids=[[1, 2]] * 8, trainer_state=None, log_extra=print,
                                    log_metric=print, **columns)
            read = [extract_choice(r, e["options"]) for r, e in zip(replies, examples)]
            assert rewards == [float(x == LETTERS[e["answer"]]) for x, e in zip(read, examples)]
            assert all(type(r) is float for r in rewards)
        assert letter_reward([[{"role": "assistant", "content": [{"type": "text", "text": r}]}] for r in replies],
                             answer=[LETTERS[e["answer"]] for e in examples], options=columns["options"]) == rewards
    assert 0 < sum(letter_reward(REPLIES * 2, [1] * 16)) < 16  # some right, so the comparison above can fail
    with pytest.raises(ValueError, match="2 completions for 1 answers"):
        letter_reward(["A", "B"], answer=[0])


def test_an_example_is_the_eval_prompt_in_trls_multimodal_form(rows):
    trl = pytest.importorskip("trl")
    row = rows[0]
    example = grpo_example(row)
    images, text = prompt(row)
    filled = trl.data_utils.prepare_multimodal_messages(example["prompt"], images=example["images"])
    [message] = filled
    assert message["role"] == "user" and [p["type"] for p in message["content"]] == ["text", "image", "text", "image",
                                                                                      "text"]
    assert [message["content"][i]["text"] for i in (0, 2, 4)] == ["Image 1:", "Image 2:", text]
    for part, image in zip((message["content"][1], message["content"][3]), (row["image_a"], row["image_b"])):
        assert np.array_equal(np.asarray(part["image"]), np.asarray(image))  # each image after its label


def recipe() -> str:
    page = (ROOT / "docs" / "guides" / "training.md").read_text()
    [code] = [c for c in re.findall(r"```python\n(.*?)```", page, re.S) if "GRPOTrainer" in c]
    return code


@pytest.mark.slow
def test_the_docs_recipe_runs_a_grpo_step_offline(tmp_path):
    pytest.importorskip("trl")
    page = (ROOT / "docs" / "guides" / "training.md").read_text()
    [build] = [c for c in re.findall(r"```bash\n(.*?)```", page, re.S) if "--split train" in c]
    model = build_tiny_llava(tmp_path / "tiny-llava")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
           "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "MODEL": str(model), "STEPS": "1"}
    small = build.strip().replace("--per-task 8", "--per-task 1 --num-proc 1 --quiet")  # one row per task
    assert small != build.strip()
    subprocess.run([sys.executable, "-m", "dicobench.cli.main", *small.split()[1:]], cwd=tmp_path, env=env,
                   check=True, capture_output=True, timeout=600)
    proc = subprocess.run([sys.executable, "-c", recipe()], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=900)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert 0.0 <= float(proc.stdout.strip().splitlines()[-1]) <= 1.0  # the reward TRL logged from letter_reward
    assert (tmp_path / "grpo-dicobench" / "checkpoint-1").is_dir()  # a step was taken and saved
