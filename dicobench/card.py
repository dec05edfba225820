"""The DiCoBench dataset card, regenerated from the build manifests and shard stats on disk,
so a resumed or extended build always describes exactly the files that are there."""

from __future__ import annotations

import json
import statistics
from collections import Counter

from dicobench.checks import Reason
from dicobench.descriptors import VIEW_SIDES, VISIBLE, summary
from dicobench.generate import seed_range
from dicobench.kit.io.shards import Location, child, exists, glob, read_json, sidecar_path, stem
from dicobench.kit.people.decisions import REVIEW_REJECTION
from dicobench.kit.people.review_report import review_section
from dicobench.kit.photos.registry import PHOTO_SOURCES
from dicobench.kit.release import citations, usage
from dicobench.kit.release.card import (
    Section,
    benchmark_card_data,
    human_review,
    insert_section,
    long_side_summary,
    markdown_table,
    shard_sizes,
    write_card_file,
)
from dicobench.kit.release.licences import GLYPHS, Licence, annotated_licences, combine, unknown, user_licence
from dicobench.kit.scene.camera import CameraBounds
from dicobench.people import CRITERIA
from dicobench.schema import LETTERS, MANIFEST_DIR, TASKS, features, track_of

PRETTY_NAME = "DiCoBench (generated)"
COLUMNS = {
    "id": "unique row id, stable for a seed",
    "track": "difference or commonality",
    "task": "one of the 8 tasks (the config names)",
    "image_a, image_b": "the image pair, lossless PNG near 2K",
    "question": "the question; it holds no text cue",
    "options": "five option texts; options[4] is the E text (nothing to find)",
    "answer": "the correct letter A-E",
    "cues": "where the answer is: {image (0=a, 1=b), bbox xywh in pixels, label}; empty for E",
    "changed_area": "share of the image area that differs (difference track), in the clean renders",
    "source": "procedural:<seed>, or the photo id(s) of photo builds",
    "seed": "the row's seed",
    "generator": "toolkit version and backends, and each image's camera (`dicobench.cameras(row)` reads them)",
}


def _split_stats(out: Location, split: str, tasks: list[str]) -> dict[str, list[dict]]:
    stats: dict[str, list[dict]] = {}
    for task in tasks:
        for shard in glob(child(out, task), f"{split}-*.parquet"):
            side = sidecar_path(shard)
            if exists(side):
                stats.setdefault(task, []).append(read_json(side))
    return stats


def _licence(out: Location, manifests: dict[str, dict]) -> Licence:
    """Glyphs' CC BY 4.0 for procedural builds, the licence a photo source declares (V*'s terms),
    what the user stated, else the per-photo licences of a COCO file."""
    stated = user_licence(out)
    per_source = []
    for manifest in manifests.values():
        source = manifest["source"]
        kind = PHOTO_SOURCES.for_spec(source)  # None for procedural builds
        if source == "procedural":
            per_source.append(GLYPHS)
        elif kind is not None and kind.licence is not None:
            per_source.append(kind.licence)
        elif stated is None and manifest.get("photo_licences") is not None:
            found = manifest["photo_licences"]
            per_source.append(annotated_licences(f"Base photos from `{source}`", found["licences"], found["unstated"]))
        else:
            per_source.append(stated or unknown(f"Base photos from `{source}`"))
    return combine(per_source) if per_source else GLYPHS


def _source_datasets(manifests: dict[str, dict]) -> list[str]:
    out = []
    for manifest in manifests.values():
        source = manifest["source"]
        kind = PHOTO_SOURCES.for_spec(source)
        out.append("original" if source == "procedural" else kind.source_dataset(source) if kind else "extended")
    return list(dict.fromkeys(out))


def _task_rows(split_stats: dict[str, list[dict]]) -> tuple[list[list], Counter, Counter, list, list]:
    rows, letters, rejections, areas, sides = [], Counter(), Counter(), [], []
    for task in TASKS:
        shards = split_stats.get(task)
        if not shards:
            continue
        task_letters = Counter()
        for s in shards:
            task_letters.update(s["letters"])
            rejections.update(s["rejections"])
            if track_of(task) == "difference":  # commonality pairs are different scenes
                areas += s["changed_area"]
            sides += s["long_side"]
        letters.update(task_letters)
        rows.append([task, sum(task_letters.values())] + [task_letters.get(l, 0) for l in LETTERS])
    rows.append(["**total**", sum(letters.values())] + [letters.get(l, 0) for l in LETTERS])
    return rows, letters, rejections, areas, sides


