"""Build manifests record the config; a folder written before configs were recorded (the form in
tests/fixtures/manifests/, written by that release) still resumes, and one whose manifest says
another build, or cannot be read, is refused in one line."""

import json
import shutil
from pathlib import Path

import pytest

from dicobench import BuildConfig, build
from dicobench.kit import __version__
from dicobench.kit.errors import UserError
from dicobench.kit.io.manifest import CONFIG, fixed_part
from multipanelvqa import BuildConfig as MpvConfig
from multipanelvqa import build as build_multipanel

FIXTURES = Path(__file__).parents[1] / "fixtures" / "manifests"
# the builds whose manifests the fixtures are (same options, same bytes)
DICOBENCH = dict(per_task=1, tasks="entity", difficulty="easy", num_proc=1, progress=False)
MULTIPANELVQA = dict(layouts="6", sources="procedural_edit", configs="original", difficulty="easy", num_proc=1,
                     progress=False)
CASES = {"dicobench": (build, BuildConfig, DICOBENCH, ".dicobench/test.json"),
         "multipanelvqa": (build_multipanel, MpvConfig, MULTIPANELVQA, ".multipanelvqa/synthetic.json")}


def _old_form(name: str) -> dict:
    """The fixture, as this version writes it: the manifest names the generator's version, and a
    folder of another version is another build (refused like other options)."""
    manifest = json.loads((FIXTURES / f"{name}-test.json").read_text())
    return {**manifest, "generator": f"{name} {__version__}"}


def _shards(out: Path) -> dict:
    return {p.relative_to(out).as_posix(): (p.stat().st_mtime_ns, p.read_bytes())
            for p in sorted(out.glob("*/*.parquet"))}


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """Each benchmark's fixture build, made once: name -> folder."""
    root = tmp_path_factory.mktemp("manifests")
    return {name: make(root / name, **kwargs) for name, (make, _, kwargs, _) in CASES.items()}


@pytest.mark.parametrize("name", CASES)
def test_the_manifest_records_the_config_beside_what_fixes_the_bytes(name, built):
    _, config, kwargs, manifest_path = CASES[name]
    manifest = json.loads((built[name] / manifest_path).read_text())
    assert manifest[CONFIG] == config(**kwargs).record()
    assert fixed_part(manifest) == _old_form(name)  # the bytes are fixed as before


@pytest.mark.parametrize("name", CASES)
def test_a_folder_with_the_old_manifest_form_resumes(name, built, tmp_path):
    make, config, kwargs, manifest_path = CASES[name]
    out = tmp_path / "old"
    shutil.copytree(built[name], out)
    (out / manifest_path).write_text(json.dumps(_old_form(name), indent=1, sort_keys=True))
    before = _shards(out)
    make(out, **kwargs)
    assert _shards(out) == before and before  # nothing remade
    assert json.loads((out / manifest_path).read_text())[CONFIG] == config(**kwargs).record()


@pytest.mark.parametrize("name", CASES)
def test_a_folder_of_another_build_or_an_unreadable_manifest_is_refused_in_one_line(name, built, tmp_path):
    make, _, kwargs, manifest_path = CASES[name]
    out = tmp_path / "other"
    shutil.copytree(built[name], out)
    (out / manifest_path).write_text(json.dumps({**_old_form(name), "seed": 7}))
    with pytest.raises(UserError, match=r"built with other options \(seed\); use --overwrite") as caught:
        make(out, **kwargs)
    (out / manifest_path).write_text('{"seed": 0, "per_')
    with pytest.raises(UserError, match="whose manifest cannot be read") as unreadable:
        make(out, **kwargs)
    assert "\n" not in str(caught.value) + str(unreadable.value)


def test_configs_that_resolve_alike_resume_and_the_latest_is_recorded(built, tmp_path):
    out = tmp_path / "b"
    shutil.copytree(built["dicobench"], out)
    before = _shards(out)
    build(out, **{**DICOBENCH, "tasks": ["entity"], "camera": "none", "num_proc": 2})  # easy has no camera anyway
    assert _shards(out) == before
    recorded = json.loads((out / ".dicobench" / "test.json").read_text())[CONFIG]
    assert recorded["tasks"] == ["entity"] and recorded["camera"] == "none" and "num_proc" not in recorded
