"""The documentation: the README's and quickstarts' code runs as written, the generated reference
pages follow the code, and `mkdocs build --strict` passes (CI runs this file's slow tests too)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from dicobench.kit.release import citations

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "docs" / "_hooks"))
import reference  # noqa: E402  (the mkdocs hook that generates the reference pages)

SKIP = "<!-- not run by the tests:"
BLOCK = re.compile(r"(?P<marker><!-- not run by the tests: [^>]*-->\n)?```(?P<lang>\w*)\n(?P<code>.*?)```", re.S)
RUNNABLE = ("bash", "python")
PAGES = [ROOT / "README.md", ROOT / "docs" / "quickstart" / "dicobench.md", ROOT / "docs" / "quickstart" / "multipanelvqa.md"]

# the Hub repo id the README loads from, served from the build its earlier block made (no network in tests)
HUB = textwrap.dedent('''
    import datasets

    _load = datasets.load_dataset

    def load_dataset(path, *args, **kwargs):
        return _load("dicobench-data" if path == "ORG/dicobench" else path, *args, **kwargs)

    datasets.load_dataset = load_dataset
''')


def blocks(page: Path) -> list[tuple[str, str, str | None]]:
    """(language, code, the reason it is not run or None) for every fenced block, in order."""
    return [(m["lang"], m["code"], m["marker"]) for m in BLOCK.finditer(page.read_text())]


def test_every_block_is_run_or_says_why_not():
    for page in PAGES:
        for lang, code, marker in blocks(page):
            if marker:  # only installs are left out, and they are few
                assert "pip install" in code, (page, code)
            else:
                assert lang in RUNNABLE or lang == "bibtex", (page, lang)
        assert sum(m is not None for _, _, m in blocks(page)) <= 3


def test_the_readme_cites_what_the_cards_cite_and_stays_short():
    readme = (ROOT / "README.md").read_text()
    [bibtex] = [code for lang, code, _ in blocks(ROOT / "README.md") if lang == "bibtex"]
    assert bibtex.strip() == citations.BOTH
    assert len(readme.splitlines()) <= 220
    for target in re.findall(r"\]\((?!https?://|#)([^)#]+)", readme):  # every link into the checkout resolves
        assert (ROOT / target).exists(), target


def test_the_readme_test_command_is_the_one_ci_runs():
    ci = [line for line in (ROOT / ".ci" / "run").read_text().splitlines() if line.startswith("python -m pytest")]
    assert len(ci) == 1
    [two] = [code for lang, code, marker in blocks(ROOT / "README.md") if marker and "pytest" in code]
    assert two.strip().endswith(ci[0])


def wrappers(folder: Path) -> dict:
    """An environment whose `dicobench` and `multipanelvqa` are this checkout's, run by this Python."""
    folder.mkdir()
    for command in ("dicobench", "multipanelvqa"):
        script = folder / command
        script.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m {command}.cli.main "$@"\n')
        script.chmod(0o755)
    site = folder / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text(HUB)
    return {**os.environ, "PATH": f"{folder}{os.pathsep}{os.environ['PATH']}",
            "PYTHONPATH": os.pathsep.join([str(ROOT), str(site)]), "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1",
            "HF_DATASETS_CACHE": str(folder / "hf_cache")}


@pytest.mark.slow
@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name if p.name == "README.md" else f"quickstart-{p.name}")
def test_the_pages_code_runs_as_written(page, tmp_path):
    env = wrappers(tmp_path / "bin")
    work = tmp_path / "work"
    work.mkdir()
    ran = 0
    for lang, code, marker in blocks(page):
        if marker or lang not in RUNNABLE:
            continue
        argv = ["bash", "-euo", "pipefail", "-c", code] if lang == "bash" else [sys.executable, "-c", code]
        proc = subprocess.run(argv, cwd=work, env=env, capture_output=True, text=True, timeout=900)
        assert proc.returncode == 0, f"{page.name}:\n{code}\n{proc.stdout[-2000:]}\n{proc.stderr[-3000:]}"
        ran += 1
    assert ran >= 4
    scores = next(work.glob("runs/*/scores.json"))  # an evaluation ran and scored every row
    result = json.loads(scores.read_text())
    assert result["complete"] is True and result["n"] > 0 and 0 <= result["accuracy"] <= 1


def test_the_generated_reference_follows_the_code():
    from dicobench.kit.scene.difficulty import Difficulty
    from dicobench.cli.main import parser as dicobench_parser
    from dicobench.schema import features
    from multipanelvqa.difficulty import PanelDifficulty

    pages = reference.pages()
    cli = pages["reference/cli.md"]
    subcommands = next(a for a in dicobench_parser()._actions if hasattr(a, "choices") and a.choices).choices
    for name, sub in subcommands.items():
        assert f"### `dicobench {name}`" in cli and sub.format_usage().split()[2] in cli
    assert "### `dicobench export lmms-eval`" in cli and "--allow-partial" in cli and "--dataset-path" in cli
    schemas = pages["reference/schemas.md"]
    assert all(f"| `{column}` |" in schemas for column in features())
    assert "| `answer` | ClassLabel(A, B, C, D, E) |" in schemas
    dials = pages["reference/dials.md"]
    for cls in (Difficulty, PanelDifficulty):
        assert all(f"`--{f.name.replace('_', '-')}`" in dials for f, _, _ in cls.axis_fields())
    assert "cc-by-4.0" in pages["licences.md"] and "SIL OFL 1.1" in pages["licences.md"]


@pytest.mark.slow
def test_mkdocs_builds_the_site_strictly(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
                          cwd=ROOT, capture_output=True, text=True, timeout=600,
                          env={**os.environ, "NO_MKDOCS_2_WARNING": "1"})
    assert proc.returncode == 0, proc.stderr[-4000:]
    api = (tmp_path / "site" / "reference" / "api" / "index.html").read_text()
    assert "extract_choice" in api and "allow_partial" in api  # the docstrings made it into the reference
    assert (tmp_path / "site" / "reference" / "cli" / "index.html").exists()
