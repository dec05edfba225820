"""The two benchmark definitions (`dicobench.benchmark`, `multipanelvqa.benchmark`): complete for
what the shared layer builds from them, their command listing the same as the subcommands'
own parsers, the top-level `--help` importing none of the heavy libraries, and each benchmark's
code in its own package."""

from __future__ import annotations

import argparse
import ast
import dataclasses
import subprocess
import sys
from pathlib import Path

import pytest

from dicobench.benchmark import BENCHMARK as DICOBENCH
from dicobench.kit.benchmark import Benchmark
from dicobench.kit.cli.commands import benchmark_parser, run_benchmark
from dicobench.kit.registry import Ref
from multipanelvqa.benchmark import BENCHMARK as MULTIPANELVQA

ROOT = Path(__file__).resolve().parents[2]
BENCHMARKS = pytest.mark.parametrize("bench", [DICOBENCH, MULTIPANELVQA], ids=lambda b: b.name)
HEAVY = ("matplotlib", "pandas", "datasets", "torch")


def subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    [action] = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return dict(action.choices)


def listed_help(parser: argparse.ArgumentParser) -> dict[str, str]:
    [action] = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return {choice.dest: choice.help for choice in action._choices_actions}


@BENCHMARKS
def test_every_field_the_shared_layer_reads_is_there(bench: Benchmark):
    for field in dataclasses.fields(bench):
        assert getattr(bench, field.name) not in (None, "", ()), field.name
    features = bench.features()
    assert bench.default_config in bench.configs and bench.manifest_dir.startswith(".")
    for ref in (bench.prompt, bench.evaluation, bench.card):
        assert callable(ref.load()), ref.path
    assert bench.evaluation().name == bench.name  # the evaluation engine's view of the same benchmark
    people = bench.people
    assert people.name == bench.name and people.manifest_dir == bench.manifest_dir
    assert set(people.configs) < set(bench.configs)
    assert people.columns == tuple(features)
    read = {*people.image_columns, people.group_column, people.study_group, *bench.preview.columns,
            *bench.harnesses.text_columns}
    assert read <= set(features), read - set(features)
    assert len(people.image_labels) == len(people.image_columns) and people.criteria_keys
    assert callable(people.review_view) and callable(people.study_view) and callable(bench.preview.item)
    flavour = bench.harnesses.flavour
    assert set(flavour.images) == set(people.image_columns)
    lmms = __import__(bench.harnesses.lmms_eval_callbacks.module, fromlist=["doc_to_text"])
    assert bench.harnesses.lmms_eval_callbacks.load() is lmms.doc_to_text
    assert callable(lmms.doc_to_text) and callable(lmms.process_results)
    human = bench.human.figure.load()
    assert human.series and human.title and callable(human.score_lines)
    assert bench.drawer().features == features


@BENCHMARKS
def test_the_inspect_task_is_the_benchmarks(bench: Benchmark):
    pytest.importorskip("inspect_ai")
    assert bench.harnesses.inspect_task.load().__name__ == bench.name
    assert bench.harnesses.inspect_name == f"dicobench/{bench.name}"  # as tests/kit/test_inspect.py runs them
    export = subcommands(benchmark_parser(bench))["export"]
    assert f"inspect eval dicobench/{bench.name} -T dataset=DIR" in " ".join(export.format_help().split())


@BENCHMARKS
def test_the_listing_is_what_each_subcommand_declares(bench: Benchmark):
    """The top-level parser lists the subcommands from the definition; the full parser has each
    one's own help line: the two agree, so `--help` is the same whichever is built."""
    full = benchmark_parser(bench)
    assert list(subcommands(full)) == [c.name for c in bench.commands]
    assert listed_help(full) == {c.name: c.help.format(benchmark=bench) for c in bench.commands}


@BENCHMARKS
def test_help_and_version_are_those_of_the_full_parser(bench: Benchmark, capsys):
    full = benchmark_parser(bench)
    for argv, expected in ((["--help"], full.format_help()), (["--version"], f"{bench.name} ")):
        with pytest.raises(SystemExit) as exit_:
            run_benchmark(bench, argv)
        assert exit_.value.code == 0
        assert capsys.readouterr().out.startswith(expected)


@pytest.mark.parametrize("package", ["dicobench", "multipanelvqa"])
@pytest.mark.parametrize("argv", [["--help"], ["--version"]], ids=" ".join)
def test_the_top_level_parser_imports_none_of_the_heavy_libraries(package, argv):
    code = (f"import sys\nfrom {package}.cli.main import main\n"
            f"try:\n    main({argv!r})\nexcept SystemExit:\n    pass\n"
            f"print(' '.join(m for m in {HEAVY!r} if m in sys.modules), file=sys.stderr)")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    assert proc.stdout.startswith(f"usage: {package}" if argv == ["--help"] else f"{package} ")
    assert proc.stderr.split() == []


