"""Every command fails the documented way: one `error:` line on stderr and exit status 2, with
nothing written where it should not be. Bad paths, files of the other benchmark, datasets of an
older layout, output paths that cannot be written, malformed option values."""

import argparse
import json
import os
import subprocess
import sys

import datasets
import pyarrow.parquet as pq
import pytest

from dicobench.build import build as build_dicobench
from dicobench.cli.main import main as dicobench
from dicobench.schema import features
from multipanelvqa.build import build as build_multipanelvqa
from multipanelvqa.cli.main import main as multipanelvqa

CLIS = {"dicobench": dicobench, "multipanelvqa": multipanelvqa}
OLD_CARD = """---
license: cc-by-4.0
configs:
- config_name: attribute
  data_files:
  - split: test
    path: [attribute/test-*.parquet]
- config_name: all
  default: true
  data_files:
  - split: test
    path: [attribute/test-*.parquet]
---
# A card as older versions wrote it: configs, no dataset_info
"""


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """One tiny build of each benchmark, two copies of the DiCoBench one as older versions could
    have written it (no `huggingface` schema metadata, so ClassLabels read as ints; typed, but
    without the `cues` column), and predictions answering every row."""
    root = tmp_path_factory.mktemp("errors")
    dico = build_dicobench(root / "dico", per_task=1, tasks=["attribute"], num_proc=1, progress=False)
    mpv = build_multipanelvqa(root / "mpv", layouts=[0], configs=["original"], num_proc=1, progress=False)
    no_cues = datasets.Features({k: v for k, v in features().items() if k != "cues"})
    for name, change in (("untyped", lambda t: t.replace_schema_metadata(None)),
                         ("no_cues", lambda t: t.drop_columns(["cues"]).cast(no_cues.arrow_schema))):
        (root / name / "attribute").mkdir(parents=True)
        (root / name / "README.md").write_text(OLD_CARD)
        for shard in (dico / "attribute").glob("*.parquet"):
            pq.write_table(change(pq.read_table(shard)), root / name / "attribute" / shard.name)
    preds = {}
    for name, folder in (("dico", dico), ("mpv", mpv)):
        ids = datasets.load_dataset(str(folder), "all", split="test", columns=["id"])["id"]
        preds[name] = root / f"{name}.jsonl"
        preds[name].write_text("".join(json.dumps({"id": i, "response": "A"}) + "\n" for i in ids))
    a_file = root / "a_file"
    a_file.write_text("not a folder\n")
    return {"dico": dico, "mpv": mpv, "untyped": root / "untyped", "no_cues": root / "no_cues", "preds": preds,
            "file": a_file, "root": root}


def fails(cli: str, argv, capsys, *needles) -> str:
    """Run `cli argv` in process; assert status 2 and a single `cli: error:` line holding `needles`."""
    try:
        status = CLIS[cli]([str(a) for a in argv])
    except SystemExit as exc:  # argparse's own errors
        status = exc.code
    err = capsys.readouterr().err
    assert status == 2, err
    assert err.startswith(f"{cli}") and ": error: " in err and err.count("\n") == 1, err
    assert "Traceback" not in err
    for needle in needles:
        assert needle in err, err
    return err


@pytest.mark.parametrize("cli", CLIS)
def test_preview_of_a_missing_folder_says_no_such_folder(cli, tmp_path, capsys):
    fails(cli, ["preview", tmp_path / "NODIR", "--out", tmp_path / "x.png"], capsys, "no such folder")
    fails(cli, ["preview", "NODIR", "--out", tmp_path / "x.png"], capsys, "no such folder NODIR")
    assert not (tmp_path / "x.png").exists()


