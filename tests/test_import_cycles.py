"""The project's modules import each other without a cycle, counting every import: at the top,
inside a function (deferred) and under `TYPE_CHECKING`. A cycle is a piece in the wrong layer
(docs/ARCHITECTURE.md): move the piece rather than defer the import."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("dicobench", "multipanelvqa")


def modules(root: Path, packages=PACKAGES) -> dict[str, Path]:
    """Dotted module name -> file, for every module of `packages` under `root`."""
    found = {}
    for package in packages:
        for path in (root / package).rglob("*.py"):
            parts = path.relative_to(root).with_suffix("").parts
            found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def imported(name: str, path: Path, known: dict[str, Path]) -> set[str]:
    """The modules of `known` that module `name` imports anywhere in its file (a name imported from
    a module counts as that module, or as the submodule it names). Parent packages that Python
    imports on the way are not counted: a package's `__init__` is part of every path below it."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    targets = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(parent + ([base] if base else []))
            targets |= {f"{base}.{alias.name}" for alias in node.names} | {base}
    found = set()
    for target in targets:
        while target and target not in known:
            target = target.rpartition(".")[0]
        if target and target != name:
            found.add(target)
    return found


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm, iterative)."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, edges = work[-1]
            for target in edges:
                if target not in index:
                    index[target] = low[target] = len(index)
                    stack.append(target)
                    on_stack.add(target)
                    work.append((target, iter(sorted(graph[target]))))
                    break
                if target in on_stack:
                    low[node] = min(low[node], index[target])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        found.append(sorted(component))
    return found


def import_graph(root: Path, packages=PACKAGES) -> dict[str, set[str]]:
    known = modules(root, packages)
    return {name: imported(name, path, known) for name, path in known.items()}


def test_no_module_imports_itself_through_others():
    graph = import_graph(ROOT)
    assert len(graph) > 200 and graph["dicobench.kit.release.hub"]  # the whole project, with its edges
    assert cycles(graph) == []


def test_a_cycle_through_deferred_and_type_checking_imports_is_found(tmp_path):
    package = tmp_path / "pkg"
    (package / "sub").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "sub" / "__init__.py").write_text("")
    (package / "a.py").write_text("def f():\n    from pkg.sub import b\n")
    (package / "sub" / "b.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
                                          "    from ..c import C\n")
    (package / "c.py").write_text("from pkg import a\n")
    (package / "d.py").write_text("from pkg.a import f\n")  # imports into the cycle, not part of it
    assert cycles(import_graph(tmp_path, ("pkg",))) == [["pkg.a", "pkg.c", "pkg.sub.b"]]


def test_the_shared_layer_imports_no_benchmark():
    """docs/ARCHITECTURE.md's first rule: `dicobench.kit` stands under both benchmarks and imports
    neither (the `dicobench` package itself counts as the benchmark: its `__init__` is DiCoBench's)."""
    graph = import_graph(ROOT)
    upward = {name: sorted(t for t in targets if not t.startswith("dicobench.kit"))
              for name, targets in graph.items() if name.startswith("dicobench.kit")}
    assert {name: found for name, found in upward.items() if found} == {}
