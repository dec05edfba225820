"""`import dicobench` (and every worker process a build spawns) stays light: the heavy libraries
load where they are used."""

import subprocess
import sys

HEAVY = ("matplotlib", "pandas", "datasets", "huggingface_hub")


def loaded_after(statement: str) -> list[str]:
    code = f"import sys; {statement}; print(' '.join(m for m in {HEAVY!r} if m in sys.modules))"
    return subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True).stdout.split()


def test_import_dicobench_loads_none_of_the_heavy_libraries():
    assert loaded_after("import dicobench; dicobench.build; dicobench.METRIC") == []


def test_the_lazy_api_still_loads_on_use():
    assert "matplotlib" not in loaded_after("from dicobench import score, prompt, cameras")
    assert loaded_after("from dicobench import evaluate")  # evaluation brings its own (scoring charts)
    out = subprocess.run([sys.executable, "-c", "import dicobench, os; print(os.path.isdir(dicobench.METRIC))"],
                         check=True, capture_output=True, text=True).stdout
    assert out.strip() == "True"


def test_build_stays_the_function_once_its_submodule_is_imported():
    """`build` loads on first use too; importing the submodule of the same name first (as the
    command line does) must not leave the module where the function is expected."""
    code = ("import inspect, dicobench, multipanelvqa\n"
            "from dicobench.build import generation_options\nfrom multipanelvqa.build import plan\n"
            "from dicobench import build\nimport multipanelvqa\n"
            "print(inspect.isfunction(build), inspect.isfunction(multipanelvqa.build), "
            "dicobench.build.__module__, multipanelvqa.build.__module__)")
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True).stdout
    assert out.split() == ["True", "True", "dicobench.build", "multipanelvqa.build"]
