"""A web-app server's messages leave the library through its `announce` callback or `logging`
(the layer rule, tests/test_layers.py): the command prints them, a library call logs them."""

from __future__ import annotations

import logging

import pytest

pytest.importorskip("starlette")


def test_a_server_announces_to_its_callback_or_else_to_the_log(build_copy, caplog):
    from dicobench.benchmark import BENCHMARK
    from dicobench.kit.people.decisions import decisions_path
    from dicobench.kit.people.webapp.launch import review

    log = decisions_path(build_copy)
    log.parent.mkdir(parents=True, exist_ok=True)
    log.write_text("not json\n")
    lines: list[str] = []
    with caplog.at_level(logging.INFO, logger="dicobench.kit.people.webapp"):
        told = review(BENCHMARK.people, build_copy, port=0, reviewer="ann", background=True, announce=lines.append)
        told.stop()
        told_records = list(caplog.records)
        caplog.clear()
        logged = review(BENCHMARK.people, build_copy, port=0, reviewer="ann", background=True)
        logged.stop()
    assert (len(lines) == 1 and lines[0].startswith("dicobench review: ")
            and lines[0].endswith(f"; serving on {told.url}"))
    assert ", reviewer ann; " in lines[0]
    assert [r.levelno for r in told_records] == [logging.WARNING]  # the malformed line, never the announcement
    infos = [r.getMessage() for r in caplog.records if r.levelno == logging.INFO]
    assert infos == [lines[0].replace(told.url, logged.url)]
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert warnings == [f"warning: {log}:1: not valid JSON (Expecting value) (line kept; fix or remove it by hand)"]
