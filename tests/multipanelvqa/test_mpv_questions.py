"""Questions: Q1/Q2/Q3 wording and answers, balance over a build, and LLM reply checks."""

import json
from collections import Counter

import numpy as np
import pytest

from multipanelvqa.composite.layouts import generate_layouts
from multipanelvqa.composite.positions import caption_numbers, describe_positions
from multipanelvqa.questions.common import (
    FILLERS,
    QUESTION_PROMPT,
    GenerationError,
    balanced_schedule,
    generate_with_llm,
    parse_generated,
    q1,
    q2,
    q3,
    questions,
)

CQ = "What color is the car?"
ANSWERS = ["red", "blue", "blue", "green"]
POSITIONS = ["top left subfigure", "top right subfigure", "bottom left subfigure", "bottom right subfigure"]


def test_q1_any_all_and_absent():
    yes = q1(CQ, ANSWERS, 0, yes=True)
    assert yes.answer == "yes" and "any subfigure" in yes.question and '"red"' in yes.question
    no_all = q1(CQ, ANSWERS, 0, yes=False)
    assert no_all.answer == "no" and "all the subfigures" in no_all.question and '"red"' in no_all.question
    no_any = q1(CQ, ANSWERS, 0, yes=False, absent_answer="purple")
    assert no_any.answer == "no" and "any subfigure" in no_any.question and '"purple"' in no_any.question
    assert all(q.question.endswith("Please answer yes/no.") and q.choices == () for q in (yes, no_all, no_any))
    with pytest.raises(ValueError):
        q1(CQ, ANSWERS, 0, yes=False, absent_answer="Blue")
    with pytest.raises(ValueError, match="unique"):
        q1(CQ, ["red", "Red ", "blue"], 0, yes=True)


def test_q2_names_target_by_position_or_caption():
    by_position = q2(CQ, "red", position="top left subfigure")
    assert by_position.question == "Look at the top left subfigure. What color is the car? Please answer briefly."
    assert by_position.answer == "red"
    by_caption = q2(CQ, "red", caption="3")
    assert "subfigure 3" in by_caption.question and "top left" not in by_caption.question
    with pytest.raises(ValueError):
        q2(CQ, "red")
    with pytest.raises(ValueError):
        q2(CQ, "red", position="top left subfigure", caption="3")


@pytest.mark.parametrize("letter", ["a", "b", "c", "d"])
def test_q3_choices_and_letter(letter):
    q = q3(CQ, "red", POSITIONS, 0, letter=letter, rng=np.random.default_rng(0))
    assert q.answer == letter and len(q.choices) == 4 and len(set(q.choices)) == 4
    assert q.choices["abcd".index(letter)] == POSITIONS[0]
    assert set(q.choices) == set(POSITIONS)
    assert q.question.startswith("Which subfigure") and q.question.endswith("Please select one.")
    for l, c in zip("abcd", q.choices):
        assert f"\n{l}. {c}\n" in q.question


def test_q3_fills_small_images_with_false_choices():
    q = q3(CQ, "red", ["left subfigure", "right subfigure"], 1, letter="c", rng=np.random.default_rng(0))
    assert q.choices[2] == "right subfigure"
    assert set(q.choices) == {"left subfigure", "right subfigure", *FILLERS}
    three = q3(CQ, "red", ["top subfigure", "middle subfigure", "bottom subfigure"], 0, letter="a",
               rng=np.random.default_rng(0))
    assert sum(c in FILLERS for c in three.choices) == 1
    with pytest.raises(ValueError):
        q3(CQ, "red", POSITIONS, 0, letter="e", rng=np.random.default_rng(0))
    with pytest.raises(ValueError):
        q3(CQ, "red", ["left subfigure", "left subfigure"], 0, letter="a", rng=np.random.default_rng(0))


