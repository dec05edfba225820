"""One command-line grammar on both CLIs: the dataset is `--dataset` everywhere, `-n/--n` alike,
a Hub token and a page token with names of their own, `--model` only the model to ask, and the
same export and import commands; the first release's spellings still parse, unlisted."""

from __future__ import annotations

import argparse

import pytest

from dicobench.cli.main import main as dicobench_main
from dicobench.cli.main import parser as dicobench_parser
from dicobench.kit.cli.commands import _dataset_given
from multipanelvqa.cli.main import parser as multipanelvqa_parser

PARSERS = {"dicobench": dicobench_parser, "multipanelvqa": multipanelvqa_parser}


def _commands(parser: argparse.ArgumentParser, path=()):
    """(command path, parser) of every leaf subcommand."""
    subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    if not subs:
        yield path, parser
    for action in subs:
        for name, sub in action.choices.items():
            yield from _commands(sub, (*path, name))


def _listed(parser: argparse.ArgumentParser) -> dict[str, argparse.Action]:
    """The options and positionals `--help` shows, by name."""
    shown = {}
    for action in parser._actions:
        if action.help is argparse.SUPPRESS:
            continue
        for name in action.option_strings or [action.dest]:
            shown[name] = action
    return shown


@pytest.fixture(scope="module", params=sorted(PARSERS))
def commands(request):
    return request.param, dict(_commands(PARSERS[request.param]()))


def test_every_dataset_is_named_with_dataset(commands):
    _, found = commands
    readers = {path for path, p in found.items() if "--dataset" in _listed(p)}
    for path in [("push",), ("info",), ("preview",), ("review",), ("study",), ("human",), ("eval",), ("score",),
                 ("export", "lmms-eval"), ("export", "vlmevalkit"), ("import", "lmms-eval")]:
        assert path in readers, path
    for path, p in found.items():
        assert not {"dir", "dataset"} & set(_listed(p)), f"{path} lists the dataset as a positional"


def test_tokens_counts_and_models_mean_one_thing(commands):
    _, found = commands
    for path, p in found.items():
        shown = _listed(p)
        assert "--token" not in shown, path
        assert ("-n" in shown) == ("--n" in shown), path
        if "--model" in shown:
            assert path == ("eval",), f"{path}: --model is the model eval asks; score records --model-id"
        assert "--no-progress" not in shown, path
    assert "--hub-token" in _listed(found[("push",)]) and "--hub-token" in _listed(found[("publish-metric",)])
    assert "--page-token" in _listed(found[("review",)]) and "--page-token" in _listed(found[("study",)])
    assert "--model-id" in _listed(found[("score",)])


def test_both_exports_and_imports_share_their_flags(commands):
    _, found = commands
    for harness in ("lmms-eval", "vlmevalkit"):
        assert {"--dataset", "--out", "--config", "--split"} <= set(_listed(found[("export", harness)])), harness
        assert ("import", harness) in found
    assert "--quiet" in _listed(found[("build",)])


@pytest.mark.parametrize("argv", [["push", "d", "--repo-id", "a/b"], ["push", "--dataset", "d", "--repo-id", "a/b"]])
def test_the_first_releases_positional_still_names_the_dataset(argv):
    args = dicobench_parser().parse_args(argv)
    assert _dataset_given(args) is None and str(args.dir) == "d"


def test_old_token_and_model_spellings_still_parse():
    parser = dicobench_parser()
    assert parser.parse_args(["push", "--dataset", "d", "--repo-id", "a/b", "--token", "t"]).hub_token == "t"
    assert parser.parse_args(["review", "--dataset", "d", "--token", "t"]).token == "t"
    assert parser.parse_args(["review", "--dataset", "d", "--page-token", "t"]).token == "t"
    assert parser.parse_args(["score", "p.jsonl", "--dataset", "d", "--model", "m"]).model == "m"
    assert parser.parse_args(["score", "p.jsonl", "--dataset", "d", "--model-id", "m"]).model == "m"


@pytest.mark.parametrize("argv, message", [
    (["push", "--repo-id", "a/b"], "required: --dataset"),
    (["push", "d", "--dataset", "e", "--repo-id", "a/b"], "given twice"),
    (["preview", "--out", "x.png"], "required: --dataset"),
])
def test_a_missing_or_doubled_dataset_is_one_usage_line(argv, message, capsys):
    with pytest.raises(SystemExit) as exit_:
        dicobench_main(argv)
    err = capsys.readouterr().err.strip()
    assert exit_.value.code == 2 and len(err.splitlines()) == 1 and message in err


def test_dataset_check_is_silent_for_commands_without_one():
    assert _dataset_given(argparse.Namespace(command="catalogue")) is None
