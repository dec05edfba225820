"""Row digests of small builds that cover every generation path: the "same bytes out" fixtures.

Each case builds into a fresh folder through the public build functions and records, per row
sorted by id, a sha256 of the row (every column, image bytes included; the build folder's own
path is replaced by a placeholder wherever it appears in a value), a sha256 of its core (id,
both images' bytes, question, options, answer, cues), and each shard's sidecar rejection and
letter counts (what the card reports). A change meant to alter what builds write updates the
fixtures in the same commit and says why:

    python tests/digests.py CASE... | all      # rewrite tests/fixtures/digests/CASE.json
"""

from __future__ import annotations

import hashlib
import io
import json
import sys
from pathlib import Path

import pyarrow.parquet as pq

if __name__ == "__main__":
    # run as a script, Python puts tests/ first on the path, where tests/dicobench (a folder of tests, no
    # __init__) would be imported as the package: the repository's root comes first, the helpers after it
    sys.path[:1] = [str(Path(__file__).resolve().parent.parent), str(Path(__file__).resolve().parent)]

from dicobench.kit.io.shards import sidecar_path

FIXTURES = Path(__file__).parent / "fixtures" / "digests"
CORE = ("id", "image_a", "image_b", "question", "options", "answer", "cues")
PLACEHOLDER = "<build>"


def _normalised(value, roots: tuple[str, ...]):
    if isinstance(value, str):
        for root in roots:
            value = value.replace(root, PLACEHOLDER)
        return value
    if isinstance(value, dict):
        return {k: _normalised(v, roots) for k, v in sorted(value.items())}
    if isinstance(value, (list, tuple)):
        return [_normalised(v, roots) for v in value]
    return value


def _sha(value) -> str:
    return hashlib.sha256(repr(value).encode()).hexdigest()


def row_digests(rows: list[dict], roots: tuple[str, ...] = ()) -> dict[str, dict[str, str]]:
    """id -> {"core": ..., "row": ...}."""
    out = {}
    for row in rows:
        row = _normalised(row, roots)
        key = row["id"]
        core = [(k, row.get(k)) for k in CORE if k in row]
        out[key] = {"core": _sha(core), "row": _sha(sorted(row.items()))}
    return dict(sorted(out.items()))


def folder_digests(folder: Path, roots: tuple[str, ...] = ()) -> dict:
    """Per config folder: the row digests of its shards and each shard's sidecar counts."""
    roots = tuple(sorted({str(folder.parent), *roots}, key=len, reverse=True))
    configs = {}
    for config in sorted(p for p in folder.iterdir() if p.is_dir() and not p.name.startswith(".")):
        shards = sorted(config.glob("*.parquet"))
        if not shards:
            continue
        rows = [r for shard in shards for r in pq.read_table(shard).to_pylist()]
        stats = {}
        for shard in shards:
            data = json.loads(Path(sidecar_path(shard)).read_text())
            stats[shard.name] = {k: data[k] for k in ("rows", "letters", "rejections") if k in data}
        configs[config.name] = {"rows": row_digests(rows, roots), "sidecars": stats}
    return configs


# ---- the cases -----------------------------------------------------------------------------

def _photo_folder(root: Path) -> Path:
    """The annotated photo folder of tests/photo_fixtures.py (astronaut, its twin, three
    unrelated photos): both difference and commonality photo tasks can be built from it."""
    sys.path.insert(0, str(Path(__file__).parent))
    from photo_fixtures import TWINS, write_source

    folder = root / "photos"
    folder.mkdir()
    write_source(folder, TWINS["full"])
    return folder


def procedural(tmp: Path) -> dict:
    """All eight DiCoBench tasks from the scene engine, three rows each, several shards."""
    from dicobench import build

    return folder_digests(build(tmp / "bench", per_task=3, seed=0, rows_per_shard=2, num_proc=1, progress=False,
                                difficulty="easy"))


def procedural_train(tmp: Path) -> dict:
    """Another seed and the train split's seed range, at another compression level."""
    from dicobench import build

    out = build(tmp / "bench", per_task=2, seed=5, split="train", compress_level=3, num_proc=1, progress=False,
                difficulty="easy")
    return folder_digests(out)


def procedural_hard(tmp: Path) -> dict:
    """The default difficulty (`hard`: small cues among many, partly overlapping objects on
    marked, grainy surfaces, each image through its own camera), all eight tasks, two rows each."""
    from dicobench import build

    return folder_digests(build(tmp / "bench", per_task=2, seed=0, num_proc=1, progress=False))


def procedural_hard_no_camera(tmp: Path) -> dict:
    """`hard` with `--camera none`: the clean renders, the bytes `hard` wrote before cameras."""
    from dicobench import build

    return folder_digests(build(tmp / "bench", per_task=2, seed=0, num_proc=1, progress=False, camera="none"))