def test_preview_of_a_file_or_of_the_other_benchmark_or_an_older_build(built, tmp_path, capsys):
    out = tmp_path / "x.png"
    fails("dicobench", ["preview", built["file"], "--out", out], capsys, "is a file")
    fails("dicobench", ["preview", built["mpv"], "--out", out, "--config", "original"], capsys,
          "is a multipanelvqa build, not a dicobench one")
    fails("multipanelvqa", ["preview", built["dico"], "--out", out, "--config", "attribute"], capsys,
          "is a dicobench build, not a multipanelvqa one")
    fails("dicobench", ["preview", built["untyped"], "--out", out], capsys, "'task' is Value(int64)", "older version")
    fails("dicobench", ["preview", built["no_cues"], "--out", out], capsys, "no 'cues' column", "older version")
    fails("dicobench", ["preview", built["dico"], "--out", built["file"] / "x.png"], capsys)
    fails("dicobench", ["preview", built["dico"], "--out", tmp_path], capsys, "is a folder")
    assert not out.exists() and built["file"].read_text() == "not a folder\n"


def test_eval_out_an_existing_file_is_refused_before_anything_is_loaded(built, capsys):
    fails("dicobench", ["eval", "--dataset", built["dico"], "--model", "openai:x", "--out", built["file"]],
          capsys, "exists and is not a folder")
    assert built["file"].read_text() == "not a folder\n"


@pytest.mark.parametrize("cli,other", [("dicobench", "mpv"), ("multipanelvqa", "dico")])
def test_eval_of_the_other_benchmark_is_refused_before_any_model_call(cli, other, built, tmp_path, capsys):
    out = tmp_path / "run"
    fails(cli, ["eval", "--dataset", built[other], "--model", "openai:x", "--api-key", "k",
                "--base-url", "http://127.0.0.1:9/v1", "--out", out], capsys, f"build, not a {cli} one")
    assert not out.exists()


def test_eval_of_an_older_build_names_the_missing_column(built, tmp_path, capsys):
    fails("dicobench", ["eval", "--dataset", built["no_cues"], "--model", "openai:x", "--out", tmp_path / "run"],
          capsys, "'cues'", "older version")


