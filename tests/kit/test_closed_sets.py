"""Closed sets of names are `Literal` types, each defined once, and the checks and fields use them:
the build splits (`kit.engines.driver.Split`), the engines (`kit.engines.local.Engine`) and the
kinds of leaderboard row (`kit.report.leaderboard.RowKind`)."""

from __future__ import annotations

import typing

import pytest

from dicobench.kit.engines.driver import SPLITS, RunOptions, Split, check_split
from dicobench.kit.engines.local import ENGINES, Engine, check_engine
from dicobench.kit.errors import UserError
from dicobench.kit.report.leaderboard import Column, Row, RowKind, leaderboard_table


def test_the_checks_accept_exactly_the_literal_values():
    assert typing.get_args(Split) == tuple(SPLITS) == ("test", "train")
    assert typing.get_args(Engine) == ENGINES == ("local", "ray")
    for split in typing.get_args(Split):
        check_split(split)
    check_engine("local", None)
    with pytest.raises(UserError, match="unknown split 'validation'"):
        check_split("validation")
    with pytest.raises(UserError, match="unknown engine 'dask'"):
        check_engine("dask", None)


@pytest.mark.parametrize("config", ["dicobench.build_config", "multipanelvqa.build_config"])
def test_the_build_configs_and_run_options_are_typed_with_them(config):
    import importlib

    module = importlib.import_module(config)
    assert module.Split is Split and module.Engine is Engine  # the one definition, imported
    for typed in (module.BuildConfig, RunOptions):
        assert typed.__annotations__["split"] == "Split" and typed.__annotations__["engine"] == "Engine", typed


def test_a_leaderboard_makes_only_the_row_kinds_it_declares():
    assert typing.get_type_hints(Row)["kind"] == RowKind
    column = Column("accuracy", "Accuracy", "", lambda scores: scores)
    runs = [{"accuracy": 0.5, "n": 10}]
    table = leaderboard_table("t", [column], {"m": runs}, {"accuracy": 0.2}, {"Human (60 s)": runs})
    assert [row.kind for row in table.rows] == ["model", "chance", "human"]
    assert {row.kind for row in table.rows} <= set(typing.get_args(RowKind))
