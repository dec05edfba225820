"""The DiCoBench dataset card, regenerated from the build manifests and shard stats on disk,
so a resumed or extended build always describes exactly the files that are there."""

from __future__ import annotations

import statistics
from collections import Counter

from benchkit.card import configs_block, markdown_table, write_readme
from benchkit.catalogue import LICENCE
from benchkit.shards import Location, child, exists, glob, read_json, sidecar_path, stem
from dicobench.descriptors import VIEW_SIDES, VISIBLE, summary
from dicobench.generate import seed_range
from dicobench.checks import Reason
from dicobench.schema import LETTERS, TASKS, track_of

MANIFEST_DIR = ".dicobench"


def _split_stats(out: Location, split: str, tasks: list[str]) -> dict[str, list[dict]]:
    stats: dict[str, list[dict]] = {}
    for task in tasks:
        for shard in glob(child(out, task), f"{split}-*.parquet"):
            side = sidecar_path(shard)
            if exists(side):
                stats.setdefault(task, []).append(read_json(side))
    return stats


def _body(manifests: dict[str, dict], stats: dict[str, dict[str, list[dict]]]) -> str:
    parts = [
        "# DiCoBench (generated)",
        "Pairs of ~2K images for fine-grained multi-image perception: spot the micro-difference "
        "between two images, or find what two different scenes have in common. Each row is a "
        "5-option multiple-choice question; in the difference track options A-D are four edits of "
        "the same base image, in the commonality track four candidate commonalities of two "
        "different scenes (other surface, tint, layout and objects), and E says there is nothing "
        "to find. Generated procedurally by the `dicobench` toolkit, following DiCoBench "
        "(Differential and Commonality Visual Cues).",
        "## Load",
        "```python\nfrom datasets import load_dataset\n"
        'ds = load_dataset("path/or/repo", "attribute", split="test")  # or "all"\n```',
    ]
    for split, manifest in manifests.items():
        split_stats = stats.get(split, {})
        rows, letters, rejections, areas, sides = [], Counter(), Counter(), [], []
        for task, shards in split_stats.items():
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
        parts += [
            f"## Split `{split}`",
            f"Root seed {manifest['seed']}, {manifest['per_task']} rows per task, source `{manifest['source']}`, "
            f"generator `{manifest['generator']}`. Row seeds (`seed`) lie in "
            f"[{seed_range(split).start}, {seed_range(split).stop}), this split's own range, disjoint from "
            "every other split's; the build also refuses any row whose base scene or photo (`source`) "
            "another split in the folder uses." + _photo_note(manifest),
            "### Rows per task and correct letter",
            markdown_table(["task", "rows"] + list(LETTERS), rows),
        ]
        if sides:
            parts.append(
                f"Image long side: mean {statistics.mean(sides):.0f} px (min {min(sides)}, max {max(sides)}). "
                + (
                    f"Changed area of non-E difference pairs: median {statistics.median(areas) * 100:.3f}% "
                    f"(max {max(areas) * 100:.3f}%) of the image."
                    if areas
                    else ""
                )
            )
        parts += _difficulty_section(manifest, split_stats)
        reasons = {Reason.parse(k): v for k, v in rejections.items()}
        skipped = {r.code: v for r, v in reasons.items() if r.kind == "skipped"}
        checks = {r.code: v for r, v in reasons.items() if r.kind == "check"}
        if skipped:
            parts.append("Photos skipped when a seed drew them (counted per draw): "
                         + ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in sorted(skipped.items())) + ".")
        if checks:
            parts.append(
                "Samples rejected by the pre-write checks and regenerated from the next seed: "
                + ", ".join(f"{k} {v}" for k, v in sorted(checks.items()))
                + "."
            )
    parts += [
        "## Checks",
        "Before a row is written its PNG bytes are decoded and verified: the changed pixels exist "
        "and lie inside the row's cue boxes, the changed area is under 5% of the image, enough "
        "pixels change clearly to be visible, E pairs are pixel-identical, the five options are "
        "distinct and A-D name four different objects.",
        "Commonality rows are checked for all four candidates, whatever the answer: what the two "
        "scenes share is recomputed from them and must be exactly the candidate (nothing for E), "
        "and each cue box (one per shared object per image) must cover under 5% of its image and "
        "visibly show the object on the written bytes. Instance: the shared object has identical "
        "colours, pattern and marking at another place, scale (10-30%) and rotation, while the "
        "same-named distractors in image b differ visibly in their marking. Category: exactly one "
        "object kind is in both images, as instances of other colour, style and size, and no name "
        "in one image is a near-synonym of a name in the other (cosine similarity of "
        "all-MiniLM-L6-v2 name embeddings under 0.55). Spatial grounding: every object lies "
        "wholly inside one cell of a 6x6 grid and exactly one cell is occupied in both images, by "
        "one object each; the option pairs are drawn from the least similar quarter of name "
        "pairs. Reasoning: exactly one cross-image pair is related in the functional relation "
        "table (combination, supply, embedding, cooperation), looked up both ways; the kind is "
        "recorded in the cue labels.",
        "## Licences",
        "Generated data: CC BY 4.0. " + LICENCE,
    ]
    return "\n\n".join(parts)