def test_balanced_schedule():
    rng = np.random.default_rng(7)
    s = balanced_schedule(10, ["a", "b", "c", "d"], rng)
    assert sorted(Counter(s).values()) == [2, 2, 3, 3]
    assert all(sorted(s[i : i + 4]) == ["a", "b", "c", "d"] for i in (0, 4))
    assert balanced_schedule(10, ["a", "b", "c", "d"], np.random.default_rng(7)) == s
    assert len(set(tuple(balanced_schedule(8, "abcd", np.random.default_rng(k))) for k in range(5))) > 1


def test_a_build_is_balanced_and_true():
    """Every layout with one answer set: yes/no and letters balanced, Q3's letter names the target."""
    layouts = generate_layouts(0)
    rng = np.random.default_rng(0)
    yes_no = balanced_schedule(len(layouts), [True, False], rng)
    letters = balanced_schedule(len(layouts), ["a", "b", "c", "d"], rng)
    answers_seen, letters_seen, distractor_slots = Counter(), Counter(), Counter()
    for layout, yes, letter in zip(layouts, yes_no, letters):
        positions = describe_positions(layout.boxes)
        answers = ["red"] + ["blue"] * (layout.num_panels - 1)
        one, two, three = questions(CQ, answers, 0, positions, q1_yes=yes, q3_letter=letter, rng=rng)
        answers_seen[one.answer] += 1
        letters_seen[three.answer] += 1
        assert two.answer == "red" and positions[0] in two.question
        assert three.choices["abcd".index(three.answer)] == positions[0]
        others = set(positions[1:])
        for k, c in enumerate(three.choices):
            if c != positions[0]:
                assert c in others or c in FILLERS
                distractor_slots[k] += 1
        if layout.num_panels >= 4:
            assert not set(three.choices) & set(FILLERS)
    assert answers_seen == {"yes": 105, "no": 105}
    assert max(letters_seen.values()) - min(letters_seen.values()) <= 1
    assert min(distractor_slots.values()) > 100


def test_captions_referenced_names_the_number():
    layout = generate_layouts(0)[146]
    positions = describe_positions(layout.boxes)
    number = str(caption_numbers(layout.boxes)[0])
    answers = ["red"] + ["blue"] * (layout.num_panels - 1)
    _, two, three = questions(CQ, answers, 0, positions, q1_yes=True, q3_letter="b", rng=np.random.default_rng(1),
                              caption=number)
    assert f"subfigure {number}." in two.question and positions[0] not in two.question
    assert three.choices[1] == positions[0]


def reply(**overrides):
    fields = {
        "Q1": "Is there any subfigure with a red car? Please answer yes/no.",
        "A1": "Yes",
        "Q2": "What color is the car in the top left subfigure?",
        "A2": "Red",
        "Q3": "Which subfigure has a red car? a. x b. top left subfigure c. x d. x Please select one.",
        "A3": "(b)",
    }
    fields.update(overrides)
    return json.dumps(fields)


def test_llm_generation_uses_the_paper_prompt():
    sent = []

    def chat(messages):
        sent.append(messages)
        return "```json\n" + reply() + "\n```"

    out = generate_with_llm(chat, num_subfigures=4, common_question=CQ, target_answer="red",
                            position="top left subfigure")
    assert out["A1"] == "yes" and out["A3"] == "b" and out["A2"] == "Red"
    (messages,) = sent
    text = messages[0]["content"]
    assert messages[0]["role"] == "user"
    assert "There are 4 subfigures in the image." in text and CQ in text
    assert "The answer from the target subfigure is: red." in text
    assert "located at the top left subfigure." in text
    assert "fill the other choices with x" in QUESTION_PROMPT


@pytest.mark.parametrize(
    "bad",
    [
        "Q1: Is there ...? A1: yes",
        json.dumps(["not", "an", "object"]),
        reply(A1="maybe"),
        reply(A3="e"),
        reply(A2="blue"),
        reply(Q2="What color is the car in the bottom right subfigure?"),
        reply(Q3=""),
        json.dumps({"Q1": "q", "A1": "yes"}),
    ],
)
def test_llm_replies_are_checked(bad):
    with pytest.raises(GenerationError):
        parse_generated(bad, "red", "top left subfigure")
