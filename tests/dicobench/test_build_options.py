"""`build(out, BuildConfig(...))` and the keyword form build the same thing; the CLIs fill the
config from their flags; a config is validated in one place."""

import argparse
import dataclasses
import json

import pytest

import dicobench
import multipanelvqa
from dicobench.build import build, generation_options
from dicobench.build_config import BuildConfig
from dicobench.cli.build import config as cli_config
from dicobench.cli.build import register
from dicobench.kit.engines.driver import RunOptions
from dicobench.kit.errors import UserError
from multipanelvqa.build import build as build_multipanel
from multipanelvqa.build_config import BuildConfig as MpvConfig
from multipanelvqa.cli.build import config as mpv_cli_config
from multipanelvqa.cli.build import register as mpv_register


def _files(folder):
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.glob("*/*.parquet"))}


def _parse(register_build, argv):
    parser = argparse.ArgumentParser()
    register_build(parser.add_subparsers())
    return parser.parse_args(["build", "--out", "x", *argv])


def test_config_and_keywords_give_the_same_build(tmp_path):
    typed = build(tmp_path / "typed", dicobench.BuildConfig(per_task=2, tasks="entity,instance", rows_per_shard=1,
                                                            num_proc=1, progress=False))
    keywords = build(tmp_path / "kw", per_task=2, tasks="entity,instance", rows_per_shard=1, num_proc=1,
                     progress=False)
    assert _files(typed) == _files(keywords) and len(_files(typed)) == 4
    with pytest.raises(TypeError, match="not both"):
        build(tmp_path / "x", BuildConfig(), per_task=1)
    with pytest.raises(TypeError, match="per_tasks"):
        build(tmp_path / "x", per_tasks=1)


def test_multipanelvqa_config_and_keywords_give_the_same_build(tmp_path):
    common = dict(layouts="6", sources="procedural_edit", configs="original", num_proc=1, progress=False)
    typed = build_multipanel(tmp_path / "typed", multipanelvqa.BuildConfig(**common))
    keywords = build_multipanel(tmp_path / "kw", **common)
    assert _files(typed) == _files(keywords) and _files(typed)
    with pytest.raises(TypeError, match="not both"):
        build_multipanel(tmp_path / "x", MpvConfig(), seed=1)


def test_the_cli_fills_the_config_with_the_same_defaults():
    assert dataclasses.replace(cli_config(_parse(register, [])), axes=None) == BuildConfig()
    mpv = mpv_cli_config(_parse(mpv_register, []))
    assert mpv.source_list() == MpvConfig().source_list()  # the flag's "a,b" names the default's sources
    assert dataclasses.replace(mpv, axes=None, sources=MpvConfig().sources, source_data=None,
                               source_split=None) == MpvConfig()
    args = _parse(register, ["--source", "folder:photos", "--upscale", "--split", "train", "--editor", "diffusers:m",
                             "--api-key", "sk-test-key", "--quiet", "--per-task", "5"])
    config = cli_config(args)
    assert (config.source, config.upscale, config.editor, config.per_task) == ("folder:photos", True, "diffusers:m", 5)
    assert config.api_key == "sk-test-key" and "sk-test-key" not in repr(config) + json.dumps(config.record())
    assert config.run_options() == RunOptions(split="train", num_proc=1, progress=False)  # an editor loads per process
    mpv = mpv_cli_config(_parse(mpv_register, ["--layouts", "0-6", "--api-key", "secret", "--magicbrush", "data"]))
    assert mpv.layouts == "0-6" and mpv.source_data["magicbrush"] == "data" and "secret" not in repr(mpv)


def test_record_leaves_out_how_it_runs_and_where_models_are():
    record = BuildConfig(num_proc=3, engine="ray", base_url="http://x", api_key="k", overwrite=True).record()
    assert record == BuildConfig().record() and "api_key" not in record and "num_proc" not in record
    assert "tasks" in record and "camera" in record
    record = MpvConfig(llm_api_key="k", llm_base_url="http://x", num_proc=2).record()
    assert record == MpvConfig().record() and "llm_api_key" not in record


@pytest.mark.parametrize("fields, message", [
    (dict(per_task=0), "--per-task must be a positive integer"),
    (dict(per_task=2_000_000), "--per-task 2000000 is too large"),
    (dict(num_shards=0), "--num-shards must be positive"),
    (dict(rows_per_shard=0), "rows per shard must be positive"),
    (dict(split="dev"), "unknown split 'dev'"),
    (dict(engine="spark"), "engine"),
    (dict(compress_level=10), "PNG compress level must be 0-9"),
    (dict(camera="yes"), "--camera must be one of none, on"),
    (dict(difficulty="brutal"), "--difficulty"),
    (dict(tasks="entity,colour"), "unknown task 'colour'"),
    (dict(tasks=""), "no task given"),
    (dict(test_photos=0.5), "apply to photo sources"),
    (dict(source="folder:x", test_photos=1.5), "--test-photos must be a share"),
    (dict(source="flickr:x"), "unknown source 'flickr:x'"),
    (dict(source="folder:x", editor="pix2pix"), "unknown editor"),
])
def test_a_config_is_refused_in_one_line(fields, message):
    with pytest.raises(UserError, match=message) as caught:
        BuildConfig(**fields).validate()
    assert "\n" not in str(caught.value)


@pytest.mark.parametrize("fields, message", [
    (dict(split="dev"), "unknown split 'dev'"),
    (dict(images=0), "--images must be a positive integer"),
    (dict(sources="flickr"), "unknown source 'flickr'"),
    (dict(configs="sepia"), "unknown config 'sepia'"),
    (dict(images_per_shard=0), "images per shard must be positive"),
    (dict(compress_level=-1), "PNG compress level must be 0-9"),
    (dict(difficulty="brutal"), "--difficulty"),
    (dict(questions="gpt"), "unknown question source 'gpt'"),
])
def test_a_multipanelvqa_config_is_refused_in_one_line(fields, message):
    with pytest.raises(UserError, match=message) as caught:
        MpvConfig(**fields).validate()
    assert "\n" not in str(caught.value)


@pytest.mark.parametrize("difficulty, level, writer",
                         [("easy", 1, "pillow"), ("hard", 5, "sub-up"), ("extreme", 6, "sub-up")])
def test_a_difficulty_chooses_the_png_level_and_writer(difficulty, level, writer):
    opts, _, _ = generation_options(BuildConfig(difficulty=difficulty))
    assert (opts.compress_level, opts.png_writer) == (level, writer)
    opts, _, _ = generation_options(BuildConfig(difficulty=difficulty, compress_level=9))
    assert (opts.compress_level, opts.png_writer) == (9, writer)  # the level is the user's, the writer the preset's
