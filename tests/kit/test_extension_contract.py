"""The extension contract: a task, a photo source, an editor, a MultipanelVQA config and a runner,
each one module (tests/toy_extensions) plus one registration line, build and score through the
same paths as the built-in ones, and leave nothing registered behind."""

import dataclasses
import json

import datasets
import numpy as np
import pytest
from toy_extensions import augmentation, editor, photo_source, runner, task

from dicobench.build import build
from dicobench.cli.main import main as dicobench_main
from dicobench.editors.models import ModelOptions
from dicobench.editors.registry import EDITOR_KINDS, register_editor
from dicobench.kit.errors import UserError
from dicobench.kit.eval import runners
from dicobench.kit.eval.runners import RunnerOption, register_runner
from dicobench.kit.eval.runners.options import collect
from dicobench.kit.photos.registry import PHOTO_SOURCES, open_source, register_photo_source
from dicobench.kit.registry import Names, Registry, usages
from dicobench.leaderboards import columns
from dicobench.schema import CONFIGS, DIFFERENCE_TASKS, TASKS
from dicobench.tasks.registry import TASK_REGISTRY, Task, Track, register_task
from multipanelvqa.augmentations import AUGMENTATION_REGISTRY, Augmentation, register_augmentation
from multipanelvqa.build import build as build_multipanelvqa
from multipanelvqa.cli.main import main as multipanelvqa_main
from multipanelvqa.schema import AUGMENTATIONS, SYNTHETIC_CONFIGS


def _state():
    return (tuple(TASKS), tuple(PHOTO_SOURCES.items()), tuple(EDITOR_KINDS.items()),
            tuple(AUGMENTATION_REGISTRY.items()), tuple(runners.RUNNERS.items()))


@pytest.fixture
def toys():
    """The five toys registered, one line each; afterwards every registry is as it was."""
    before = _state()
    register_task(task.RESTYLE)
    register_photo_source(photo_source.SAMPLES)
    register_editor(editor.PAINTER)
    register_augmentation(augmentation.MIRRORED)
    register_runner("toy", runner.Constant)
    try:
        yield
    finally:
        TASK_REGISTRY.unregister("toy_restyle")
        PHOTO_SOURCES.unregister("skimage")
        EDITOR_KINDS.unregister("paint")
        AUGMENTATION_REGISTRY.unregister("toy_mirrored")
        runners.RUNNERS.unregister("toy")
    assert _state() == before


def _eval(main, dataset, out, reply, config):
    rc = main(["eval", "--dataset", str(dataset), "--config", config, "--model", "toy:constant", "--toy-reply", reply,
               "--out", str(out), "--quiet"])
    assert rc == 0
    # the flag the runner declares reached it: every recorded reply is the one it was given
    assert {json.loads(line)["response"] for line in (out / "predictions.jsonl").read_text().splitlines()} == {reply}
    return json.loads((out / "scores.json").read_text())


def test_a_registered_task_builds_and_scores_with_its_label(toys, tmp_path):
    assert TASKS[-1] == "toy_restyle" and "toy_restyle" in DIFFERENCE_TASKS and CONFIGS[-2:] == ("toy_restyle", "all")
    out = build(tmp_path / "bench", per_task=2, tasks="toy_restyle", num_proc=1, progress=False)
    rows = datasets.load_dataset(str(out), "toy_restyle", split="test")
    assert len(rows) == 2 and rows.features["task"].names[-1] == "toy_restyle"
    assert (set(rows["task"]) == {TASKS.index("toy_restyle")}
            and all("toy_restyle edits" in g for g in rows["generator"]))
    answers = rows.features["answer"].int2str(rows["answer"])
    scores = _eval(dicobench_main, out, tmp_path / "eval", answers[0], "toy_restyle")
    expected = sum(a == answers[0] for a in answers) / 2
    assert scores["per_task"]["toy_restyle"]["accuracy"] == expected == scores["accuracy"]
    assert [(c.key, c.label) for c in columns([scores])][0] == ("toy_restyle", "Sty.")


def test_a_registered_photo_source_and_editor_build_the_tasks_the_source_declares(toys, tmp_path):
    pytest.importorskip("cv2")
    out = build(tmp_path / "bench", source="skimage:astronaut,coffee,chelsea", per_task=1, upscale=True,
                editor="paint:flat", num_proc=1, progress=False)
    rows = datasets.load_dataset(str(out), "all", split="test")
    names = rows.features["task"].names
    assert sorted(names[t] for t in rows["task"]) == ["attribute", "toy_restyle"]  # the source's declared tasks
    assert all(s.startswith("skimage:") for s in rows["source"])
    assert all("edits by toy painter (flat) from template instructions" in g for g in rows["generator"])
    assert all(o.startswith("The ") and " turned " in o for opts in rows["options"] for o in opts[:4])
    card = (out / "README.md").read_text()
    assert "license: cc0-1.0" in card and "scikit-image's sample images" in card and "- extended" in card
    scores = _eval(dicobench_main, out, tmp_path / "eval", "B", "all")
    assert set(scores["per_task"]) == {"attribute", "toy_restyle"} and scores["n"] == 2