def _difficulty_section(manifest: dict, split_stats: dict[str, list[dict]]) -> list[str]:
    """The difficulty the scenes were built at and, per task, the descriptors of its rows
    (`dicobench.descriptors`; E rows have none)."""
    parts = ["### Difficulty"]
    level = (manifest.get("scene") or {}).get("difficulty")
    if manifest["source"] == "procedural" and level:
        dials = ", ".join(f"{k} {v}" for k, v in level.items() if k != "preset")
        parts.append(f"Preset `{level['preset']}` ({dials}).")
    per_task = {t: summary([d for s in shards for d in s.get("descriptors", []) if d]) for t, shards in split_stats.items()}
    diff = [[t] + [_fmt(v) for k, v in s.items() if k != "rows"] + [s["rows"]] for t, s in per_task.items() if "visible_min" in s]
    common = [[t] + [_fmt(v) for k, v in s.items() if k != "rows"] + [s["rows"]] for t, s in per_task.items() if "shared_size_median" in s]
    if diff:
        parts += [f"Difference rows (medians; visible: pixels differing by more than {VISIBLE} levels, at full size and "
                  "after area-downscaling both images to a long side of " + ", ".join(map(str, VIEW_SIDES)) + " px):",
                  markdown_table(["task", "cue share", "changed px", "contrast", "visible (min)", "visible"]
                                 + [f"visible @{s}" for s in VIEW_SIDES] + ["rows"], diff)]
    if common:
        parts += ["Commonality rows (medians over both images: objects, the shared object's size in px and share of the "
                  "image, other objects of its kind and of its colour, Lab distance of the nearest same-kind decoy's colour):",
                  markdown_table(["task", "objects", "shared px", "shared share", "same kind", "same colour",
                                  "kind colour distance", "rows"], common)]
    return parts if len(parts) > 1 else []


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
    note = f" Base photos come from `{manifest['source']}`; `source` holds the photo id (for commonality rows every photo used, joined by `|`)."
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


def write_card(out: Location) -> Location:
    manifests = {stem(p): read_json(p) for p in glob(child(out, MANIFEST_DIR), "*.json")}
    tasks = [t for t in TASKS if any(t in m["tasks"] for m in manifests.values())]
    configs = {t: {s: [f"{t}/{s}-*.parquet"] for s, m in manifests.items() if t in m["tasks"]} for t in tasks}
    configs["all"] = {s: [f"{t}/{s}-*.parquet" for t in m["tasks"]] for s, m in manifests.items()}
    metadata = {
        "license": "cc-by-4.0",
        "task_categories": ["visual-question-answering", "multiple-choice"],
        "language": ["en"],
        "pretty_name": "DiCoBench (generated)",
        "tags": ["multi-image", "fine-grained-perception", "synthetic", "high-resolution"],
        "configs": configs_block(configs, default="all"),
    }
    stats = {s: _split_stats(out, s, m["tasks"]) for s, m in manifests.items()}
    return write_readme(out, metadata, _body(manifests, stats))
