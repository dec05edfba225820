"""dicobench.kit.io.jsonl: lines end at \\n only, and a bad line is named."""

import json

import pytest

from dicobench.kit.errors import UserError
from dicobench.kit.io.jsonl import lines, read_objects
from dicobench.kit.people.human import read_sessions
from dicobench.kit.people.webapp.spec import STUDY_DIR


def test_a_line_separator_inside_a_string_does_not_split_a_record():
    text = json.dumps({"response": "one\u2028two"}, ensure_ascii=False) + "\n"
    assert len(lines(text)) == 1 and json.loads(lines(text)[0])["response"] == "one\u2028two"


def test_objects_skip_blank_lines_and_name_the_first_bad_one(tmp_path):
    path = tmp_path / "a.jsonl"
    path.write_text('{"id": "a"}\n\n{"id": "b"}\n', encoding="utf-8")
    assert [r["id"] for r in read_objects(path, lambda r: "id" in r, "a row")] == ["a", "b"]
    for bad in ('{"id": 1', '["id"]', '{"name": "c"}'):
        path.write_text('{"id": "a"}\n' + bad + "\n", encoding="utf-8")
        with pytest.raises(UserError, match=f"^{path}:2: not a row$"):
            read_objects(path, lambda r: "id" in r, "a row")


def test_a_study_answer_without_its_participant_is_named(tmp_path):
    (tmp_path / STUDY_DIR).mkdir()
    session = tmp_path / STUDY_DIR / "p01-30.jsonl"
    session.write_text('{"id": "r1", "response": "A", "time_limit": 30}\n', encoding="utf-8")
    named = r"p01-30.jsonl:1: not a study answer \(id, response, time_limit, participant\)"
    with pytest.raises(UserError, match=named):
        read_sessions(tmp_path)
