"""The `evaluate` metric modules, shipped inside the installed package, and their Hub publication.

`metrics/<name>/` in the source tree is the single source; the package reaches it as
`dicobench/kit/release/evaluate_modules/<name>/` (installed as package data), so
`evaluate.load(dicobench.METRIC)` works from any directory once the package is installed.
`publish` lays a module out as an `evaluate` metric repository on the Hub (a Space holding
`<name>.py`, a README card with its YAML header, a Gradio `app.py` and `requirements.txt`), so
`evaluate.load("ORG/<name>")` works for anyone who has `pip install dicobench`; the Space itself
installs the requirement its requirements.txt names (`default_requirement`).
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from huggingface_hub import HfApi, SpaceCard
from huggingface_hub.errors import HFValidationError
from huggingface_hub.utils import validate_repo_id

from dicobench.kit import __version__
from dicobench.kit.errors import UserError, first_line
from dicobench.kit.release.hub import hub_errors

MODULES = Path(__file__).with_name("evaluate_modules")
NAMES = ("dicobench_accuracy", "multipanelvqa_accuracy")
SPACE_METADATA = {"emoji": "📊", "colorFrom": "blue", "colorTo": "green", "sdk": "gradio",
                  "app_file": "app.py", "pinned": False}
APP = '''import evaluate
from evaluate.utils import launch_gradio_widget

module = evaluate.load("{repo_id}")
launch_gradio_widget(module)
'''


def module_path(name: str) -> str:
    """The folder `evaluate.load` takes for the metric `name` (one of NAMES)."""
    path = MODULES / name
    if name not in NAMES or not (path / f"{name}.py").is_file():
        raise UserError(f"no metric module {name!r}; expected one of {', '.join(NAMES)}")
    return str(path)


def default_requirement() -> str:
    """What the Space's requirements.txt installs by default: this release, from the package index
    (so publish the release there first: docs/guides/publishing.md)."""
    return f"dicobench=={__version__}"


def stage(name: str, repo_id: str, out: Path, requirement: str | None = None) -> list[Path]:
    """Write the metric repository for `repo_id` into `out`; the files, in upload order.

    `evaluate` fetches `<repo name>.py`, so the module takes the repo's name. The Space installs
    `requirement` (default `default_requirement()`; a pip requirement such as
    `dicobench @ git+https://github.com/ORG/dicobench@v0.1.0` where the release is not on the index)."""
    source = Path(module_path(name))
    slug = repo_id.split("/")[1]
    module = out / f"{slug}.py"
    shutil.copyfile(source / f"{name}.py", module)
    card = SpaceCard.load(source / "README.md")
    for key, value in SPACE_METADATA.items():
        setattr(card.data, key, value)
    package = name.removesuffix("_accuracy")
    card.text = card.text.replace(f"evaluate.load({package}.METRIC)", f'evaluate.load("{repo_id}")')
    card.save(out / "README.md")
    (out / "app.py").write_text(APP.format(repo_id=repo_id))
    (out / "requirements.txt").write_text(f"evaluate\n{requirement or default_requirement()}\n")
    return [module, out / "README.md", out / "app.py", out / "requirements.txt"]


def publish(name: str, repo_id: str, *, token: str | None = None, private: bool = False,
            dry_run: bool = False, requirement: str | None = None) -> str:
    """Create or update the metric Space `repo_id` with the module `name`; its URL, or, for a
    dry run, the list of files it would upload (no Hub call)."""
    try:
        validate_repo_id(repo_id)
    except HFValidationError as exc:
        raise UserError(f"bad --repo-id {repo_id!r}: {first_line(exc)}") from None
    if "/" not in repo_id or "-" in repo_id.split("/")[1]:
        raise UserError(f"--repo-id {repo_id!r}: expected ORG/NAME with no '-' in NAME (evaluate imports NAME.py)")
    with tempfile.TemporaryDirectory() as tmp:
        files = stage(name, repo_id, Path(tmp), requirement)
        if dry_run:
            return "\n".join([f"dry run: would upload to the Space {repo_id}:"]
                             + [f"  {f.name}  {f.stat().st_size} bytes" for f in files])
        api = HfApi(token=token)
        with hub_errors(repo_id):
            url = api.create_repo(repo_id, repo_type="space", space_sdk="gradio", private=private, exist_ok=True)
            api.upload_folder(repo_id=repo_id, folder_path=tmp, repo_type="space",
                              commit_message=f"Upload the {name} metric (dicobench {__version__})")
    return str(url)
