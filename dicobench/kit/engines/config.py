"""What both benchmarks' build configs share: which of their fields a build records.

A field that says how a build runs (processes, engine, progress) or where a model is reached
(endpoint, key) is `unrecorded`: it never changes a byte, so the manifest leaves it out (a resumed
build may use other processes or another server) and a key is never written anywhere.
"""

from __future__ import annotations

import dataclasses
import json


def unrecorded(default=None, **kwargs) -> dataclasses.Field:
    """A config field that the manifest leaves out."""
    return dataclasses.field(default=default, metadata={"recorded": False}, **kwargs)


def unrecorded_names(cls) -> frozenset[str]:
    return frozenset(f.name for f in dataclasses.fields(cls) if f.metadata.get("recorded") is False)


def recorded(config, cls) -> dict:
    """The fields of `cls` (a build config class) that say what `config` builds, as JSON values
    (nested settings as dicts): what its manifest records."""
    out = {}
    for f in dataclasses.fields(cls):
        if f.metadata.get("recorded", True):
            value = getattr(config, f.name)
            out[f.name] = dataclasses.asdict(value) if dataclasses.is_dataclass(value) else value
    return json.loads(json.dumps(out))
