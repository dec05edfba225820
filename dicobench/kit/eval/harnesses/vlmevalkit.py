"""VLMEvalKit: its image-MCQ TSV, a dataset class that keeps this project's prompt and scoring,
and its prediction files read back.

The TSV has VLMEvalKit's documented columns: `index`, `image` (base64; a list of base64 strings
for a row with several images), `image_path` (file names for them), `question`, `A`..`E`,
`answer`, `category` and `l2-category`, plus `id` (this project's row id), which VLMEvalKit
carries into its prediction files. Images are the stored PNG files, base64-encoded as they are
(never decoded or re-encoded). MultipanelVQA's Q3 choices a-d go to columns `A`-`D` with an
upper-case answer letter; its Q1/Q2 rows have no options. The class file written next to the
TSV subclasses VLMEvalKit's `ImageMCQDataset` and calls `build_prompt`, `dump_images` and
`evaluate` here, so VLMEvalKit asks exactly `dicobench.prompt` / `multipanelvqa.prompt` and
scores with `extract_choice` / MultipanelVQA's rules instead of its generic MCQ prompt. Run as a
script in VLMEvalKit's folder, the class file runs VLMEvalKit's run.py with itself registered in
that process (`register`): the least invasive registration VLMEvalKit's code allows, since it
finds dataset classes only in `vlmeval.dataset` and has no plugin entry point.
"""

from __future__ import annotations

import ast
import base64
import csv
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable, Sequence

from tqdm.auto import tqdm

from dicobench.kit.errors import UserError
from dicobench.kit.eval.evaluation import interleave
from dicobench.kit.eval.harnesses.common import write_predictions
from dicobench.kit.io.predictions import first_per_config, load_split

LETTERS = "ABCDE"


@dataclass(frozen=True)
class Flavour:
    """How one benchmark maps to VLMEvalKit's columns and back."""

    name: str  # VLMEvalKit dataset name, e.g. "DiCoBench"
    images: tuple[str, ...]  # image columns, in prompt order
    row: Callable[[dict], dict]  # a dataset row (ClassLabels as names) -> question, A-E, answer, category...
    prompt: Callable[[dict], tuple[list, str]]  # the benchmark's prompt of a row
    from_line: Callable[[dict], dict]  # a TSV line -> the fields the prompt and the scoring read
    score: Callable[[list[dict]], dict]  # TSV lines with `prediction` -> scores
    config_column: str | None = None  # the column naming each row's config (`limit` takes N rows of each)


def _names(features) -> dict:
    return {c: f.names for c, f in features.items() if hasattr(f, "names")}


def _plain(value, names):
    return names[value] if names is not None and isinstance(value, int) else value


IMAGE_MODES = ("inline", "files")


def dataset_name(out: str | Path) -> str:
    """The VLMEvalKit dataset (and class) name an export to `out` gets: the TSV's stem, which
    VLMEvalKit's `--data NAME` looks up as `NAME.tsv`."""
    stem = Path(out).stem
    if Path(out).suffix.lower() != ".tsv" or not stem.isidentifier():
        raise UserError(f"--out {out}: expected NAME.tsv with NAME a Python identifier (VLMEvalKit's --data name "
                        "and the dataset class's name), e.g. ~/LMUData/DiCoBench.tsv")
    return stem