def photos(tmp: Path) -> dict:
    """Photo difference (classical ops) and photo commonality (cut-outs) from annotated photos,
    one of them unreadable (its draws are counted as skipped)."""
    from dicobench import build

    folder = _photo_folder(tmp)
    (folder / "broken.jpg").write_bytes(b"\xff\xd8 truncated")
    out = build(tmp / "bench", source=f"folder:{folder}", per_task=2, upscale=True, min_long_side=768, num_proc=1,
                progress=False)
    return folder_digests(out, (str(folder),))


def model_edited(tmp: Path) -> dict:
    """Instructed inpainting edits by a tiny Stable Diffusion pipeline (moves stay classical), and
    photo commonality rows whose cut-outs a tiny FLUX.2 Klein blends in from reference images."""
    import torch
    from tiny_diffusers import BUILDERS, KLEIN_OUT_LAYERS, save_tiny_pipeline

    from dicobench import build
    from dicobench.editors.models import Backends
    from dicobench.editors.photo.diffusers_editor import Flux2KleinInpaintEditor
    from dicobench.generate import BuildOptions, generate_row, photo_source
    from dicobench.kit.photos.model import SizePolicy

    folder = _photo_folder(tmp)
    model = save_tiny_pipeline("StableDiffusionInpaintPipeline", tmp)
    out = build(tmp / "bench", source=f"folder:{folder}", tasks="entity,spatial_relation,difference_reasoning",
                per_task=1, upscale=True, min_long_side=768, editor=f"diffusers:{model}", edit_steps=2, edit_size=64,
                progress=False)
    digests = folder_digests(out, (str(folder), str(model)))
    # this row's pixels are the tiny pipeline's floats, which depend on how many threads torch splits
    # its sums across: one thread, whatever ran before in the process (build workers are processes)
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        klein = Flux2KleinInpaintEditor(BUILDERS["Flux2KleinInpaintPipeline"](tmp), size=64, steps=2,
                                        call_kwargs={"text_encoder_out_layers": KLEIN_OUT_LAYERS})
        opts = BuildOptions(per_task=1, source=f"folder:{folder}", photos=SizePolicy(768, True))
        photo_source.cache_clear()
        rows = [generate_row("instance", 0, "B", opts, Backends(editor=klein))[0]]
    finally:
        torch.set_num_threads(threads)
    digests["instance-klein-blend"] = {"rows": row_digests(rows, (str(folder),)), "sidecars": {}}
    return digests


def ray(tmp: Path) -> dict:
    """The Ray engine (a local Ray, 2 CPUs) on one task of each track, one row per shard."""
    import ray as ray_lib

    from dicobench import build

    ray_lib.init(num_cpus=2, include_dashboard=False, logging_level="WARNING")
    try:
        out = build(tmp / "bench", per_task=2, tasks="attribute,instance", split="train", rows_per_shard=1,
                    engine="ray", progress=False, difficulty="easy")
    finally:
        ray_lib.shutdown()
    return folder_digests(out)


def multipanelvqa(tmp: Path) -> dict:
    """Every synthetic MultipanelVQA config from both procedural sources, two layouts, two shards, at
    `--difficulty easy` (the first release's panels)."""
    from multipanelvqa.build import build

    return folder_digests(build(tmp / "mpv", layouts="6,140", images_per_shard=2, num_proc=1, progress=False,
                              difficulty="easy"))


def multipanelvqa_hard(tmp: Path) -> dict:
    """The default panel difficulty (`hard`: more, smaller objects per panel, a small answer
    object, near-duplicate panels, layout position words), every config, two layouts."""
    from multipanelvqa.build import build

    return folder_digests(build(tmp / "mpv", layouts="6,140", num_proc=1, progress=False))


CASES = {f.__name__: f for f in (procedural, procedural_train, procedural_hard, procedural_hard_no_camera, photos,
                                 model_edited, ray, multipanelvqa, multipanelvqa_hard)}


def fixture(case: str) -> dict:
    return json.loads((FIXTURES / f"{case}.json").read_text())


def main(argv: list[str]) -> int:
    import tempfile

    names = list(CASES) if argv in ([], ["all"]) else argv
    unknown = [n for n in names if n not in CASES]
    if unknown:
        print(f"error: no digest case {', '.join(unknown)} (cases: {', '.join(CASES)}, all)", file=sys.stderr)
        return 2
    FIXTURES.mkdir(parents=True, exist_ok=True)
    for name in names:
        with tempfile.TemporaryDirectory() as tmp:
            digests = CASES[name](Path(tmp))
        buf = io.StringIO()
        json.dump(digests, buf, indent=1, sort_keys=True)
        (FIXTURES / f"{name}.json").write_text(buf.getvalue() + "\n")
        print(f"wrote {FIXTURES / name}.json ({sum(len(c['rows']) for c in digests.values())} rows)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
