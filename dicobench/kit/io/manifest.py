"""Build manifests: the options that determine a build's bytes, saved beside its files, so a
rerun resumes only the same build and never mixes two builds in one folder.

A manifest also records the build's config under `CONFIG` (what was asked, in the benchmark's
`BuildConfig` form). That record is not compared on resuming: configs that resolve to the same
options make the same bytes, and a manifest written before configs were recorded (which has no
such key) resumes like any other.
"""

from __future__ import annotations

import json
from typing import Callable

from dicobench.kit.errors import UserError
from dicobench.kit.io.shards import Location, read_json, remove, resolve, write_json_atomic

CONFIG = "config"


def fixed_part(manifest: dict) -> dict:
    """What in a saved manifest fixes the bytes: all of it but the recorded config."""
    return {k: v for k, v in manifest.items() if k != CONFIG}


def read_manifest(out: Location, path: Location, what: str) -> dict:
    """The manifest at `path` (either form); a one-line `UserError` when it cannot be read."""
    try:
        manifest = read_json(path)
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        manifest = exc
    if not isinstance(manifest, dict):
        reason = f": {manifest}" if isinstance(manifest, Exception) else ""
        raise UserError(f"{out} holds a {what} whose manifest cannot be read{reason}; use --overwrite to replace it")
    return manifest


def claim_folder(out: Location, path: Location, manifest: dict, overwrite: bool, clear: Callable[[bool], None],
                 what: str, config: dict) -> None:
    """Record `manifest` (and the `config` it was resolved from) at `path` inside `out` (a local
    folder or fsspec URL), refusing a folder that holds something else.

    Resuming the same build is allowed; other options need `overwrite`, which first calls
    `clear(other_options)` to delete the previous build's files (`other_options`: whether that build
    was made with other options, or its manifest cannot be read: the build's callback then sets
    what judged the previous rows aside); a non-empty folder that holds no build of ours is refused
    outright."""
    manifest = json.loads(json.dumps(manifest))  # the form it is saved in, for comparison
    fs, root = resolve(out)
    mfs, mpath = resolve(path)
    if fs.isfile(root):
        raise UserError(f"{out} exists and is not a folder")
    if overwrite and mfs.exists(mpath):
        try:
            same = fixed_part(read_manifest(out, path, what)) == manifest
        except UserError:
            same = False
        clear(not same)
        remove(path)
    if mfs.exists(mpath):
        previous = fixed_part(read_manifest(out, path, what))
        if previous != manifest:
            changed = sorted(k for k in manifest.keys() | previous.keys() if previous.get(k) != manifest.get(k))
            raise UserError(f"{out} holds a {what} built with other options ({', '.join(changed)}); "
                            "use --overwrite to replace it")
    elif fs.isdir(root) and fs.ls(root) and not overwrite and not mfs.isdir(mpath.rsplit("/", 1)[0]):
        raise UserError(f"{out} is not empty; choose an empty folder or pass --overwrite")
    try:
        write_json_atomic(path, {**manifest, CONFIG: config})
    except OSError as exc:
        raise UserError(f"cannot write to {out}: {exc.strerror}") from None
