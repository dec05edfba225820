"""How hard MultipanelVQA's panels are, without a model: per preset and source, the answer
object's size and the panel clutter (`generate.descriptors`), how often the target is the odd
one out among its near-duplicate panels (pixels alone, `shortcuts.odd_one_out`) and by its answer
(the panel whose answer no other has, `shortcuts.answer_odd_one_out`, and the opposite, a panel whose
answer another shows too, `shortcuts.answer_shared_pick`, where the descriptors carry
every panel's answer: neighbours "twins"), and the
text-only baselines per question type (`shortcuts.text_only`), all on the `original` config.

    python benchmarks/bench_mpv_difficulty.py [--difficulty easy,hard] [--layouts 0-209] [--images N] [--num-proc 2]
                                              [--axes other_details=0,scene_question=presence,catalogue=first-release]

A build fills every layout from one of only ten image sets per source; `--images` (per source,
more than the layouts) cycles the layouts with fresh sets, for figures over more sets. `--axes`
sets dials apart in every preset built (e.g. the first release's near duplicates at `hard`).
"""

from __future__ import annotations

import argparse
import io
import json
import statistics
import tempfile
from collections import defaultdict
from pathlib import Path

import pyarrow.parquet as pq
from PIL import Image

from dicobench.kit.io.shards import sidecar_path
from multipanelvqa.build import build
from multipanelvqa.schema import QUESTION_TYPES
from multipanelvqa.shortcuts import answer_odd_one_out, answer_shared_pick, odd_one_out, panel_thumbs, text_only


def measure(difficulty: str, layouts: str, num_proc: int, images: int | None = None,
            axes: dict | None = None) -> tuple[list[dict], dict[str, dict]]:
    """The `original` rows of a fresh build and their descriptors by id."""
    with tempfile.TemporaryDirectory() as tmp:
        out = build(Path(tmp) / "b", layouts=layouts, configs="original", difficulty=difficulty, num_proc=num_proc,
                    images=images, axes=axes, progress=False)
        shards = sorted((Path(out) / "original").glob("*.parquet"))
        rows = [r for s in shards for r in pq.read_table(s).to_pylist()]
        for r in rows:  # the ClassLabel's index, as Parquet stores it
            r["question_type"] = QUESTION_TYPES[r["question_type"]]
        described = {d["id"]: d for s in shards for d in json.loads(Path(sidecar_path(s)).read_text())["descriptors"]}
    return rows, described


def odd_one_out_rates(rows: list[dict], described: dict[str, dict]) -> dict[str, dict]:
    """Per source, over images with at least three near-duplicate panels (the target's included;
    near duplicates are subfigures 1..n): the share where the target is the odd one out, and chance."""
    per: dict[str, list[tuple[float, float]]] = defaultdict(list)
    for row in rows:
        if row["question_type"] != "q1":  # one measure per image (its three rows share the image)
            continue
        group = list(range(described[row["id"]]["near_duplicates"] + 1))
        if len(group) < 3:
            continue
        thumbs = panel_thumbs(Image.open(io.BytesIO(row["image"]["bytes"])), [s["bbox"] for s in row["subfigures"]])
        per[row["source"]].append((odd_one_out(thumbs, group), 1 / len(group)))
    return {s: {"images": len(v), "odd_one_out": sum(h for h, _ in v) / len(v),
                "chance": sum(c for _, c in v) / len(v)}
            for s, v in sorted(per.items())}


def answer_rates(rows: list[dict], described: dict[str, dict]) -> dict[str, dict]:
    """Per source, over images whose descriptors carry each panel's answer (neighbours "twins"):
    how often picking a panel whose answer no other has finds the target (`answer_odd_one_out`),
    how often picking one whose answer another shows too does (`answer_shared_pick`), chance (1 / panels), the
    share of images where the target is the only such panel, and where no panel's answer is unique."""
    per: dict[str, list[tuple[float, float, bool, bool, float]]] = defaultdict(list)
    for row in rows:
        answers = described[row["id"]].get("panel_answers")
        if row["question_type"] != "q1" or not answers:
            continue
        unique = [i for i, a in enumerate(answers) if answers.count(a) == 1]
        per[row["source"]].append((answer_odd_one_out(answers), 1 / len(answers), unique == [0], not unique,
                                   answer_shared_pick(answers)))
    return {s: {"images": len(v), "hit": sum(x[0] for x in v) / len(v), "chance": sum(x[1] for x in v) / len(v),
                "target_alone": sum(x[2] for x in v) / len(v), "none_unique": sum(x[3] for x in v) / len(v),
                "shared_hit": sum(x[4] for x in v) / len(v)}
            for s, v in sorted(per.items())}


def report(name: str, rows: list[dict], described: dict[str, dict]) -> None:
    print(f"\n== {name}: {len(rows)} original rows")
    by_source: dict[str, list[dict]] = defaultdict(list)
    for d in described.values():
        by_source[d["source"]].append(d)
    for source, ds in sorted(by_source.items()):
        px = [d["detail_px"] for d in ds if d["detail_px"] is not None]
        print(f"{source:17s} detail px median {statistics.median(px):g} (min {min(px)}), objects in the target panel "
              f"median {statistics.median(d['objects'] for d in ds):g}, near duplicates median "
              f"{statistics.median(d['near_duplicates'] for d in ds):g}")
    for source, r in odd_one_out_rates(rows, described).items():
        print(f"{source:17s} target is the odd one out among its near duplicates in {r['odd_one_out']:.1%} of "
              f"{r['images']} images (chance {r['chance']:.1%}; the same for each of its three questions)")
    for source, r in answer_rates(rows, described).items():
        print(f"{source:17s} picking the panel whose answer no other has finds the target in {r['hit']:.1%} of "
              f"{r['images']} images (chance {r['chance']:.1%}); "
              f"one whose answer another shows too {r['shared_hit']:.1%}; "
              f"the target alone unique {r['target_alone']:.1%}, no answer unique {r['none_unique']:.1%}")
    for qtype, stats in text_only(rows).items():
        extra = stats.pop("templates", None)
        rest = ", ".join(f"{k} {v:.1%}" for k, v in stats.items() if k not in ("rows", "chance"))
        print(f"text only {qtype} ({stats['rows']} rows, chance {stats['chance']:.1%}): {rest}"
              + "".join(f"; {t!r} {v['accuracy']:.1%} of {v['rows']} (chance {v['chance']:.1%})"
                      for t, v in (extra or {}).items()))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--difficulty", default="easy,hard",
                    help="comma-separated presets, built in turn (default easy,hard)")
    ap.add_argument("--layouts", default="0-209")
    ap.add_argument("--images", type=int, default=None, help="images per source (default one per layout)")
    ap.add_argument("--num-proc", type=int, default=2)
    ap.add_argument("--axes", default="", help="dials set apart, name=value,... (e.g. other_details=0)")
    args = ap.parse_args()
    axes = {}
    for item in filter(None, args.axes.split(",")):
        name, _, value = item.partition("=")
        axes[name] = int(value) if value.isdigit() else value
    for name in args.difficulty.split(","):
        report(name + (f" ({args.axes})" if axes else ""),
               *measure(name, args.layouts, args.num_proc, args.images, axes))


if __name__ == "__main__":
    main()