def test_mistyped_local_dataset_says_no_such_folder(built, tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(datasets.config, "HF_HUB_OFFLINE", True)
    monkeypatch.chdir(tmp_path)
    for argv in (["score", built["preds"]["dico"], "--dataset", "./dico"],
                 ["eval", "--dataset", tmp_path / "bild" / "dico", "--model", "openai:x", "--out", "run"]):
        fails("dicobench", argv, capsys, "no such folder")
    # ORG/NAME could be a repo id: the Hub is asked, and the message still says no such folder
    fails("dicobench", ["score", built["preds"]["dico"], "--dataset", "bild/dico"], capsys,
          "no such folder bild/dico")


def test_score_out_unwritable_or_a_file(built, capsys):
    preds = built["preds"]["dico"]
    fails("dicobench", ["score", preds, "--dataset", built["dico"], "--out", built["file"]], capsys,
          "exists and is not a folder")
    fails("dicobench", ["score", preds, "--dataset", built["dico"], "--out", built["file"] / "scores"], capsys,
          "cannot create")
    fails("multipanelvqa", ["score", built["preds"]["mpv"], "--dataset", built["mpv"], "--out", built["file"]],
          capsys, "exists and is not a folder")
    fails("multipanelvqa", ["score", built["preds"]["mpv"], "--dataset", built["mpv"], "--judge", "openai:x",
                            "--judge-cache", built["file"]], capsys, "--judge-cache")


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into read-only folders")
def test_score_out_in_a_read_only_folder(built, tmp_path, capsys):
    locked = tmp_path / "locked"
    locked.mkdir(mode=0o555)
    fails("dicobench", ["score", built["preds"]["dico"], "--dataset", built["dico"], "--out", locked / "s"],
          capsys, "cannot create")


def test_score_with_bad_prediction_files(built, capsys):
    shard = next((built["dico"] / "attribute").glob("*.parquet"))
    empty = built["root"] / "empty.jsonl"
    empty.write_text("")
    fails("dicobench", ["score", shard, "--dataset", built["dico"]], capsys, "not a UTF-8 text file")
    fails("dicobench", ["score", empty, "--dataset", built["dico"]], capsys, "no predictions")
    fails("dicobench", ["score", built["dico"], "--dataset", built["dico"]], capsys, "Is a directory")
    fails("dicobench", ["score", built["preds"]["mpv"], "--dataset", built["dico"]], capsys, "do not match")
    fails("multipanelvqa", ["score", built["preds"]["dico"], "--dataset", built["dico"]], capsys,
          "is a dicobench build, not a multipanelvqa one")


def test_reversed_layout_range(tmp_path, capsys):
    fails("multipanelvqa", ["build", "--out", tmp_path / "b", "--layouts", "5-2"], capsys, "reversed", "2-5")
    assert not (tmp_path / "b").exists()


@pytest.mark.parametrize("cli,argv,needle", [
    ("dicobench", ["build", "--per-task", "abc"], "invalid int value"),
    ("dicobench", ["build", "--seed", "-1"], "must be 0 or more"),
    ("multipanelvqa", ["build", "--seed", "x"], "invalid"),
    ("dicobench", ["build", "--split", "dev"], "invalid choice"),
    ("dicobench", ["preview", "x", "-n", "many"], "invalid int value"),
    ("multipanelvqa", ["score"], "required"),
    ("dicobench", ["nope"], "invalid choice"),
    ("dicobench", ["build", "--source", "folder:x", "--min-long-side", "0"], "must be 1 or more"),
    ("dicobench", ["build", "--instructions", "openai:m", "--base-url", "localhost:8000"], "http:// or https://"),
    ("multipanelvqa", ["score", "p.jsonl", "--dataset", "d", "--judge-concurrency", "0"], "must be 1 or more"),
    ("multipanelvqa", ["score", "p.jsonl", "--dataset", "d", "--judge-base-url", "nope"], "http:// or https://"),
    ("dicobench", ["eval", "--dataset", "d", "--model", "openai:m", "--out", "o", "--base-url", "x"], "http://"),
])
def test_malformed_options_are_one_line(cli, argv, needle, tmp_path, capsys):
    if argv[0] == "build":
        argv = [*argv, "--out", tmp_path / "b"]
    fails(cli, argv, capsys, needle)
    assert not (tmp_path / "b").exists()


def test_push_without_the_hub_is_one_line(built, tmp_path):
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_TOKEN": "hf_not_a_real_token", "PYTHONPATH": os.getcwd()}
    proc = subprocess.run([sys.executable, "-m", "dicobench.cli.main", "push", str(built["dico"]), "--repo-id",
                           "org/name"],
                          capture_output=True, text=True, env=env)
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1, proc.stderr
    assert "cannot reach the Hub" in proc.stderr and "hf_not_a_real_token" not in proc.stderr


def _parsers(parser: argparse.ArgumentParser, prefix: str):
    yield prefix, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _parsers(sub, f"{prefix} {name}")


@pytest.mark.parametrize("cli", CLIS)
def test_every_option_has_a_help_text(cli, monkeypatch):
    captured = {}
    monkeypatch.setattr(argparse.ArgumentParser, "parse_args",
                        lambda self, argv=None: captured.setdefault("parser", self) and sys.exit(0))
    with pytest.raises(SystemExit):
        CLIS[cli]([])
    missing = [f"{where} {action.option_strings or action.dest}"
               for where, parser in _parsers(captured["parser"], cli) for action in parser._actions
               if not isinstance(action, argparse._SubParsersAction) and not action.help]
    assert missing == []


@pytest.mark.parametrize("cli", CLIS)
def test_version(cli, capsys):
    from dicobench.kit import __version__
    with pytest.raises(SystemExit) as exc:
        CLIS[cli](["--version"])
    assert exc.value.code == 0 and capsys.readouterr().out.strip() == f"{cli} {__version__}"


def test_photos_that_give_no_sample_are_a_user_error(tmp_path, capsys):
    from PIL import Image

    photos = tmp_path / "photos"
    photos.mkdir()
    for i in range(2):  # plain walls: no region to edit
        Image.new("RGB", (1100, 800), (90 + 40 * i, 90, 90)).save(photos / f"wall{i}.png")
    fails("dicobench", ["build", "--out", tmp_path / "b", "--source", f"folder:{photos}", "--tasks", "attribute",
                        "--per-task", "1", "--num-proc", "1", "--quiet"], capsys, "no valid sample", "too few usable")
