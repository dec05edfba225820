"""`multipanelvqa.build`: plan image tasks, then make each shard in a worker (local processes or Ray).

Every config is sharded by the same image ranges, so one shard job (a run of layouts, each
filled from one image set) yields those images' rows in all configs. The build is
resumable: a shard is a pure function of the build options, finished shards are kept, and
a rerun with the same options only makes the missing ones (LLM questions come from a disk
cache). Any engine gives the same bytes.
"""

from __future__ import annotations

import dataclasses
import json
import os
from collections import Counter
from pathlib import Path

import numpy as np

from dicobench.kit import __version__
from dicobench.kit.engines.driver import (
    RunOptions,
    ShardSet,
    claimed,
    missing_shards,
    other_split_shards,
    refuse_shared,
    run_jobs,
)
from dicobench.kit.engines.local import map_jobs
from dicobench.kit.errors import UserError
from dicobench.kit.io.shards import Location, child, location, read_column, shard_ranges, write_json_atomic
from dicobench.kit.people.decisions import build_rejections, holds_rejected
from multipanelvqa.build_config import BuildConfig
from multipanelvqa.card import manifest_name, write_card
from multipanelvqa.composite.layouts import BASES_PER_STYLE, Layout, generate_layouts
from multipanelvqa.composite.positions import describable
from multipanelvqa.difficulty import PanelDifficulty
from multipanelvqa.generate import SYNTHETIC_CONFIGS, ImageTask, base_sequence, shard_rows, target_info
from multipanelvqa.questions.common import balanced_schedule
from multipanelvqa.questions.llm import QuestionSource, generated_questions
from multipanelvqa.review_rebuild import redo_count
from multipanelvqa.schema import CHOICE_LETTERS, MANIFEST_DIR, QUESTION_TYPES, features
from multipanelvqa.sources.adapters import ADAPTERS, load_sets
from multipanelvqa.sources.image_sets import PROCEDURAL
from multipanelvqa.sources.procedural import procedural_set

ROWS_PER_IMAGE = len(QUESTION_TYPES)


def parse_layouts(spec, count: int) -> list[int]:
    """Layout ids from None (all), a list of ints, or a string like "0-6,140"."""
    if spec is None:
        return list(range(count))
    ids: set[int] = set()
    try:
        parts = spec.split(",") if isinstance(spec, str) else list(spec)
        for part in parts:
            lo, _, hi = str(part).strip().partition("-")
            lo, hi = int(lo), int(hi or lo)
            if hi < lo:
                raise UserError(f"--layouts range {str(part).strip()!r} is reversed: write {hi}-{lo}")
            ids.update(range(lo, hi + 1))
    except ValueError:
        raise UserError(f"--layouts must be ids or ranges like 0-6,140, got {spec!r}") from None
    bad = sorted(i for i in ids if not 0 <= i < count)
    if bad or not ids:
        raise UserError(f"layout ids must be in 0-{count - 1}, got {spec!r}")
    return sorted(ids)


def _images(sources: list[str], layouts: list[Layout], seed: int, count: int | None = None,
            q1_forms: str = "any_all") -> list[tuple[str, Layout, str, str]]:
    """(source, layout, Q1 kind, Q3 letter) for `count` images per source (default one per
    layout), grouped by image set; past the last layout the layouts come round again (the
    build gives each pass fresh image sets). Q1 yes/no and the Q3 letter are balanced within
    each source (balanced_schedule), Q1's no split "any"/"all" (`q1_forms` "any": always "any",
    since an "all" question is always no; "one_breaker": its yes splits too, "any"/"all ...
    other than")."""
    once = sorted(layouts, key=lambda l: (base_sequence(l), l.layout_id))
    ordered = [once[i % len(once)] for i in range(len(once) if count is None else count)]
    out = []
    for s, source in enumerate(sources):
        rng = np.random.default_rng([seed, s, 6])
        yes = balanced_schedule(len(ordered), ["yes", "no"], rng)
        no_kinds = iter(balanced_schedule(yes.count("no"), ["no_any", "no_all"], rng) if q1_forms != "any"
                        else ["no_any"] * yes.count("no"))
        letters = balanced_schedule(len(ordered), list(CHOICE_LETTERS), rng)
        # one_breaker: yes splits "any" / "all ... other than" as no does (drawn after the rest, so the
        # other forms' schedules stay what they were)
        yes_kinds = iter(balanced_schedule(yes.count("yes"), ["yes", "yes_all"], rng) if q1_forms == "one_breaker"
                         else ["yes"] * yes.count("yes"))
        for layout, y, letter in zip(ordered, yes, letters):
            out.append((source, layout, next(yes_kinds) if y == "yes" else next(no_kinds), letter))
    return out