def export_tsv(dataset: str, out: str | Path, flavour: Flavour, *, config: str = "all", split: str = "test",
               limit: int | None = None, images: str = "inline") -> tuple[int, int]:
    """Write the TSV of one config and split (with `limit` N, the first N rows of each config, as
    `eval --limit`), row by row (nothing is held but the row being written); (rows, TSV bytes).

    `images="inline"` puts each row's PNGs in its `image` cell as base64, VLMEvalKit's usual
    self-contained TSV, which VLMEvalKit loads whole into memory (about 4/3 of the PNG bytes per
    row); `"files"` writes the PNGs to `images/NAME/` beside the TSV and leaves the `image`
    column out, so the TSV VLMEvalKit loads holds text only (its `image_path` names the files)."""
    import datasets

    if images not in IMAGE_MODES:
        raise UserError(f"unknown images mode {images!r}; expected one of {', '.join(IMAGE_MODES)}")
    name = dataset_name(out)
    rows = load_split(dataset, config, split)
    if limit:
        rows = rows.select(first_per_config(rows[flavour.config_column] if flavour.config_column else
                                            [None] * len(rows), limit))
    for column in flavour.images:
        rows = rows.cast_column(column, datasets.Image(decode=False))
    names = _names(rows.features)
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    files = out.parent / "images" / name
    if images == "files":
        files.mkdir(parents=True, exist_ok=True)
    columns = ["index", "id", "image", "image_path", "question", *LETTERS, "answer", "category", "l2-category"]
    if images == "files":
        columns.remove("image")
    csv.field_size_limit(sys.maxsize)
    tmp = out.with_suffix(out.suffix + ".tmp")
    with tmp.open("w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, columns, delimiter="\t", extrasaction="ignore")
        writer.writeheader()
        bar = tqdm(rows, total=len(rows), desc=f"writing {out.name}", unit="row", disable=None)  # on a terminal
        for index, row in enumerate(bar):
            pngs = [_png(row[c]) for c in flavour.images]
            paths = _file_names(row["id"], len(pngs))
            if images == "files":
                for data, file in zip(pngs, paths):
                    _write_once(files / file, data)
            encoded = [base64.b64encode(data).decode("ascii") for data in pngs] if images == "inline" else []
            fields = flavour.row({k: _plain(v, names.get(k)) for k, v in row.items()})
            bar.set_postfix_str(f"{f.tell() / 1e6:.0f} MB", refresh=False)
            writer.writerow({
                "index": index, "id": row["id"],
                # a list as VLMEvalKit's own TSVs write it
                "image": (encoded[0] if len(encoded) == 1 else str(encoded)) if encoded else None,
                "image_path": str(paths) if len(paths) > 1 else paths[0],
                **fields,
            })
    tmp.replace(out)
    return len(rows), out.stat().st_size


def _png(cell: dict) -> bytes:
    data = cell.get("bytes")
    if data is None:
        data = Path(cell["path"]).read_bytes()
    if not data.startswith(b"\x89PNG"):
        raise UserError("an image of the dataset is not a PNG file: VLMEvalKit export keeps images lossless")
    return data


def _write_once(path: Path, data: bytes) -> None:
    if not path.exists():
        tmp = path.with_suffix(".tmp")
        tmp.write_bytes(data)
        tmp.replace(path)


def _file_names(key: str, n: int) -> list[str]:
    return [f"{key}.png"] if n == 1 else [f"{key}_{i}.png" for i in range(1, n + 1)]


def images_of(line: dict) -> list[str]:
    """The base64 images of a TSV line as VLMEvalKit reads it (a list literal or one string)."""
    value = line["image"]
    if isinstance(value, str) and value.startswith("[") and value.endswith("]"):
        return [str(v) for v in ast.literal_eval(value)]
    return [value] if isinstance(value, str) else [str(v) for v in value]


def _paths_of(line: dict) -> list[str]:
    value = line["image_path"]
    if isinstance(value, str) and value.startswith("[") and value.endswith("]"):
        return [str(v) for v in ast.literal_eval(value)]
    return [value] if isinstance(value, str) else [str(v) for v in value]


def dump_images(line: dict, root: str | Path) -> list[str]:
    """A line's images as PNG files under `root`, their paths in order: written from the line's
    base64 `image`, or, for a TSV exported with its images as files, the files already there."""
    root = Path(root)
    if not line.get("image"):
        paths = [root / name for name in _paths_of(line)]
        missing = [str(p) for p in paths if not p.exists()]
        if missing:
            raise FileNotFoundError(f"row {line['id']}: its image files are not under {root}: {', '.join(missing)}")
        return [str(p) for p in paths]
    root.mkdir(parents=True, exist_ok=True)
    images = images_of(line)
    paths = []
    for image, name in zip(images, _file_names(line["id"], len(images))):
        _write_once(root / name, base64.b64decode(image))
        paths.append(str(root / name))
    return paths


def build_prompt(flavour: Flavour, line: dict, paths: Sequence[str]) -> list[dict]:
    """VLMEvalKit's multi-modal message: the benchmark's parts with image files in place of images."""
    images, text = flavour.prompt(flavour.from_line(line))
    if len(images) != len(paths):
        raise ValueError(f"row {line['id']} has {len(paths)} images, its prompt {len(images)}")
    parts = interleave([_File(p) for p in paths], text)
    return [{"type": "image" if isinstance(p, _File) else "text", "value": str(p)} for p in parts]


class _File(str):
    """An image file's path among the prompt's text parts."""


def read_results(path: str | Path) -> list[dict]:
    """The lines of a VLMEvalKit prediction file (.xlsx, .tsv, .csv, .json or .jsonl)."""
    import pandas as pd

    path = Path(path)
    suffix = path.suffix.lower()
    try:
        if suffix == ".xlsx":
            frame = pd.read_excel(path)
        elif suffix in (".tsv", ".csv"):
            frame = pd.read_csv(path, sep="\t" if suffix == ".tsv" else ",", keep_default_na=False, dtype=str)
        elif suffix in (".json", ".jsonl"):
            frame = pd.read_json(path, lines=suffix == ".jsonl", dtype=False)
        else:
            raise UserError(f"{path}: expected a VLMEvalKit prediction file (.xlsx, .tsv, .csv, .json, .jsonl)")
    except ImportError as exc:
        raise UserError(f"reading {path} needs {exc.name}: pip install 'dicobench[vlmevalkit]'") from None
    except (OSError, ValueError) as exc:
        raise UserError(f"cannot read {path}: {exc}") from None
    missing = [c for c in ("id", "prediction") if c not in frame.columns]
    if missing:
        raise UserError(f"{path} has no {' or '.join(missing)} column: is it the prediction file of a TSV "
                        "written by export vlmevalkit?")
    return [{k: (None if v != v else v) for k, v in record.items()} for record in frame.to_dict("records")]


def import_results(path: str | Path, out: str | Path) -> int:
    """A predictions file from a VLMEvalKit prediction file; the number of rows."""
    return write_predictions(((str(line["id"]), line["prediction"]) for line in read_results(path)), out)


def evaluate(flavour: Flavour, lines: Iterable[dict]) -> dict:
    """This project's scores of VLMEvalKit prediction lines (what the dataset class returns)."""
    return flavour.score(list(lines))


CLASS_FILE = '''"""{name} for VLMEvalKit, with the prompt and scoring of the installed `{module}`.

Written by `{command} export vlmevalkit` with {name}.tsv in {root_text}. Run it in VLMEvalKit's
folder, with run.py's options:

    python {path} --data {name} --model <model> [run.py's other options]

That runs VLMEvalKit's own run.py with this class registered in that process only: `vlmeval.dataset`
gains the class {name} (in its DATASET_CLASSES, where `build_dataset` looks), and no file of
VLMEvalKit changes. `{module_root}` must be importable there (`pip install dicobench`; its core
needs no torch). Plain `python run.py --data {name}` skips that: VLMEvalKit then warns that {name}
is "not officially supported" and, finding {name}.tsv in $LMUData, treats it as a generic custom MCQ
set (its own prompt, images without "Image 1:"/"Image 2:", its own answer matching, with an LLM
judge when it has a key), so the numbers are not {module_root}'s; a TSV elsewhere is not found at all.
"""

if __name__ == "__main__":  # run as a script: VLMEvalKit's run.py, with this class registered first
    import sys

    from dicobench.kit.cli.harnesses import vlmevalkit_main

    sys.exit(vlmevalkit_main(__file__, "{name}", sys.argv[1:]))

import os.path as osp  # noqa: E402 (run.py must start before VLMEvalKit loads: it picks each process's GPUs)

from vlmeval.dataset.image_mcq import ImageMCQDataset  # noqa: E402
from vlmeval.smp import LMUDataRoot, dump, load  # noqa: E402

from dicobench.kit.eval.harnesses import vlmevalkit as bridge  # noqa: E402
from {module} import VLMEVALKIT as FLAVOUR  # noqa: E402

DATA_ROOT = {root}  # where the export wrote {name}.tsv (and images/{name}/)


class {name}(ImageMCQDataset):
    TYPE = "MCQ"
    DATASET_URL = {{"{name}": ""}}  # the TSV is local
    DATASET_MD5 = {{"{name}": None}}
    force_use_dataset_prompt = True  # models with their own MCQ prompt (use_custom_prompt) still get this one

    def __init__(self, dataset="{name}", **kwargs):
        super().__init__(dataset, **kwargs)
        self.img_root = osp.join(DATA_ROOT, "images", dataset)

    @classmethod
    def supported_datasets(cls):
        return ["{name}"]

    def load_data(self, dataset):
        return load(osp.join(DATA_ROOT, f"{{dataset}}.tsv"))

    def dump_image(self, line):
        return bridge.dump_images(dict(line), self.img_root)

    def build_prompt(self, line):
        if isinstance(line, int):
            line = self.data.iloc[line]
        return bridge.build_prompt(FLAVOUR, dict(line), self.dump_image(line))

    def evaluate(self, eval_file, **judge_kwargs):
        scores = bridge.evaluate(FLAVOUR, load(eval_file).to_dict("records"))
        dump(scores, eval_file.rsplit(".", 1)[0] + "_scores.json")
        return scores
'''


def register(cls: type) -> None:
    """Make VLMEvalKit's `--data NAME` build `cls` in this process: `vlmeval.dataset` gains it as an
    attribute (what run.py's `--data-config {"NAME": {"class": "NAME"}}` looks up) and in
    DATASET_CLASSES (what `build_dataset`, `DATASET_TYPE` and `DATASET_MODALITY` search)."""
    import vlmeval.dataset as registry

    setattr(registry, cls.__name__, cls)
    if cls not in registry.DATASET_CLASSES:
        registry.DATASET_CLASSES.append(cls)
        registry.SUPPORTED_DATASETS.extend(cls.supported_datasets())


def run_py() -> Path:
    """VLMEvalKit's run.py: in the working directory, else in the checkout its `vlmeval` was installed from."""
    import importlib.util

    here = Path.cwd() / "run.py"
    if here.is_file():
        return here
    spec = importlib.util.find_spec("vlmeval")
    beside = Path(spec.origin).resolve().parents[1] / "run.py" if spec and spec.origin else None
    if beside is not None and beside.is_file():
        return beside
    raise UserError("cannot find VLMEvalKit's run.py: run this in the VLMEvalKit folder (its git checkout, "
                    "installed with pip install -e .)")


def run_vlmevalkit(class_file: str | Path, name: str, argv: Sequence[str]) -> None:
    """VLMEvalKit's run.py with `argv`, the class `name` of `class_file` registered: run.py's module
    code first (it sets each process's GPUs before torch loads), then the class, then its `main`."""
    import importlib.util
    import runpy

    script = run_py()
    sys.argv = [str(script), *argv]
    sys.path.insert(0, str(script.parent))
    found = runpy.run_path(str(script), run_name="vlmevalkit_run")
    spec = importlib.util.spec_from_file_location(Path(class_file).stem, class_file)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    register(getattr(module, name))
    found["load_env"]()
    found["main"]()


def lmu_data_root() -> Path:
    """VLMEvalKit's data root: $LMUData, else ~/LMUData (as its `LMUDataRoot`)."""
    return Path(os.environ.get("LMUData") or Path.home() / "LMUData")


def class_file_name(name: str) -> str:
    """The class file of dataset `name`: `<name>_vlmevalkit.py`, lower case. Run as a script, its folder
    comes first on Python's path, so a plain `dicobench.py` would shadow the package it imports."""
    return f"{name.lower()}_vlmevalkit.py"


def export_class_file(out: str | Path, flavour: Flavour, *, module: str, command: str) -> Path:
    """The dataset class file for VLMEvalKit, next to the TSV (`class_file_name`): the class is named after the TSV
    (`dataset_name`) and reads it from the folder it was written to (`LMUDataRoot()` when that
    is VLMEvalKit's own root, else that folder's absolute path). Run as a script it runs
    VLMEvalKit with itself registered (`run_vlmevalkit`)."""
    out = Path(out).resolve()  # a path VLMEvalKit's folder, where it runs, reads as this one
    name = dataset_name(out)
    path = out.parent / class_file_name(name)
    if out.parent == lmu_data_root().resolve():  # the folder moves with $LMUData
        root, root_text, shown = "LMUDataRoot()", "VLMEvalKit's $LMUData", f"$LMUData/{path.name}"
    else:
        root, root_text, shown = repr(str(out.parent)), str(out.parent), str(path)
    path.write_text(CLASS_FILE.format(name=name, module=module, module_root=module.split(".")[0], command=command,
                                      root=root, root_text=root_text, path=shown))
    return path
