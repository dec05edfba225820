"""The OpenAI-compatible client against a local stub: retries, timeouts, concurrency, cache, key."""

import logging
import sys
import time

import pytest
from openai_stub import StubServer

from dicobench.kit.errors import UserError
from dicobench.kit.eval.chat import ChatClient
from dicobench.kit.eval.judge import parse_judge

KEY = "sk-test-SECRET-0123456789abcdef"


def ask(text):
    return [{"role": "user", "content": text}]


@pytest.fixture
def stub():
    with StubServer(reply=lambda body: "echo: " + body["messages"][-1]["content"]) as server:
        yield server


def client(stub, tmp_path=None, **kw):
    kw.setdefault("backoff", 0.01)
    return ChatClient("judge-model", base_url=stub.base_url, api_key=KEY, cache_dir=tmp_path, **kw)


def test_replies_in_order_at_temperature_zero_with_the_key(stub):
    c = client(stub)
    out = c.complete_many([ask("one"), ask("two"), ask("three")])
    assert [o.text for o in out] == ["echo: one", "echo: two", "echo: three"]
    assert all(r["body"]["temperature"] == 0 and r["body"]["model"] == "judge-model" for r in stub.requests)
    assert all(r["headers"]["authorization"] == f"Bearer {KEY}" for r in stub.requests)
    assert c.usage.prompt_tokens == 30 and c.usage.completion_tokens == 3 and c.usage.requests == 3


