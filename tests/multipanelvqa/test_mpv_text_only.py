"""No text-only shortcut: strategies that read only a row's question (and Q3's choices) stay at
chance per question type on the default (hard) build; the measures themselves are checked on
hand-made rows and images (multipanelvqa.shortcuts)."""

import numpy as np
import pyarrow.parquet as pq
import pytest

from multipanelvqa.build import build
from multipanelvqa.schema import QUESTION_TYPES
from multipanelvqa.shortcuts import odd_one_out, text_only


def _within_chance(accuracy: float, chance: float, n: int) -> bool:
    """Not above chance by more than a 99.9% binomial band."""
    return accuracy * n <= n * chance + 3.3 * (n * chance * (1 - chance)) ** 0.5


def test_text_only_strategies_find_what_text_gives_away():
    rows = [{"question_type": "q1", "question": 'Is "red" the answer to the question "Q?" for all the subfigures?',
             "answer": "no"},
            {"question_type": "q1", "question": 'Is there any subfigure for which ... is "red"?', "answer": "yes"},
            {"question_type": "q3", "choices": ["left subfigure", "none of the subfigures", "all of the subfigures",
                                                "right subfigure"], "answer": "a", "num_subfigures": 2}]
    # halves: cat and cow, dog
    rows += [{"question_type": "q2",
              "question": f"Look at the left subfigure. Is there a {x} in the image? Please answer briefly.",
              "answer": "yes"} for x in ("cat", "dog", "cow")]
    got = text_only(rows)
    assert got["q1"]["any yes, all no"] == 1.0 and got["q1"]["always yes"] == 0.5
    assert got["q3"]["first choice that is no filler"] == 1.0 and "q3, 4+ panels" not in got
    assert got["q2"]["templates"]["Is there"] == {"rows": 3, "chance": 0.5, "accuracy": 1.0}


def test_q3_text_reads_rank_length_words_and_letters():
    """Each Q3 text read names the choice it says: ranks of length in words and in characters
    (ties by letter), words shared with the question or the other choices, alphabetical order."""
    from multipanelvqa.shortcuts import Q3_STRATEGIES

    choices = ["top left subfigure", "left subfigure in the top row", "right subfigure", "subfigure in the middle row"]
    question = 'Which subfigure has "2" as the answer to the question "How many cups are in the row?"?\n' + "\n".join(
        f"{l}. {c}" for l, c in zip("abcd", choices))
    picks = {name: pick(choices, question) for name, pick in Q3_STRATEGIES.items()}
    assert [picks[f"{r} in words"]
            for r in ("shortest", "second shortest", "second longest", "longest")] == [2, 0, 3, 1]
    assert [picks[f"{r} in characters"]
            for r in ("shortest", "second shortest", "second longest", "longest")] == [2, 0, 3, 1]
    assert picks["most words shared with the question"] == 1  # subfigure, in, the, row
    assert (picks["most words shared with the other choices"] == 1
            and picks["fewest words shared with the other choices"] == 2)
    assert picks["alphabetically first"] == 1 and picks["alphabetically last"] == 0
    rows = [{"question_type": "q3", "question": question, "choices": choices, "answer": l, "num_subfigures": 4}
            for l in "abcd"]
    got = text_only(rows)["q3, 4+ panels"]
    assert all(got[name] == 0.25 for name in Q3_STRATEGIES), got


def test_odd_one_out_picks_the_panel_that_differs_most():
    thumbs = np.zeros((4, 8, 8, 3), np.float32)
    thumbs[2] += 50  # panel 2 is the odd one
    assert odd_one_out(thumbs, [0, 1, 2, 3], target=2) == 1.0 and odd_one_out(thumbs, [0, 1, 2, 3]) == 0.0
    assert odd_one_out(thumbs, [0, 1]) == 0.5  # two identical panels: a tie
    with pytest.raises(ValueError):
        odd_one_out(thumbs, [1, 2])


@pytest.mark.slow
def test_hard_build_gives_text_alone_nothing(tmp_path):
    """Five image sets per source over the 35 splash layouts they fill: Q1 (any/all and yes/no),
    Q2 (the most common answer of the question's template) and Q3 (over images of four panels
    or more; with fewer, the paper's fillers are never right) stay within chance."""
    out = build(tmp_path / "b", layouts="0-34", configs="original", num_proc=2, progress=False)
    rows = [r for f in sorted((out / "original").glob("*.parquet")) for r in pq.read_table(f).to_pylist()]
    for r in rows:
        r["question_type"] = QUESTION_TYPES[r["question_type"]]
    got = text_only(rows)
    assert "Is there" not in got["q2"]["templates"]  # no presence questions: their answer was always yes
    for qtype in ("q1", "q2", "q3, 4+ panels"):
        stats = got[qtype]
        for name, accuracy in stats.items():
            if name not in ("rows", "chance", "templates"):
                assert _within_chance(accuracy, stats["chance"], stats["rows"]), (qtype, name, accuracy, stats)