def test_a_registered_augmentation_is_built_and_scored_as_a_config(toys, tmp_path):
    assert AUGMENTATIONS[-1] == SYNTHETIC_CONFIGS[-1] == "toy_mirrored"
    out = build_multipanelvqa(tmp_path / "mpv", layouts="6", configs="original,toy_mirrored", num_proc=1,
                              progress=False)
    original = datasets.load_dataset(str(out), "original", split="test")
    mirrored = datasets.load_dataset(str(out), "toy_mirrored", split="test")
    assert len(mirrored) == len(original) == 6 and set(mirrored["augmentation"]) == {"toy_mirrored"}
    assert mirrored["question"] == original["question"] and mirrored["answer"] == original["answer"]
    x, y, w, h = original[0]["subfigures"][0]["bbox"]
    before = np.asarray(original[0]["image"].convert("RGB"), dtype=float)[y:y + h, x:x + w]
    after = np.asarray(mirrored[0]["image"].convert("RGB"), dtype=float)[y:y + h, x:x + w]
    assert np.abs(after - before[:, ::-1]).mean() < 0.1 * np.abs(after - before).mean()  # the panel, mirrored
    scores = _eval(multipanelvqa_main, out, tmp_path / "eval", "yes", "toy_mirrored")
    assert set(scores["per_augmentation"]) == {"toy_mirrored"} and scores["n"] == 6


def test_a_registered_harness_is_an_import_of_both_command_lines(small_build, tmp_path, capsys):
    from toy_extensions.harness import ECHO

    from dicobench.kit.cli.harnesses import HARNESS_KINDS, register_harness

    with HARNESS_KINDS.registered(ECHO.name, ECHO):
        with pytest.raises(ValueError, match="harness 'echo' is already registered"):
            register_harness(ECHO)
        replies = tmp_path / "replies.txt"
        replies.write_text("\n".join(["Answer: A"] * 16))
        out = tmp_path / "p.jsonl"
        assert dicobench_main(["import", "echo", str(replies), "--dataset", str(small_build), "--out", str(out)]) == 0
        assert dicobench_main(["score", str(out), "--dataset", str(small_build), "--out", str(tmp_path / "s")]) == 0
        assert json.loads((tmp_path / "s" / "scores.json").read_text())["n"] == 16
    capsys.readouterr()
    assert "echo" not in HARNESS_KINDS
    with pytest.raises(SystemExit):
        dicobench_main(["import", "echo", str(replies), "--dataset", str(small_build), "--out", str(out)])
    assert "invalid choice: 'echo'" in capsys.readouterr().err


def test_runner_flags_come_from_the_declared_options(toys):
    from dicobench.cli.main import parser

    help_text = next(a for a in parser()._actions if getattr(a, "choices", None)).choices["eval"].format_help()
    assert "--toy-reply" in help_text and "toy: the reply to every prompt" in help_text
    assert "--batch-size" in help_text and "--trust-remote-code" in help_text


def test_registered_specs_are_offered_and_bad_registrations_refused(toys):
    with pytest.raises(UserError, match=r"unknown photo source 'nope:x'; expected folder:DIR, .* "
                                        r"or skimage:NAME\[,NAME\.\.\.\]"):
        open_source("nope:x")
    with pytest.raises(UserError, match=r"unknown editor 'nope:x'; expected diffusers:<model-id or folder> "
                                        r"or paint:<name>"):
        ModelOptions(editor="nope:x").check()
    ModelOptions(editor="paint:flat").check()
    with pytest.raises(ValueError, match="track"):
        register_task(Task("odd", "Odd.", Track("other", "?", "none"), {}))
    with pytest.raises(ValueError, match="already registered"):
        register_photo_source(photo_source.SAMPLES)
    with pytest.raises(ValueError, match="other than procedural"):
        register_photo_source(dataclasses.replace(photo_source.SAMPLES, prefix="procedural"))
    with pytest.raises(ValueError, match="without ':'"):
        register_editor(dataclasses.replace(editor.PAINTER, prefix="a:b"))
    with pytest.raises(ValueError, match="unknown config 'nothing'"):
        register_augmentation(Augmentation("odd", augmentation.mirrored, image_of="nothing"))
    with pytest.raises(ValueError, match="declares option 'toy_reply' unlike another runner"):
        collect({"toy": runner.Constant.options, "other": (RunnerOption("toy_reply", "another help"),)})


def test_names_are_a_live_tuple():
    registry = Registry("thing", [("a", 1), ("b", 2)])
    names, odd = registry.names(), registry.names(lambda v: v % 2 == 1, after=("all",))
    assert names == ("a", "b") and odd == ("a", "all") and names.index("b") == 1 and names + ("c",) == ("a", "b", "c")
    with registry.registered("c", 3):
        assert names == ("a", "b", "c") and odd == ("a", "c", "all") and len(names) == 3 and "c" in names
    assert names == ("a", "b") and isinstance(names, Names) and repr(names) == "('a', 'b')"
    with pytest.raises(ValueError, match="already registered"):
        registry.register("a", 4)
    with pytest.raises(ValueError, match="unknown thing 'z'; expected one of a, b"):
        registry.get("z")


def test_a_spec_names_its_entry_by_prefix():
    registry = Registry("source", [("folder", 1), ("coco", 2)])
    assert registry.for_spec("coco:a.json:images") == 2 and registry.for_spec("folder:x") == 1
    assert (registry.for_spec("coco:") is None and registry.for_spec("coco") is None
            and registry.for_spec("hf:x") is None)
    assert usages(["folder:DIR", "hf:REPO", "coco:FILE"]) == "folder:DIR, hf:REPO or coco:FILE"
    assert usages(["folder:DIR"]) == "folder:DIR" and usages([]) == ""