def test_a_subcommand_imports_its_own_module_only():
    """`dicobench info --help` builds `info` and lists the others by name: scoring's modules stay unloaded."""
    code = ("import sys\nfrom dicobench.cli.main import main\ntry:\n    main(['info', '--help'])\nexcept SystemExit:\n"
            "    pass\nprint(' '.join(m for m in ('dicobench.cli.score', 'dicobench.cli.eval', 'matplotlib') "
            "if m in sys.modules), file=sys.stderr)")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    assert proc.stdout.startswith("usage: dicobench info") and proc.stderr.split() == []


def test_a_ref_names_a_module_attribute():
    assert Ref("dicobench.schema:features").load().__name__ == "features"
    with pytest.raises(ValueError, match="module:attribute"):
        Ref("dicobench.schema.features")


def test_code_is_named_lazily_one_way():
    """Every "module:attribute" naming this project's code is a `Ref`'s, written out (grep finds it): no
    bare string, no f-string building one."""
    import ast
    import re

    from tests.test_import_cycles import ROOT as CHECKOUT
    from tests.test_import_cycles import modules

    path_like = re.compile(r"^(dicobench|multipanelvqa)(\.\w+)*:\w+$")
    found = []
    for name, path in modules(CHECKOUT).items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        refs = [node for node in ast.walk(tree)
                if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "Ref"]
        in_ref = {id(arg) for node in refs for arg in node.args}
        found += [f"{name}:{node.lineno} Ref of an f-string" for node in refs
                  if any(isinstance(arg, ast.JoinedStr) for arg in node.args)]
        found += [f"{name}:{node.lineno} {node.value}" for node in ast.walk(tree)
                  if isinstance(node, ast.Constant) and isinstance(node.value, str) and path_like.match(node.value)
                  and id(node) not in in_ref]
    assert found == []


def test_a_definition_refuses_a_command_declared_twice():
    twice = DICOBENCH.commands[:1] * 2
    with pytest.raises(ValueError, match="declared twice"):
        dataclasses.replace(DICOBENCH, commands=twice)


def imported_packages(package: str) -> dict[str, set[str]]:
    """Per module of `package` (a folder of the checkout), the top-level packages and
    `dicobench` subpackages it imports."""
    found = {}
    for path in (ROOT / package).rglob("*.py"):
        names = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                names |= {a.name for a in node.names}
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names |= {node.module} | {f"{node.module}.{a.name}" for a in node.names}
        found[str(path.relative_to(ROOT))] = names
    return found


def test_each_benchmarks_code_lives_in_its_own_package():
    """MultipanelVQA imports only the shared layer of `dicobench`; DiCoBench never imports
    MultipanelVQA but where the distribution's one Inspect entry point registers its task; the
    shared layer imports neither benchmark."""
    def benchmark_code(name: str) -> bool:
        return name.split(".")[0] == "dicobench" and not name.startswith("dicobench.kit") and name != "dicobench"

    for module, names in imported_packages("multipanelvqa").items():
        assert not {n for n in names if benchmark_code(n)}, module
    for module, names in imported_packages("dicobench").items():
        mpv = {n for n in names if n.split(".")[0] == "multipanelvqa"}
        if module == "dicobench/harnesses/inspect_tasks.py":
            assert mpv == {"multipanelvqa.harnesses.inspect_task",
                           "multipanelvqa.harnesses.inspect_task.multipanelvqa_task"}
        elif module.startswith("dicobench/kit/"):
            assert not mpv and not {n for n in names if benchmark_code(n)}, module
        else:
            assert not mpv, module


@pytest.mark.parametrize("package", ["dicobench", "multipanelvqa"])
def test_the_card_and_the_review_views_do_not_import_each_other(package):
    code = f"import sys, {package}.people; print('{package}.card' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT).stdout
    assert out.strip() == "False"


def test_the_export_hint_names_the_import_command_of_its_benchmark(tmp_path, capsys):
    from multipanelvqa.cli.main import main
    from tests.kit.test_eval_cli import write_multipanel

    root = tmp_path / "mpv"
    write_multipanel(root)
    assert main(["export", "lmms-eval", "--dataset", str(root), "--out", str(tmp_path / "tasks")]) == 0
    assert "\nthen: multipanelvqa import lmms-eval " in capsys.readouterr().out
