"""Answer extraction: a table of real-style outputs and properties that must hold for any text."""

import string

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dicobench.kit.eval.extract import extract_choice

OPTIONS = [
    "The cup changed from red to blue",
    "The lamp moved to the left",
    "A dog was added near the door",
    "The clock disappeared from the wall",
    "There is no visible difference between the two images",
]
POSITIONS = ["top left", "top right", "bottom left", "bottom right"]

READ = [
    ("B", "B"),
    ("b", "B"),
    (" (B) ", "B"),
    ("B.", "B"),
    ("B)", "B"),
    ("[B]", "B"),
    ("**B**", "B"),
    ("<answer>B</answer>", "B"),
    ("<answer> (d) </answer>", "D"),
    ("\\boxed{B}", "B"),
    ("The final answer is $\\boxed{\\text{C}}$.", "C"),
    ("Answer: b", "B"),
    ("Answer:\nD", "D"),
    ("The answer is B", "B"),
    ("The correct answer is (B).", "B"),
    ("The correct answer is (B): the lamp moved.", "B"),
    ("option B", "B"),
    ("I think option D fits best.", "D"),
    ("The best option is C.", "C"),
    ("I would choose E.", "E"),
    ("I'd go with option a", "A"),
    ("E is correct: nothing changed.", "E"),
    ("(C) is the right answer", "C"),
    ("<think>Image A has a red cup, image B a blue one. Maybe A or B?</think>\nA", "A"),
    ("<think>hmm</think>The answer is e.", "E"),
    ("The answer is B. Wait, looking again at the lamp, the answer is C.", "C"),
    ("Answer: A. Actually no. Final answer: D", "D"),
    ("There is no visible difference between the two images.", "E"),
    ("A dog was added near the door in the second image.", "C"),
    ("B. The cup on the table turned blue.", "B"),
    ("B because the cup changed colour", "B"),
    ("B - the cup changed colour", "B"),
    ("A. The cup changed colour", "A"),
    ("The answer is A because the lamp is gone", "A"),
    ("The answer is a.", "A"),
    ("Comparing both images carefully, the lamp has moved.\n\nB", "B"),
    ("The lamp has moved. Therefore, B.", "B"),
    ("Image A shows a red cup while Image B shows a blue cup, so the answer is (A).", "A"),
    ("It's not A. The answer is E", "E"),
    ("**Answer:** **C**", "C"),
    ("I can't be certain, but I think the answer is B.", "B"),
]

NONE = [
    "",
    "   ",
    "I'm sorry, but I can't help with identifying people in images.",
    "I cannot determine the difference between the two images.",
    "I'm sorry, I can't see the images clearly. Option B, maybe?",
    "Unfortunately the images are too small.\n\nC",
    "A or B",
    "B, C",
    "The answer is B or C.",
    "answer: B/C",
    "It could be either A or D.",
    "A. The cup changed from red to blue\nB. The lamp moved to the left\nC. A dog was added\nD. The clock disappeared"
    "\nE. None",
    "F",
    "The answer is F.",
    "A red cup appears in the first image.",
    "A lamp and a clock are visible in both images.",
    "Image A shows a cat while Image B shows a dog.",
    "Option A is wrong and option B is wrong too.",
    "<think>The cup in image A is red... I think the answer is",
    "The answer is not the lamp.",
    "It is not that the lamp moved to the left.",
    "B. Hmm.\n\nC",
    "The cup changed from red to blue and the lamp moved to the left.",
]


@pytest.mark.parametrize("response,expected", READ)
def test_reads_explicit_answers(response, expected):
    assert extract_choice(response, OPTIONS) == expected


@pytest.mark.parametrize("response", NONE)
def test_returns_none_rather_than_guess(response):
    assert extract_choice(response, OPTIONS) is None


def test_none_input():
    assert extract_choice(None, OPTIONS) is None


