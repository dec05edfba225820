"""The documentation: every block of README.md and of every page under docs/ runs as written, in
order, in an empty folder (but the few that say why not, next to the block), the generated
reference pages follow the code, and `mkdocs build --strict` passes (CI runs this file's slow
tests too). `openai:MODEL` blocks talk to a stand-in server on 127.0.0.1 (OPENAI_BASE_URL), and
Hub repo ids are served from the page's own builds."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import textwrap
import urllib.request
from pathlib import Path

import pytest

from dicobench.kit.release import citations
from tests.openai_stub import StubServer

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "docs" / "_hooks"))
import reference  # noqa: E402  (the mkdocs hook that generates the reference pages)

DOCS = ROOT / "docs"
# every page a reader may paste from, in the order the tests list them
PAGES = [ROOT / "README.md", *sorted(p for p in DOCS.rglob("*.md") if "_hooks" not in p.parts)]
QUICK = ("README.md", "quickstart/dicobench.md", "quickstart/multipanelvqa.md")

# A block the tests do not run says why, from these reasons only, in a comment right above it.
NOT_RUN = re.compile(r"<!-- not run by the tests: (?P<reason>[^>]*?) -->\n")
REASONS = ("installs packages", "needs a GPU", "needs the Hub", "needs a Ray cluster", "needs cloud storage",
           "downloads", "needs other harnesses", "needs people", "runs the whole suite", "releases the package")
# A block that starts a server, which serves until stopped: the tests start it, fetch its page, stop it.
SERVES = "<!-- serves until stopped (Ctrl-C): the tests stop it once it serves -->\n"
BLOCK = re.compile(r"(?P<marker>" + NOT_RUN.pattern + "|" + re.escape(SERVES)
                   + r")?```(?P<lang>[\w-]*)\n(?P<code>.*?)```", re.S)
RUNNABLE = ("bash", "python")
SHOWN = ("text", "json", "yaml", "bibtex")  # output, data and diagrams: nothing to run

# the Hub repo ids the pages load from, served from the builds their earlier blocks made (no network in tests)
HUB = textwrap.dedent('''
    import datasets

    import os

    _load = datasets.load_dataset
    BUILDS = ("dicobench-data", "out/dicobench")  # the page's own build, where it made one

    def load_dataset(path, *args, **kwargs):
        if path in ("ORG/dicobench", "my-org/dicobench", "org/dicobench"):
            path = next(b for b in BUILDS if os.path.isdir(b))
        return _load(path, *args, **kwargs)

    datasets.load_dataset = load_dataset
''')


def name(page: Path) -> str:
    return page.relative_to(DOCS).as_posix() if page.is_relative_to(DOCS) else page.name


def blocks(page: Path) -> list[tuple[str, str, str | None]]:
    """(language, code, the marker above it or None) for every fenced block, in order."""
    return [(m["lang"], m["code"], m["marker"]) for m in BLOCK.finditer(page.read_text())]


def reason(marker: str | None) -> str | None:
    found = NOT_RUN.match(marker or "")
    return found["reason"] if found else None


def test_every_block_is_run_or_says_why_not():
    fences = 0
    for page in PAGES:
        found = blocks(page)
        assert 2 * len(found) == page.read_text().count("```"), f"{name(page)}: a fence the tests cannot read"
        fences += len(found)
        for lang, code, marker in found:
            assert lang in RUNNABLE + SHOWN, f"{name(page)}: a block without a known language:\n{code}"
            why = reason(marker)
            if why is not None:
                assert lang in RUNNABLE and why.startswith(REASONS), f"{name(page)}: {why}"
                assert "pip install" not in code or why.startswith("installs packages"), f"{name(page)}:\n{code}"
            elif lang in RUNNABLE:  # a block that runs: no optional arguments in brackets pasted as shell
                assert not re.search(r" \[--[\w-]+", code), f"{name(page)}: optional arguments in brackets:\n{code}"
        assert sum(reason(m) is not None for _, _, m in found) <= 4, f"{name(page)}: most blocks must run"
    assert fences > 80


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


def replies(body: dict) -> str:
    """The loopback stand-in for `openai:MODEL`: a judge's verdict, an error type, or a letter."""
    text = json.dumps(body.get("messages", []))
    if "Classify its error" in text:
        return "missed_cue"
    if "(yes/no)" in text or "(please answer yes/no)" in text:
        return "yes"
    return "I compared the two images. Answer: A"