def held_out_panels(out: Location, split: str) -> frozenset[str]:
    """Panel image ids (`subfigures.source_id`, which name their image set) of the folder's
    other splits: a split that reused one would leak test images into training (or back)."""
    shards = other_split_shards(out, SYNTHETIC_CONFIGS, split)
    return frozenset(sub["source_id"] for f in shards for subs in read_column(f, "subfigures") for sub in subs)


def _make_set(spec: tuple[str, int, int, int, PanelDifficulty]):
    return spec[:2], procedural_set(*spec)


@dataclasses.dataclass(frozen=True)
class ShardJob:
    """One shard in the configs it still lacks: all a worker needs (picklable, for any engine)."""

    tasks: tuple[ImageTask, ...]
    paths: tuple[tuple[str, str], ...]  # (config, shard path)
    sets: tuple[tuple[tuple[str, int], object], ...]  # image sets made on the driver, by (source, set index)
    held_out: frozenset[str] = frozenset()  # panel ids of other splits: not to be reused


def make_shard(job: ShardJob) -> dict:
    """Generate and write one shard in each of its configs; the stats go to the sidecars."""
    with ShardSet(dict(job.paths), features(), row_group_size=ROWS_PER_IMAGE) as shards:
        kept: dict[str, list[dict]] = {c: [] for c, _ in job.paths}
        measured: dict[str, list[dict]] = {c: [] for c, _ in job.paths}
        for rows, described in shard_rows(job.tasks, dict(job.sets)):
            for config, config_rows in rows.items():
                for row in config_rows:
                    refuse_shared(sorted({s["source_id"] for s in row["subfigures"]}), job.held_out, lambda image: (
                        f"row {row['id']} uses image {image}, which another split in the folder already "
                        "uses; splits must not share a base image set"))
                    shards.write(config, row)
                kept[config] += [{k: v for k, v in r.items() if k != "image"} for r in config_rows]
                measured[config] += described[config]
        shards.stats = {c: {**_shard_stats(c, kept[c]), "descriptors": measured[c]} for c in kept}
    return {"rows": sum(s["rows"] for s in shards.stats.values())}


def _shard_stats(config: str, rows: list[dict]) -> dict:
    return {
        "config": config,
        "rows": len(rows),
        "question_types": dict(Counter(r["question_type"] for r in rows)),
        "q1_answers": dict(Counter(r["answer"] for r in rows if r["question_type"] == "q1")),
        "q3_answers": dict(Counter(r["answer"] for r in rows if r["question_type"] == "q3")),
        "sources": dict(Counter(r["source"] for r in rows if r["question_type"] == "q1")),
        "num_subfigures": dict(Counter(str(r["num_subfigures"]) for r in rows if r["question_type"] == "q1")),
        "layout_styles": dict(Counter(r["layout_style"] for r in rows if r["question_type"] == "q1")),
        "targets": sorted({r["subfigures"][0]["source_id"] for r in rows}),  # distinct target images
    }