def _structure(manifests: dict[str, dict], stats: dict[str, dict[str, list[dict]]]) -> str:
    parts = [
        "Every row is a 5-option multiple-choice question about an image pair:",
        markdown_table(["column", "content"], [[f"`{c}`" for c in (k,)] + [v] for k, v in COLUMNS.items()]),
        "Configs: one per task (" + ", ".join(f"`{t}`" for t in TASKS) + ") and `all` (the default), "
        "each with the splits built: " + ", ".join(f"`{s}`" for s in manifests) + ".",
        'Prompt given to models: `{question}\\nOptions:\\nA. ...\\nE. ...\\nAnswer with the option\'s letter '
        'from the given choices directly.`, after "Image 1:" image_a and "Image 2:" image_b.',
    ]
    for split in manifests:
        rows, _, _, areas, sides = _task_rows(stats.get(split, {}))
        parts += [f"### Split `{split}`: rows per task and correct letter",
                  markdown_table(["task", "rows"] + list(LETTERS), rows)]
        if sides:
            parts.append(
                f"Image long side: mean {statistics.mean(sides):.0f} px (min {min(sides)}, max {max(sides)}). "
                + (f"Changed area of non-E difference pairs: median {statistics.median(areas) * 100:.3f}% "
                   f"(max {max(areas) * 100:.3f}%) of the image." if areas else "")
            )
    return "\n\n".join(parts)


def _creation(manifests: dict[str, dict], stats: dict[str, dict[str, list[dict]]]) -> str:
    parts = []
    for split, manifest in manifests.items():
        _, _, rejections, _, _ = _task_rows(stats.get(split, {}))
        parts += [
            f"### Split `{split}`",
            f"Root seed {manifest['seed']}, {manifest['per_task']} rows per task, source `{manifest['source']}`, "
            f"generator `{manifest['generator']}`. Row seeds (`seed`) lie in "
            f"[{seed_range(split).start}, {seed_range(split).stop}), this split's own range, disjoint from "
            "every other split's; the build also refuses any row whose base scene or photo (`source`) "
            "another split in the folder uses." + _photo_note(manifest),
            "Build options (rebuild with the same ones to get the same bytes):\n\n```json\n"
            + json.dumps(manifest, indent=1, sort_keys=True) + "\n```",
        ]
        parts += _difficulty_section(manifest, stats.get(split, {}))
        parts.append(_camera_note(manifest))
        reasons = {Reason.parse(k): v for k, v in rejections.items() if k != REVIEW_REJECTION}
        skipped = {r.code: v for r, v in reasons.items() if r.kind == "skipped"}
        checks = {r.code: v for r, v in reasons.items() if r.kind == "check"}
        if skipped:
            parts.append("Photos skipped when a seed drew them (counted per draw): "
                         + ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in sorted(skipped.items())) + ".")
        parts.append(
            "Samples rejected by the pre-write checks and regenerated from the next seed: "
            + (", ".join(f"{k} {v}" for k, v in sorted(checks.items())) if checks else "none") + "."
        )
    parts += ["### Checks", CHECKS]
    return "\n\n".join(parts)


CHECKS = (
    "Before a row is written its pair is verified on its clean renders (the PNG bytes themselves "
    "when no camera takes the images): the changed pixels exist and lie inside the row's cue boxes, "
    "the changed area is under 5% of the image, enough pixels change clearly to be visible, E pairs "
    "are pixel-identical, the five options are distinct and A-D name four different objects (or, as "
    "paired distractors, two objects twice). Where the difficulty adds decoys (every state an option "
    "names, before and after its edit, drawn again elsewhere in both images so that one image does not "
    "tell which option holds), each decoy must be the same pixels in image a and in every candidate's "
    "image b. With cameras, every candidate is checked again as both cameras take it (its shots differ from the "
    "E pair's only inside its cue boxes as the cameras map them, and no cue box leaves the frame), "
    "and the written bytes must decode to what the cameras took.\n\n"
    "Commonality rows are checked for all four candidates, whatever the answer: what the two "
    "scenes share is recomputed from them and must be exactly the candidate (nothing for E), "
    "and each cue box (one per shared object per image) must cover under 5% of its image and "
    "visibly show the object on the written bytes. Instance: the shared object has identical "
    "colours, pattern and marking at another place, scale (10-30%) and rotation, while each "
    "distractor's object is matched in image b by a decoy of another kind in its very look (no "
    "kind is in both images of an E pair), its marking fitted to the body so that a sticker, a "
    "band and spots never read as one another (the first-release catalogue: same-named decoys "
    "with another marking). Category: exactly one "
    "object kind is in both images, as instances of other colour, style and size, and no name "
    "in one image is a near-synonym of a name in the other (cosine similarity of "
    "all-MiniLM-L6-v2 name embeddings under 0.55). Spatial grounding: every object lies "
    "wholly inside one cell of a 6x6 grid and exactly one cell is occupied in both images, by "
    "one object each; the option pairs are drawn from the least similar quarter of name "
    "pairs. Reasoning: exactly one cross-image pair is related in the functional relation "
    "table (combination, supply, embedding, cooperation), looked up both ways; the kind is "
    "recorded in the cue labels."
)

