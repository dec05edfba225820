"""docs/ARCHITECTURE.md's layer rule: argparse, printing and exit codes live in the `cli` packages;
the library reports through return values, exceptions, logging or a progress callback."""

from __future__ import annotations

import ast
from pathlib import Path

from tests.test_import_cycles import ROOT, imported, modules


def terminal_uses(path: Path) -> list[str]:
    """Where a module imports argparse, calls print, or exits the process (sys.exit, SystemExit)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import) and any(a.name == "argparse" for a in node.names) \
                or isinstance(node, ast.ImportFrom) and node.module == "argparse":
            found.append(f"{path.name}:{node.lineno} imports argparse")
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "print":
            found.append(f"{path.name}:{node.lineno} prints")
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "exit" \
                and isinstance(node.func.value, ast.Name) and node.func.value.id == "sys":
            found.append(f"{path.name}:{node.lineno} calls sys.exit")
        elif isinstance(node, ast.Raise) and node.exc is not None and "SystemExit" in ast.unparse(node.exc):
            found.append(f"{path.name}:{node.lineno} raises SystemExit")
    return found


def in_cli_layer(name: str, path: Path) -> bool:
    """A module of a `cli` package (a module merely named cli.py elsewhere is not)."""
    parts = name.split(".")
    return "cli" in parts[:-1] or parts[-1] == "cli" and path.name == "__init__.py"


def test_only_the_command_line_layer_parses_prints_or_exits():
    library = {name: path for name, path in modules(ROOT).items() if not in_cli_layer(name, path)}
    assert len(library) > 150
    found = {name: uses for name, path in library.items() if (uses := terminal_uses(path))}
    assert found == {}


def test_the_check_finds_each_kind_of_use(tmp_path):
    module = tmp_path / "m.py"
    module.write_text("import argparse\nimport sys\n\ndef f():\n    print('x')\n    sys.exit(1)\n"
                      "    raise SystemExit(2)\n")
    assert sorted(use.split(" ", 1)[1] for use in terminal_uses(module)) == [
        "calls sys.exit", "imports argparse", "prints", "raises SystemExit"]


ABOVE_IO = ("dicobench.kit.people", "dicobench.kit.eval", "dicobench.kit.engines", "dicobench.kit.report",
            "dicobench.kit.cli")


def test_the_io_layer_reaches_into_no_layer_that_uses_it():
    """`kit.io` reads and writes files; the review log, builds and evaluations stand on it, never the other
    way (counting deferred imports): a build's decision about its review log is the build's own."""
    known = modules(ROOT)
    io = {name: path for name, path in known.items() if name.startswith("dicobench.kit.io.")}
    assert "dicobench.kit.io.manifest" in io
    reaches = {name: sorted(t for t in imported(name, path, known) if t.startswith(ABOVE_IO))
               for name, path in io.items()}
    assert {name: found for name, found in reaches.items() if found} == {}