def test_lowercase_letter_set_reads_positions():
    assert extract_choice("(a) top left", POSITIONS, letters="abcd") == "a"
    assert extract_choice("The target is in the bottom right corner.", POSITIONS, letters="abcd") == "d"
    assert extract_choice("a panel in the middle shows it", POSITIONS, letters="abcd") is None
    assert extract_choice("E", POSITIONS, letters="abcd") is None


@pytest.mark.parametrize(
    "response,expected",
    [("B", "B"), ("b", "B"), (" (C). ", "C"), ("**E**", "E"), ("B because", None), ("The answer is B", None),
     ("F", None), ("", None), ("B C", None), ("1", None)],
)
def test_strict_protocol(response, expected):
    assert extract_choice(response, OPTIONS, strict=True) == expected


letters = st.sampled_from("ABCDE")
case = st.sampled_from([str.upper, str.lower])
WRAPPERS = [
    "{}", " {} ", "({})", "{}.", "{})", "[{}]", "**{}**", "<answer>{}</answer>", "\\boxed{{{}}}", "Answer: {}",
    "The answer is {}", "The correct answer is ({}).", "option {}", "Final answer: {}",
    "<think>Image A and image B differ. A or B?</think>{}", "{}. Because the lamp moved.",
]


@given(letter=letters, to_case=case, wrapper=st.sampled_from(WRAPPERS))
def test_explicit_letter_read_in_any_case_and_wrapper(letter, to_case, wrapper):
    assert extract_choice(wrapper.format(to_case(letter)), OPTIONS) == letter


@given(first=letters, second=letters)
def test_last_statement_wins_when_response_corrects_itself(first, second):
    response = f"The answer is {first}. Wait, let me look again at the image. The answer is {second}."
    assert extract_choice(response, OPTIONS) == second


@given(first=letters, second=letters, joiner=st.sampled_from([" or ", ", ", "/", " and "]))
def test_several_letters_offered_give_none(first, second, joiner):
    assert extract_choice(f"The answer is {first}{joiner}{second}", OPTIONS) is None
    assert extract_choice(f"{first}{joiner}{second}", OPTIONS) is None


@given(st.text(max_size=300))
@settings(max_examples=300)
def test_any_text_gives_a_valid_letter_or_none(text):
    assert extract_choice(text, OPTIONS) in {None, *"ABCDE"}


@given(st.text(max_size=200))
def test_deterministic(text):
    assert extract_choice(text, OPTIONS) == extract_choice(text, OPTIONS)


words = st.lists(st.text(alphabet=string.ascii_lowercase, min_size=2, max_size=8), min_size=1, max_size=8)


@given(article=st.sampled_from(["A", "a"]), rest=words, end=st.sampled_from([".", "", "!"]))
def test_article_a_is_never_an_answer(article, rest, end):
    assert extract_choice(f"{article} {' '.join(rest)}{end}", OPTIONS) is None


@given(letter=letters, noun=st.sampled_from(["Image", "image", "Picture", "photo", "panel"]), rest=words)
def test_image_references_are_never_answers(letter, noun, rest):
    assert extract_choice(f"{noun} {letter} {' '.join(rest)}.", OPTIONS) is None


@given(letter=st.sampled_from("FGHJKXYZ"), wrapper=st.sampled_from(WRAPPERS[:14]))
def test_letters_outside_the_valid_set_give_none(letter, wrapper):
    assert extract_choice(wrapper.format(letter), OPTIONS) is None


@given(index=st.integers(0, 4), prefix=st.sampled_from(["", "I believe ", "In my view: "]))
def test_option_text_without_letter(index, prefix):
    assert extract_choice(prefix + OPTIONS[index].lower() + ".", OPTIONS) == "ABCDE"[index]


@given(letter=letters, to_case=case, pad=st.text(alphabet=" \n\t.()*[]:!", max_size=6))
def test_strict_accepts_one_letter_with_punctuation(letter, to_case, pad):
    assert extract_choice(pad + to_case(letter) + pad[::-1], OPTIONS, strict=True) == letter


@given(letter=letters, rest=words)
def test_strict_rejects_any_extra_words(letter, rest):
    assert extract_choice(f"{letter} {' '.join(rest)}", OPTIONS, strict=True) is None
