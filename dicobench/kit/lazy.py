"""Module attributes imported on first use: a package's `__getattr__` (PEP 562) over a table of
attribute -> module, so that importing the package does not import what scoring or evaluation
needs (matplotlib, pandas, the Hub client) until someone asks for it."""

from __future__ import annotations

import importlib
import sys


def lazy_attributes(package: str, table: dict[str, str]):
    """The `__getattr__` of `package`: `table[name]`'s attribute `name`, imported once and kept."""

    def __getattr__(name: str):
        if name not in table:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(table[name]), name)
        setattr(sys.modules[package], name, value)
        return value

    return __getattr__