USES = (
    "**Direct use.** Measuring how well a multimodal model perceives small, implicit visual cues across two "
    "high-resolution images: zero-shot evaluation with exact letter match at temperature 0 "
    "(`dicobench eval`, `dicobench score`, or `evaluate.load` of the `dicobench_accuracy` metric), "
    "ablations of resolution (cropped and resized views) and difficulty, and, with a `train` split "
    "built from disjoint seeds, fine-tuning experiments whose test rows share no base scene with training.\n\n"
    "**Out-of-scope use.** Claims about real-photo perception from the procedural configs alone; "
    "comparing scores with the paper's 765 human-curated samples as if they were the same items; "
    "training on the `test` split; using the rows as a measure of anything but the perception of "
    "the cues they were built around (the scenes carry no meaning beyond their objects)."
)

LIMITATIONS = (
    "The procedural configs are a synthetic icon world: flat Font Awesome glyphs on textured "
    "surfaces, drawn by one renderer. They measure whether a model finds a small change or a shared "
    "object that is certainly there and certainly visible (every row is checked on its bytes), "
    "under controlled size, clutter and resolution; they cannot measure perception of natural "
    "textures, lighting, occlusion, or objects outside the catalogue's few hundred English names. "
    "Object names and the relation table for the reasoning tasks are English and written by the "
    "toolkit's authors, so they carry their choices of what belongs together. Scores on these "
    "rows are not the paper's numbers. Photo builds inherit the content, biases and terms of their "
    "photos; their model edits can leave artefacts that give an edit away."
)


USAGE = usage.Usage("dicobench", "attribute", "all", "dicobench.METRIC",
                    'tasks=ds["task"], options=ds["options"]')

SCENE_COLUMNS = ["objects", "namesake"]  # procedural rows only (photo rows, and rows built before, have no scene)
SCENE_KEYS = ("objects_median", "namesake_share", "decoy_share")


def _difficulty_section(manifest: dict, split_stats: dict[str, list[dict]]) -> list[str]:
    """The difficulty the scenes were built at and, per task, the descriptors of its rows
    (`dicobench.descriptors`; E rows have only their decoys)."""
    parts = ["### Difficulty"]
    level = (manifest.get("scene") or {}).get("difficulty")
    if manifest["source"] == "procedural" and level:
        dials = ", ".join(f"{k} {v}" for k, v in level.items() if k not in ("preset", "camera", "camera_on"))
        parts.append(f"Preset `{level['preset']}` ({dials}).")
    per_task = {t: summary([d for s in shards for d in s.get("descriptors", []) if d])
                for t, shards in split_stats.items()}
    scene_columns = SCENE_COLUMNS if any("objects_median" in s for s in per_task.values()) else []
    decoy_column = ["decoys"] if any("decoy_share" in s for s in per_task.values()) else []
    diff = [[t] + [_fmt(v) for k, v in s.items() if k not in ("rows", *SCENE_KEYS)]
            + ([_fmt(s.get("objects_median")), _share(s, "namesake_share")] if scene_columns else [])
            + ([_share(s, "decoy_share")] if decoy_column else []) + [s["rows"]]
            for t, s in per_task.items() if "visible_min" in s]
    common = [[t] + [_fmt(v) for k, v in s.items() if k != "rows"] + [s["rows"]]
              for t, s in per_task.items() if "shared_size_median" in s]
    if diff:
        parts += [f"Difference rows (medians; visible: pixels differing by more than {VISIBLE} levels, "
                  "at full size and after area-downscaling both images to a long side of "
                  + ", ".join(map(str, VIEW_SIDES)) + " px"
                  + ("; objects in the scene, and the share of rows whose changed object has another of its name "
                     "nearby" if scene_columns else "")
                  + ("; decoys: the share of rows, E rows included, in which what the true option says was there "
                     "before also stands elsewhere in image 1 and what it says is there after also stands elsewhere "
                     "in image 2, unchanged, so that one image does not tell which option holds"
                     if decoy_column else "") + "):",
                  markdown_table(["task", "cue share", "changed px", "contrast", "visible (min)", "visible"]
                                 + [f"visible @{s}" for s in VIEW_SIDES] + scene_columns + decoy_column
                                 + ["rows"], diff)]
    if common:
        parts += ["Commonality rows (medians over both images: objects, the shared object's size in px and share "
                  "of the image, other objects of its kind and of its colour):",
                  markdown_table(["task", "objects", "shared px", "shared share", "same kind", "same colour", "rows"],
                                 common)]
    return parts if len(parts) > 1 else []