def environment(folder: Path, base_url: str) -> dict:
    """An environment whose `dicobench` and `multipanelvqa` are this checkout's, run by this Python;
    `openai:MODEL` is served on 127.0.0.1; home, caches and the Hub stay inside `folder`."""
    bin_ = folder / "bin"
    bin_.mkdir(parents=True)
    for command in ("dicobench", "multipanelvqa"):
        script = bin_ / command
        script.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m {command}.cli.main "$@"\n')
        script.chmod(0o755)
    site = folder / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text(HUB)
    home = folder / "home"
    home.mkdir()
    keep = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "HF_"))}
    return {**keep, "PATH": f"{bin_}{os.pathsep}{os.environ['PATH']}", "HOME": str(home),
            "PYTHONPATH": os.pathsep.join([str(ROOT), str(site)]), "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1",
            "HF_HOME": str(folder / "hf"), "MPLBACKEND": "Agg", "OPENAI_BASE_URL": base_url,
            "OPENAI_API_KEY": "test-key"}


def run_block(lang: str, code: str, work: Path, env: dict) -> subprocess.CompletedProcess:
    argv = ["bash", "-euo", "pipefail", "-c", code] if lang == "bash" else [sys.executable, "-c", code]
    return subprocess.run(argv, cwd=work, env=env, capture_output=True, text=True, timeout=900)


def serve_block(code: str, work: Path, env: dict) -> str:
    """Start a block whose last command serves a page, fetch the page, stop it (as Ctrl-C does)."""
    proc = subprocess.Popen(["bash", "-euo", "pipefail", "-c", code], cwd=work, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, start_new_session=True)
    lines = []
    try:
        for line in proc.stdout:
            lines.append(line)
            found = re.search(r"serving on (http://127\.0\.0\.1:\d+/\S*)", line)
            if found:
                with urllib.request.urlopen(found[1], timeout=30) as page:
                    assert page.status == 200 and b"<html" in page.read().lower()
                return found[1]
        raise AssertionError("".join(lines)[-3000:])
    finally:
        os.killpg(proc.pid, signal.SIGINT)
        proc.wait(60)


@pytest.mark.parametrize("page", [p for p in PAGES
                                  if any(l in RUNNABLE and reason(m) is None for l, _, m in blocks(p))],
                         ids=name)
@pytest.mark.slow
def test_the_pages_code_runs_as_written(page, tmp_path):
    """Every block of the page that runs, in order, in an empty folder, as a reader pastes them."""
    work = tmp_path / "work"
    work.mkdir()
    ran = 0
    with StubServer(replies, record=False) as stub:
        env = environment(tmp_path / "env", stub.base_url)
        for lang, code, marker in blocks(page):
            if lang not in RUNNABLE or reason(marker) is not None:
                continue
            if marker == SERVES:
                serve_block(code, work, env)
            else:
                proc = run_block(lang, code, work, env)
                assert proc.returncode == 0, f"{name(page)}:\n{code}\n{proc.stdout[-2000:]}\n{proc.stderr[-3000:]}"
            ran += 1
    assert ran >= 1
    if name(page) in QUICK:  # an evaluation ran and scored every row
        result = json.loads(next(work.glob("runs/*/scores.json")).read_text())
        assert result["complete"] is True and result["n"] > 0 and 0 <= result["accuracy"] <= 1


def test_the_generated_reference_follows_the_code():
    from dicobench.cli.main import parser as dicobench_parser
    from dicobench.kit.scene.difficulty import Difficulty
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
