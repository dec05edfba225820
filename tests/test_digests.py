"""Same bytes out: small builds over every generation path give the rows recorded in
tests/fixtures/digests/ (see tests/digests.py for the cases and how to rewrite a fixture when a
change is meant to alter what builds write)."""

import digests
import pytest

SLOW = {"model_edited", "ray"}
NEEDS = {"photos": ("cv2", "skimage"), "model_edited": ("cv2", "skimage", "diffusers"), "ray": ("ray", "ray.data")}


@pytest.mark.parametrize("case", [pytest.param(c, marks=pytest.mark.slow) if c in SLOW else c for c in digests.CASES])
def test_builds_write_the_recorded_rows(case, tmp_path):
    for module in NEEDS.get(case, ()):
        pytest.importorskip(module)
    expected = digests.fixture(case)
    got = digests.CASES[case](tmp_path)
    assert sorted(got) == sorted(expected)
    for config in expected:
        assert got[config]["sidecars"] == expected[config]["sidecars"], config
        assert list(got[config]["rows"]) == list(expected[config]["rows"]), config
        changed = [i for i, d in expected[config]["rows"].items() if got[config]["rows"][i] != d]
        assert not changed, f"{config}: rows {changed[:5]} differ from the fixture"


def test_the_rewrite_script_imports_the_package_not_the_tests_folder_of_its_name():
    """`python tests/digests.py CASE` puts tests/ first on the path, where tests/dicobench (no
    __init__) would be imported as a namespace package and `from dicobench import build` would find
    the submodule instead of the function."""
    import subprocess
    import sys
    from pathlib import Path

    script = Path(digests.__file__).resolve()
    probe = ("import runpy, sys\n"
             f"sys.path[0] = {str(script.parent)!r}\n"
             f"sys.argv = [{str(script)!r}, 'no-such-case']\n"
             "try:\n"
             f"    runpy.run_path({str(script)!r}, run_name='__main__')\n"
             "except SystemExit as exit:\n"
             "    assert exit.code == 2, exit.code\n"
             "import dicobench\n"
             "from dicobench import build\n"
             "print(dicobench.__file__, callable(build))\n")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    package, is_function = done.stdout.split()
    assert Path(package) == script.parent.parent / "dicobench" / "__init__.py"
    assert is_function == "True"
