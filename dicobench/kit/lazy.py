"""Module attributes imported on first use: a package's `__getattr__` (PEP 562) over a table of
attribute -> module, so that importing the package does not import what scoring or evaluation
needs (matplotlib, pandas, the Hub client) until someone asks for it. The table names each
attribute by a `Ref("module:attribute")`, as every declaration names code."""

from __future__ import annotations

import sys
import types

from dicobench.kit.registry import Ref


def lazy_attributes(package: str, table: dict[str, Ref]):
    """The `__getattr__` of `package`: what `table[name]` names, imported once and kept."""

    def __getattr__(name: str):
        if name not in table:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = table[name].load()
        setattr(sys.modules[package], name, value)
        return value

    return __getattr__


class _LazyPackage(types.ModuleType):
    """A package module whose lazy table may name a function after a submodule of the same name
    (`dicobench.build`, the function, lives in the module `dicobench.build`): the import system
    binds every submodule it loads on its package, which would replace that function by the module."""

    def __setattr__(self, name: str, value) -> None:
        if isinstance(value, types.ModuleType) and value.__name__ == f"{self.__name__}.{name}" and name in self._LAZY:
            return  # `__getattr__` gives the function on first use instead
        super().__setattr__(name, value)


def lazy_package(package: str, table: dict[str, Ref]) -> None:
    """Make `package` (a package's `__init__` calls this with its `__name__`) load `table`'s
    attributes on first use, a function keeping its name over a submodule named like it."""
    module = sys.modules[package]
    module._LAZY = table
    module.__getattr__ = lazy_attributes(package, table)
    module.__class__ = _LazyPackage