@dataclasses.dataclass(frozen=True)
class Plan:
    """What a validated config resolves to on the driver: every image to make (in schedule order,
    for no config yet), the configs, the adapters' data and the manifest that fixes the bytes."""

    tasks: tuple[ImageTask, ...]
    configs: tuple[str, ...]
    images_per_shard: int
    data: dict[str, str | None]  # adapter source -> its Hub id or Parquet (None: the default)
    data_split: dict[str, str | None]
    questions: QuestionSource
    manifest: dict


def plan(config: BuildConfig) -> Plan:
    """Validate `config` and draw its layouts and image schedule: the one place a config becomes
    the images every worker makes."""
    config.validate()
    source_list, config_list, panels, qsource = (config.source_list(), config.config_list(), config.panels(),
                                                 config.question_source())
    all_layouts = generate_layouts(config.seed, panels.position_words)  # layout words move a panel where needed
    layout_ids = parse_layouts(config.layouts, len(all_layouts))
    # a layout whose panels cannot all be named in the difficulty's words is not built (the card says which)
    unnamed = [i for i in layout_ids if not describable(all_layouts[i].boxes, panels.position_words)]
    layout_ids = [i for i in layout_ids if i not in unnamed]
    if not layout_ids:
        raise UserError(f"layouts {', '.join(map(str, unnamed))} have no unambiguous {panels.position_words} position "
                        "words for every panel; pick other --layouts or --position-words short")
    per_source = len(layout_ids) if config.images is None else config.images
    if (config.split != "test" or per_source > len(layout_ids)) and set(source_list) - set(PROCEDURAL):
        raise UserError("--split train and more --images than layouts need procedural sources "
                        "(imported image sets cannot be drawn fresh)")
    schedule = _images(source_list, [all_layouts[i] for i in layout_ids], config.seed, per_source, panels.q1_forms)
    cycles = [(i % per_source) // len(layout_ids) for i in range(len(schedule))]
    images_per_shard = (config.images_per_shard if config.num_shards is None
                        else -(-len(schedule) // config.num_shards))
    data = {s: (config.source_data or {}).get(s) for s in source_list if s in ADAPTERS}
    data_split = {s: (config.source_split or {}).get(s) for s in source_list if s in ADAPTERS}
    manifest = json.loads(json.dumps({
        "generator": f"multipanelvqa {__version__}",
        "split": config.split,
        "images": per_source,
        "seed": config.seed,
        "sources": source_list,
        "source_data": data,
        "source_split": data_split,
        "layouts": layout_ids,
        "configs": config_list,
        "questions": qsource.spec,
        "images_per_shard": images_per_shard,
        "compress_level": config.compress_level,
        "difficulty": {"description": panels.describe(), **panels.manifest()},
        **({"layouts_without_words": unnamed} if unnamed else {}),
    }))
    tasks = tuple(ImageTask(*image, config.seed, (), config.compress_level, split=config.split, cycle=cycle,
                            difficulty=panels) for image, cycle in zip(schedule, cycles))
    return Plan(tasks, tuple(config_list), images_per_shard, data, data_split, qsource, manifest)


def build(out_dir: str | os.PathLike, config: BuildConfig | None = None, **settings) -> Location:
    """Build the synthetic MultipanelVQA configs into `out_dir` and return the folder.

    Give either a `config` (`multipanelvqa.BuildConfig`) or its fields as keywords (its docstring
    says what each does); a keyword that is no field is a TypeError.
    Default: 210 layouts x 2 procedural sources x 3 questions = 1260 rows in each of the 7
    configs. `questions="openai:<model>"` asks an OpenAI-compatible model with the paper's
    prompt instead of the templates. `engine="ray"` makes the shards on Ray, byte-identical to
    the local engine. `split="train"` draws image sets from the train range
    (`generate.set_range`), disjoint from test's, and refuses rows whose panel images another
    split in the folder uses. `difficulty` (default hard; `easy` gives the first release's bytes)
    decides what the procedural panels hold. `out_dir` may be an fsspec URL (`s3://...`); the
    result is then that URL, else a `Path`.
    """
    if config is None:
        config = BuildConfig(**settings)
    elif settings:
        raise TypeError("build() takes a BuildConfig or its fields as keywords, not both")
    chosen, run = plan(config), config.run_options()
    out = location(out_dir)
    if chosen.questions.model is not None and not isinstance(out, Path):
        raise UserError("--questions openai:<model> needs a local --out (the reply cache is a local folder)")
    with claimed(out, child(out, MANIFEST_DIR, manifest_name(run.split)), chosen.manifest, SYNTHETIC_CONFIGS, run,
                 f"synthetic {run.split} build", config.record()):
        ranges = shard_ranges(len(chosen.tasks), chosen.images_per_shard)
        # images reviewers rejected
        rejected = build_rejections(out) if chosen.questions.model is None else frozenset()
        # a rejected question redraws its image, and so every config's rows of it
        todo = missing_shards(out, chosen.configs, run.split, ranges, ROWS_PER_IMAGE,
                              stale=lambda path: holds_rejected(path, rejected), linked=True, features=features())
        if todo:
            tasks = [dataclasses.replace(t, redo=redo_count(t, chosen.configs, rejected)) for t in chosen.tasks]
            jobs = _jobs(out, tasks, ranges, todo, config.seed, chosen, held_out_panels(out, run.split), run)
            total = sum(len(j.tasks) * len(j.paths) * ROWS_PER_IMAGE for j in jobs)
            run_jobs(make_shard, jobs, total, f"multipanelvqa {run.split}", run)
        write_card(out)
    return out


def imported_sets(tasks, chosen: Plan) -> dict[tuple[str, int], object]:
    """The image sets of adapter sources that `tasks` use, loaded once on the driver, by
    (source, set index); procedural sets are made by the workers."""
    sets: dict[tuple[str, int], object] = {}
    for source in sorted({t.source for t in tasks if t.source in ADAPTERS}):
        loaded = load_sets(source, chosen.data[source], chosen.data_split[source], BASES_PER_STYLE)
        sets.update({(source, b): loaded[b % len(loaded)] for b in range(BASES_PER_STYLE)})
    return sets


def _jobs(out, images, ranges, todo, seed, chosen: Plan, held_out, run: RunOptions) -> list[ShardJob]:
    """The shard jobs, with imported image sets and LLM questions resolved here, on the driver."""
    qsource = chosen.questions
    tasks = {i: dataclasses.replace(images[i], configs=tuple(todo[k])) for k in sorted(todo) for i in ranges[k]}
    needed = sorted({(t.source, t.set_index) for t in tasks.values()})
    sets = imported_sets(tasks.values(), chosen)
    if qsource.model is not None:  # the prompt needs every image's target: make the sets here
        difficulty = next(iter(tasks.values())).difficulty
        procedural = [(s, b, seed, 0, difficulty) for s, b in needed if s in PROCEDURAL]
        sets.update(dict(map_jobs(_make_set, procedural, engine=run.engine, num_proc=run.num_proc,
                                  ray_address=run.ray_address)))
        infos = {i: target_info(t, sets[(t.source, t.set_index)]) for i, t in tasks.items()}
        generated, fallbacks = generated_questions(qsource, infos, out / MANIFEST_DIR / "llm-cache")
        tasks = {i: dataclasses.replace(t, generated=generated.get(i)) for i, t in tasks.items()}
        write_json_atomic(child(out, MANIFEST_DIR, "llm.json"),
                          {"model": qsource.model, "images": len(infos), "template_fallbacks": fallbacks})
    jobs = []
    for k in sorted(todo):
        shard_tasks = tuple(tasks[i] for i in ranges[k])
        keys = sorted({(t.source, t.set_index) for t in shard_tasks} & sets.keys())
        paths = tuple((c, str(p)) for c, p in todo[k].items())
        jobs.append(ShardJob(shard_tasks, paths, tuple((key, sets[key]) for key in keys), held_out))
    return jobs
