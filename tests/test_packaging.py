"""What a release ships: the index page's description resolves every link, and the wheel carries
the `datasets` builders and the name-embedding script (`.ci/release-check` installs it in a clean
environment and uses them)."""

from __future__ import annotations

import email
import importlib.util
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
RELATIVE = re.compile(r"\]\((?![a-z][a-z0-9+.-]*:)[^)]*\)")  # a markdown link or image to a relative target


def setup_py():
    spec = importlib.util.spec_from_file_location("setup_py", ROOT / "setup.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # defines the functions; setup() runs only as __main__
    return module


def test_the_index_description_resolves_every_relative_link():
    index_description = setup_py().index_description
    readme = (ROOT / "README.md").read_text()
    assert RELATIVE.search(readme)  # the README links into the checkout, as GitHub shows it
    home = index_description(readme, "https://example.org/org/dicobench", "0.1.0")
    assert not RELATIVE.search(home)
    assert "![DiCoBench: a difference row and a commonality row, each cue boxed](" \
           "https://example.org/org/dicobench/raw/v0.1.0/docs/images/dicobench.png)" in home
    assert "(https://example.org/org/dicobench/blob/v0.1.0/README.md#citation)" in home
    plain = index_description(readme, None, "0.1.0")  # no home declared yet: text, nothing broken
    assert (not RELATIVE.search(plain)
            and "*DiCoBench: a difference row and a commonality row, each cue boxed*" in plain)


@pytest.mark.slow
def test_the_wheel_ships_the_builders_and_a_description_without_relative_links(tmp_path):
    source = tmp_path / "source"  # a copy: building writes build/ and *.egg-info beside setup.cfg
    shutil.copytree(ROOT, source,
                    ignore=shutil.ignore_patterns(".git", "build", "*.egg-info", "__pycache__", ".venv*"))
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation",
                    "--wheel-dir", str(tmp_path), str(source)], check=True, cwd=tmp_path, capture_output=True)
    [wheel] = tmp_path.glob("dicobench-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        [metadata] = [n for n in names if n.endswith(".dist-info/METADATA")]
        description = email.message_from_bytes(archive.read(metadata)).get_payload()
    assert {"dicobench/datasets_builder.py", "multipanelvqa/datasets_builder.py",
            "dicobench/kit/engines/datasets_builder.py", "dicobench/cli/name_embeddings.py"} <= names
    assert not any(n.startswith(("builder_scripts/", "tests/")) for n in names)  # no top-level names of others'
    assert "# dicobench" in description and "DiCoBench: a difference row" in description
    assert not RELATIVE.search(description)
