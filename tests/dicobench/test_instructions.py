import json

import numpy as np
import pytest

from dicobench.editors.instructions import EditVerifier, InstructionError, InstructionGenerator, parse_instruction
from dicobench.kit.eval.chat import ChatClient
from tests.openai_stub import StubServer

REGION = np.full((32, 48, 3), 120, np.uint8)


def numbered(body) -> str:
    """A valid reply whose instruction counts the earlier ones the prompt fed back."""
    text = body["messages"][0]["content"][0]["text"]
    n = text.count("\n- ")
    return ("```json\n" + json.dumps({"instruction": f"paint the cup colour {n}", "option": f"The cup is colour {n}."})
            + "\n```")


def client(stub) -> ChatClient:
    return ChatClient("gpt-test", base_url=stub.base_url, api_key="sk-test", backoff=0.01)


def test_six_instructions_with_earlier_ones_fed_back():
    with StubServer(reply=numbered) as stub:
        found = InstructionGenerator(client(stub)).generate(REGION, "cup", "attribute")
    assert [f.instruction for f in found] == [f"paint the cup colour {n}" for n in range(6)]
    assert found[2].option == "The cup is colour 2."
    last = stub.requests[-1]["body"]["messages"][0]["content"]
    assert all(f"- paint the cup colour {n}" in last[0]["text"] for n in range(5))
    assert last[1]["image_url"]["url"].startswith("data:image/png;base64,")
    assert "change an attribute" in last[0]["text"]


def test_invalid_or_repeated_replies_are_asked_again_with_the_reason():
    with StubServer(reply=numbered) as stub:
        stub.script.extend([("ok", "Sure! Make it blue."), ("ok", json.dumps({"instruction": "x"}))])
        found = InstructionGenerator(client(stub), per_mask=1).generate(REGION, "cup", "entity")
    assert found[0].instruction == "paint the cup colour 0" and len(stub.requests) == 3
    followup = stub.requests[2]["body"]["messages"]
    assert followup[-1]["content"].startswith("Invalid: the object needs non-empty strings")
    with StubServer(reply=lambda body: json.dumps({"instruction": "same", "option": "Same."})) as stub:
        with pytest.raises(InstructionError, match="3 attempts"):
            InstructionGenerator(client(stub), per_mask=2).generate(REGION, "cup", "entity")


def test_parse_instruction_rejects_bad_json():
    assert parse_instruction('{"instruction": " a ", "option": "b"}').instruction == "a"
    for bad in ("no json", "[1, 2]", '{"instruction": "", "option": "b"}', '{"instruction": "a", "option": 3}'):
        with pytest.raises(ValueError):
            parse_instruction(bad)


def test_verifier_reads_the_verdict_and_reports_unusable_answers():
    with StubServer() as stub:
        verifier = EditVerifier(client(stub))
        stub.script.extend([("ok", '{"matches": true}'), ("ok", '{"matches": false}'), ("ok", "maybe")])
        assert verifier.verify(REGION, REGION + 1, "paint it red") is True
        assert verifier.verify(REGION, REGION + 2, "paint it red") is False
        assert verifier.verify(REGION, REGION + 3, "paint it red") is None
        content = stub.requests[0]["body"]["messages"][0]["content"]
        assert ([c["type"] for c in content] == ["text", "image_url", "image_url"]
                and "paint it red" in content[0]["text"])