def _share(summary_row: dict, key: str) -> str:
    return f"{summary_row[key]:.0%}" if key in summary_row else "-"


def _camera_note(manifest: dict) -> str:
    """What the card says about the cameras: image 2 is a second shot, within these bounds."""
    bounds = manifest.get("camera")
    if not bounds:
        return ("### Cameras\n\nBoth images of a row are clean renders (`--camera none`): outside the change "
                "(difference) or the shared object (commonality) nothing differs but the scenes themselves.")
    described = CameraBounds(**bounds)
    return (
        "### Cameras\n\nImage 2 is a second shot: each image of a row was taken through its own small, "
        f"seeded camera ({described.describe()}; at most {described.largest_displacement(2048, 1536):.0f} px "
        "anywhere in a 2048 x 1536 image), so that the scene is the same and only the option's change is a "
        "real difference, as in two photos taken one after the other. Procedural scenes are rendered again "
        "as the camera sees them (objects moved, the surface's shading sampled and its marks drawn where "
        "they land, the exposure applied, this shot's own sensor grain); photos are resampled, exposed and "
        "given grain. This defeats subtracting the two images, and aligning them as a whole; a difference "
        "taken after aligning each part of the frame and undoing the exposure still shows the change, as "
        "between two photos registered that way (`benchmarks/bench_camera.py`). The checks above ran on "
        "the clean renders; `cues` are mapped through each image's camera and grown by a few pixels, and "
        "`changed_area` is the clean renders'. The parameters "
        "of both cameras are recorded in `generator` (`camera a: dx=... dy=... rotation=... scale=... gain=... "
        "wb=r,g,b noise=SEED; camera b: ...`), read back by `dicobench.cameras(row)`."
    )


def _fmt(value) -> str:
    if value is None:
        return "-"
    if isinstance(value, float) and value < 1:
        return f"{value:.2e}"
    return f"{value:.0f}" if isinstance(value, float) else str(value)


def _photo_note(manifest: dict) -> str:
    """How a photo build chose and edited its photos (empty for procedural builds)."""
    if manifest["source"] == "procedural":
        return ""
    note = (f" Base photos come from `{manifest['source']}`; `source` holds the photo id "
            "(for commonality rows every photo used, joined by `|`).")
    if manifest["source"].startswith("coco:"):
        note += (" Objects are the file's annotations: options name their categories, edits and cut-outs follow their "
                 "masks (GrabCut inside the box for an object annotated by its box alone), and crowd regions and "
                 "objects over 5% of the photo are never edited (their names still count as present).")
    detection = manifest.get("detection")
    if detection:
        segmented = (f"segmented by `{detection['segmenter']}`" if detection["segmenter"]
                     else "segmented by GrabCut in their boxes")
        note += (" The annotations were made by `dicobench annotate`: "
                 f"objects detected by `{detection['detector']}` over {len(detection['labels'])} names "
                 f"(score at least {detection['score_threshold']}, per-name NMS at IoU {detection['nms_iou']}), "
                 f"{segmented}; no person checked them. A name counts as absent from a photo when no detection of "
                 f"it scored {detection['absent_threshold']} or more, so a commonality row's claim that "
                 "image b holds none of image a's objects is only as good as the detector.")
    if manifest.get("test_photos") is not None:
        note += (f" {manifest['test_photos']:.0%} of the photos, chosen by a stable hash of their ids, are held "
                 "out for the test split; the train split uses the others.")
    models = manifest.get("models") or {}
    if models.get("editor"):
        note += (f" Edits by `{models['editor']}` from `{models['instructions']}` instructions "
                 "(moves stay classical; commonality cut-outs are blended in by it where it takes reference images).")
    else:
        note += " Edits by the classical OpenCV operators."
    if models.get("verify"):
        note += f" Every edit was also checked by `{models['verify']}`; mismatched or unjudged edits were not used."
    return note


