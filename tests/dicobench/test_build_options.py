"""`build(out, Options(...))` and the keyword form build the same thing; the CLI builds the options."""

import argparse

import pytest

from dicobench.kit.engines.driver import RunOptions
from dicobench.kit.errors import UserError
from dicobench.build import Options, Photos, Procedural, build, source_settings
from dicobench.cli.build import options as cli_options
from dicobench.cli.build import register
from multipanelvqa.build import Options as MpvOptions
from multipanelvqa.build import build as build_multipanel


def _files(folder):
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.glob("*/*.parquet"))}


def test_options_and_keywords_give_the_same_build(tmp_path):
    typed = build(tmp_path / "typed", Options(per_task=2, tasks="entity,instance", rows_per_shard=1,
                                              run=RunOptions(num_proc=1, progress=False)))
    keywords = build(tmp_path / "kw", per_task=2, tasks="entity,instance", rows_per_shard=1, num_proc=1, progress=False)
    assert _files(typed) == _files(keywords) and len(_files(typed)) == 4
    with pytest.raises(TypeError, match="not both"):
        build(tmp_path / "x", Options(), per_task=1)


def test_multipanelvqa_options_and_keywords_give_the_same_build(tmp_path):
    common = dict(layouts="6", sources="procedural_edit", configs="original")
    typed = build_multipanel(tmp_path / "typed", MpvOptions(**common, run=RunOptions(num_proc=1, progress=False)))
    keywords = build_multipanel(tmp_path / "kw", **common, num_proc=1, progress=False)
    assert _files(typed) == _files(keywords) and _files(typed)


def test_the_cli_builds_typed_options():
    parser = argparse.ArgumentParser()
    register(parser.add_subparsers())
    args = parser.parse_args(["build", "--out", "x", "--source", "folder:photos", "--upscale", "--split", "train",
                              "--editor", "diffusers:m", "--api-key", "k", "--quiet"])
    opts = cli_options(args)
    assert isinstance(opts.source, Photos) and opts.source.upscale and opts.source.models.editor == "diffusers:m"
    assert opts.source.endpoint.api_key == "k" and "k" not in repr(opts.source.endpoint)
    assert opts.run == RunOptions(split="train", progress=False)
    assert source_settings("procedural") == Procedural()
    with pytest.raises(UserError, match="apply to photo sources"):
        source_settings("procedural", test_photos=0.5)


@pytest.mark.parametrize("difficulty, level, writer", [("easy", 1, "pillow"), ("hard", 6, "sub-up"), ("extreme", 6, "pillow")])
def test_a_difficulty_chooses_the_png_level_and_writer(difficulty, level, writer):
    from dicobench.build import generation_options

    opts, _, _ = generation_options(Options.of(difficulty=difficulty))
    assert (opts.compress_level, opts.png_writer) == (level, writer)
    opts, _, _ = generation_options(Options.of(difficulty=difficulty, compress_level=9))
    assert (opts.compress_level, opts.png_writer) == (9, writer)  # the level is the user's, the writer the preset's