def test_key_from_environment(stub, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-from-env-123")
    ChatClient("m", base_url=stub.base_url).complete(ask("x"))
    assert stub.requests[-1]["headers"]["authorization"] == "Bearer sk-from-env-123"


def test_missing_key_for_openai_itself_is_a_user_error(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(UserError, match="OPENAI_API_KEY"):
        ChatClient("gpt-4o")


def test_retries_429_honouring_retry_after_then_500(stub):
    stub.script.extend([("429", 0.3), ("500",)])
    c = client(stub)
    start = time.monotonic()
    out = c.complete(ask("q"))
    assert out.text == "echo: q"
    assert time.monotonic() - start >= 0.3
    assert len(stub.requests) == 3 and c.usage.retries == 2 and c.usage.failures == 0


def test_hanging_request_times_out_and_is_retried(stub):
    stub.script.append(("hang", 5))
    c = client(stub, timeout=0.5)
    start = time.monotonic()
    assert c.complete(ask("q")).text == "echo: q"
    assert time.monotonic() - start < 4
    assert len(stub.requests) == 2


def test_persistent_failure_is_an_error_not_an_answer(stub):
    stub.script.extend([("500",)] * 3)
    c = client(stub, max_retries=2)
    out = c.complete(ask("q"))
    assert out.text is None and "InternalServerError" in out.error
    assert c.usage.failures == 1 and len(stub.requests) == 3


def test_rejected_key_stops_with_a_user_error_without_the_key(stub):
    stub.script.append(("401",))
    with pytest.raises(UserError) as info:
        client(stub).complete(ask("q"))
    assert KEY not in str(info.value)


def test_concurrency_is_bounded(stub):
    stub.delay = 0.1
    c = client(stub, concurrency=3)
    out = c.complete_many([ask(str(i)) for i in range(12)])
    assert [o.text for o in out] == [f"echo: {i}" for i in range(12)]
    assert 2 <= stub.max_in_flight <= 3


def test_cache_makes_a_rerun_send_nothing_and_never_holds_the_key(stub, tmp_path, caplog):
    caplog.set_level(logging.DEBUG)
    prompts = [ask("a"), ask("b"), ask("a")]
    first = client(stub, tmp_path).complete_many(prompts)
    assert len(stub.requests) == 2  # the repeated prompt was sent once
    again = client(stub, tmp_path)
    second = again.complete_many(prompts)
    assert len(stub.requests) == 2
    assert [o.text for o in second] == [o.text for o in first] and all(o.cached for o in second)
    assert again.usage.cache_hits == 3 and again.usage.requests == 0
    other_model = ChatClient("other-model", base_url=stub.base_url, api_key=KEY, cache_dir=tmp_path)
    other_model.complete(ask("a"))
    assert len(stub.requests) == 3  # the cache is keyed by model too
    for path in tmp_path.rglob("*"):
        assert KEY.encode() not in path.read_bytes()
    assert KEY not in caplog.text


def test_failures_are_not_cached(stub, tmp_path):
    stub.script.append(("500",))
    assert client(stub, tmp_path, max_retries=0).complete(ask("q")).text is None
    assert client(stub, tmp_path).complete(ask("q")).text == "echo: q"


def test_repr_hides_the_key(stub):
    assert KEY not in repr(client(stub))


def test_parse_judge():
    assert parse_judge("openai:gpt-4o") == "gpt-4o"
    assert parse_judge("openai:llama3:8b") == "llama3:8b"
    for bad in ("gpt-4o", "anthropic:claude", "openai:"):
        with pytest.raises(UserError):
            parse_judge(bad)


def test_a_judge_is_validated_once_the_same_way_for_both_benchmarks(tmp_path):
    import dicobench
    import multipanelvqa
    from dicobench.kit.eval.judge import Judge, as_judge

    assert dicobench.Judge is multipanelvqa.Judge is Judge  # one object in the shared layer
    judge = Judge.from_spec("openai:llama3:8b", base_url="http://127.0.0.1:8000/v1", api_key=KEY, cache=str(tmp_path),
                            concurrency=2, timeout=5, retries=0)
    assert (judge.spec, judge.model, judge.cache, judge.retries) == ("openai:llama3:8b", "llama3:8b", tmp_path, 0)
    assert KEY not in repr(judge) and judge == Judge.from_spec(  # the key is neither shown nor compared
        "openai:llama3:8b", base_url="http://127.0.0.1:8000/v1", cache=tmp_path, concurrency=2, timeout=5, retries=0)
    (tmp_path / "file").write_text("x")
    refused = {
        "expected an http:// or https:// URL": dict(base_url="ftp://x"),
        "concurrency must be an integer of at least 1": dict(concurrency=0),
        "retries must be an integer of at least 0": dict(retries=-1),
        "timeout must be a number of seconds above 0": dict(timeout=0),
        "exists and is not a folder": dict(cache=tmp_path / "file"),
    }
    for message, settings in refused.items():
        with pytest.raises(UserError, match=message):
            Judge.from_spec("openai:m", **settings)
    with pytest.raises(UserError, match="unknown judge 'gpt-4o'"):
        Judge.from_spec("gpt-4o")
    with pytest.raises(UserError, match="carries its own settings"):
        as_judge(judge, base_url="http://127.0.0.1:1/v1")
    assert as_judge(None) is None and as_judge(judge) is judge and as_judge("openai:m") == Judge("m")


def test_both_score_commands_build_the_same_judge_from_the_same_flags(tmp_path):
    import argparse

    from dicobench.cli.score import register as register_dicobench
    from dicobench.kit.cli.scoring import judge_from_args
    from dicobench.kit.eval.judge import Judge
    from multipanelvqa.cli.score import register as register_multipanel

    flags = ["--judge", "openai:j", "--judge-base-url", "http://127.0.0.1:1/v1", "--judge-api-key", KEY,
             "--judge-cache", str(tmp_path), "--judge-concurrency", "3", "--judge-timeout", "7.5",
             "--judge-retries", "1"]
    built = []
    for register in (register_dicobench, register_multipanel):
        parser = argparse.ArgumentParser()
        register(parser.add_subparsers(dest="command"))
        args = parser.parse_args(["score", "p.jsonl", "--dataset", "d", *flags])
        built.append(judge_from_args(args))
        assert judge_from_args(parser.parse_args(["score", "p.jsonl", "--dataset", "d"])) is None
    assert built[0] == built[1] == Judge("j", "http://127.0.0.1:1/v1", cache=tmp_path, concurrency=3, timeout=7.5,
                                         retries=1)
    assert built[0].api_key == built[1].api_key == KEY


def test_a_judge_asks_with_its_settings_and_the_key_stays_in_the_request(stub, tmp_path):
    from dicobench.kit.eval.judge import Judge

    stub.script.append(("500",))
    client = Judge.from_spec("openai:judge-model", base_url=stub.base_url, api_key=KEY, cache=tmp_path,
                             retries=0).client()
    assert client.complete(ask("q")).text is None and len(stub.requests) == 1  # retries=0: no second request
    assert client.complete(ask("q")).text == "echo: q"
    assert stub.requests[-1]["headers"]["authorization"] == f"Bearer {KEY}"
    client.close()
    assert all(KEY.encode() not in p.read_bytes() for p in tmp_path.rglob("*") if p.is_file())


def test_judge_requests_show_a_progress_bar_on_a_terminal(stub, tmp_path, capsys, monkeypatch):
    client(stub, tmp_path).complete_many([ask("q1"), ask("q2")])
    assert "asking judge-model" not in capsys.readouterr().err  # not a terminal: nothing
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    client(stub).complete_many([ask("q3"), ask("q4"), ask("q3")])
    err = capsys.readouterr().err
    assert "asking judge-model" in err and "/2 " in err  # the two distinct requests to send