def card_sections(out: Location, manifests: dict[str, dict], stats: dict[str, dict[str, list[dict]]],
                  licence: Licence) -> list[Section]:
    """The card's sections, in order, keyed so that others can be inserted (`insert_section`)."""
    return [
        usage.section(out, USAGE),
        Section("uses", "Uses", USES),
        Section("structure", "Dataset structure", _structure(manifests, stats)),
        Section("creation", "Dataset creation", _creation(manifests, stats)),
        Section("limitations", "Bias, risks and limitations", LIMITATIONS),
        Section("licences", "Licences and attribution", licence.text),
        Section("citation", "Citation", "```bibtex\n" + citations.BOTH + "\n```"),
    ]


SUMMARY = (
    "Pairs of ~2K images for fine-grained multi-image perception: spot the micro-difference "
    "between two images, or find what two different scenes have in common. Each row is a "
    "5-option multiple-choice question; in the difference track options A-D are four edits of "
    "the same base image, in the commonality track four candidate commonalities of two "
    "different scenes (other surface, tint, layout and objects), and E says there is nothing "
    "to find. Generated by the `dicobench` toolkit, following DiCoBench "
    "(Differential and Commonality Visual Cues)."
)


def _stats_metadata(out: Location, configs: dict[str, dict[str, list[str]]], stats) -> tuple[dict, dict]:
    """(`benchmark_stats`, sizes per config and split) from the shards and their sidecars."""
    sizes = {c: {s: shard_sizes([f for g in globs for f in glob(out, g)])
                 for s, globs in splits.items()} for c, splits in configs.items()}
    machine: dict = {}
    for split, per_task in stats.items():
        for task, shards in per_task.items():
            letters = Counter()
            for s in shards:
                letters.update(s["letters"])
            size = sizes[task][split]
            machine.setdefault(split, {})[task] = {
                "rows": size.rows,
                "answers": {l: letters.get(l, 0) for l in LETTERS},
                "image_long_side": long_side_summary([v for s in shards for v in s["long_side"]]),
                "bytes_per_row": round(size.file_bytes / size.rows) if size.rows else 0,
            }
    return machine, sizes


def write_card(out: Location) -> Location:
    manifests = {stem(p): read_json(p) for p in glob(child(out, MANIFEST_DIR), "*.json")}
    tasks = [t for t in TASKS if any(t in m["tasks"] for m in manifests.values())]
    configs = {t: {s: [f"{t}/{s}-*.parquet"] for s, m in manifests.items() if t in m["tasks"]} for t in tasks}
    configs["all"] = {s: [f"{t}/{s}-*.parquet" for t in m["tasks"]] for s, m in manifests.items()}
    stats = {s: _split_stats(out, s, m["tasks"]) for s, m in manifests.items()}
    machine, sizes = _stats_metadata(out, configs, stats)
    licence = _licence(out, manifests)
    card_data = benchmark_card_data(
        licence.metadata(), PRETTY_NAME, configs, "all", features(), sizes, machine,
        source_datasets=_source_datasets(manifests),
        task_categories=["visual-question-answering", "multiple-choice"],
        task_ids=["visual-question-answering", "multiple-choice-qa"],
        tags=["multi-image", "fine-grained-perception", "synthetic", "high-resolution"],
    )
    sections = card_sections(out, manifests, stats, licence)
    review = review_section(out, {t: glob(child(out, t), "*.parquet") for t in tasks}, "task",
                            [k for k, _ in CRITERIA], "dicobench review")
    if review:
        sections = insert_section(sections, human_review(review), after="creation")
    return write_card_file(out, card_data, PRETTY_NAME, SUMMARY, sections,
                           pages={t: list(configs[t]) for t in tasks})  # `all` holds the same rows
