"""Answer extraction, the classes added to what careful readers read: answers stated in Chinese, a
bare letter closing a reply after a sentence, labelled verdicts, and a negated option followed by
the chosen one. Each class comes with near misses that must stay None (never a guess)."""

import pytest

from dicobench.kit.eval.extract import extract_choice
from tests.kit.test_extract import OPTIONS, POSITIONS

CHINESE = [
    ("答案是B", "B"),
    ("答案是：C。", "C"),
    ("答案：D", "D"),
    ("答案: E", "E"),
    ("答案为（b）", "B"),
    ("答案应该是 A，因为杯子变色了。", "A"),
    ("我选A", "A"),
    ("选B", "B"),
    ("选择C，因为杯子变了", "C"),
    ("经过比较，两张图片中杯子的颜色不同，所以答案是B。", "B"),
    ("答案是选项D", "D"),
    ("一开始我想选A，但仔细看灯的位置，答案是C。", "C"),
]
CHINESE_NONE = ["答案不是A", "不选A", "选项A和B都不对", "答案是A或B", "答案是A、C", "答案是F", "我不确定答案。",
                "选项A"]

CLOSING = [
    ("The lamp moved in both images. A", "A"),
    ("There is a difference in the cup. B.", "B"),
    ("Only the clock differs between the two photos! D", "D"),
    ("The cup changed colour. (C)", "C"),
    ("I compared both images carefully.\nThe lamp is in another place. B", "B"),
]
CLOSING_NONE = [
    "I like plan A",
    "It is vitamin C.",
    "The lamp moved. I",
    "The lamp moved. F",
    "Option B looks right. A",
    "B. The lamp moved. C",
    "Unfortunately the images are too small. C",
    "Is it the lamp? B or C",
]

VERDICTS = [
    ("Selected: E", "E"),
    ("Conclusion: D", "D"),
    ("Final choice - B", "B"),
    ("Final choice – C", "C"),
    ("Verdict: C", "C"),
    ("Selection: (b)", "B"),
    ("My choice: D", "D"),
    ("The cup looks the same in both.\nConclusion: E", "E"),
]
VERDICTS_NONE = [
    "Conclusion: the images differ",
    "Selected: A or B",
    "Verdict: F",
    "My choice: I cannot tell",
    "Conclusion: A red cup appears in the first image.",
]

NEGATED = [
    ("not A. It is C", "C"),
    ("It's not A, it's C.", "C"),
    ("Not B; D.", "D"),
    ("It is not option A, but rather option E.", "E"),
    ("The answer is not B. It must be D", "D"),
]
NEGATED_NONE = ["not A or B", "It is not A.", "not A. It is A", "The answer is not A. C or D.", "Not A, B or C."]


@pytest.mark.parametrize("response,expected", CHINESE + CLOSING + VERDICTS + NEGATED)
def test_reads_each_new_class(response, expected):
    assert extract_choice(response, OPTIONS) == expected


@pytest.mark.parametrize("response", CHINESE_NONE + CLOSING_NONE + VERDICTS_NONE + NEGATED_NONE)
def test_near_misses_stay_none(response):
    assert extract_choice(response, OPTIONS) is None


def test_new_classes_with_lowercase_position_letters():
    assert extract_choice("答案是c", POSITIONS, letters="abcd") == "c"
    assert extract_choice("The target is the second panel. b", POSITIONS, letters="abcd") == "b"
    assert extract_choice("Selected: d", POSITIONS, letters="abcd") == "d"
    assert extract_choice("答案是E", POSITIONS, letters="abcd") is None


def test_strict_protocol_ignores_the_new_classes():
    for response in ("答案是B", "Selected: E", "The lamp moved. A"):
        assert extract_choice(response, OPTIONS, strict=True) is None
