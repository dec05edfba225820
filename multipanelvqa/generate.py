"""Pure generation: (image task, image set) -> the rows of one multipanel image in each config.

One task is one layout filled from one image set; its three questions are the same in
every config (the paper keeps questions and answers across augmentations; only
captions_referenced names the target by its caption number). Each config's handling is its
declaration's (`multipanelvqa.augmentations`). Each distinct composite is
rendered and PNG-encoded once: captions and captions_referenced share theirs, and the
three rows of an image carry the same bytes (written to one Parquet row group, where the
dictionary encoding stores them once). `shard_rows` is the unit every engine distributes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterator, Mapping, Sequence

import numpy as np

from dicobench.kit.engines import driver
from dicobench.kit.io.imageio import encode_png
from multipanelvqa.augmentations import get_augmentation
from multipanelvqa.composite.augment import for_config
from multipanelvqa.composite.compose import Composition, render
from multipanelvqa.composite.layouts import BASES_PER_STYLE, MAX_PANELS, MIN_PANELS, Layout
from multipanelvqa.composite.positions import caption_numbers, describe_positions, nearest, neighbours
from multipanelvqa.difficulty import EASY, PanelDifficulty
from multipanelvqa.questions.common import Question, q2, questions
from multipanelvqa.schema import SOURCES, SYNTHETIC_CONFIGS  # noqa: F401 (SYNTHETIC_CONFIGS: builds read it here)
from multipanelvqa.sources.image_sets import ImageSet, decode_panel
from multipanelvqa.sources.procedural import procedural_set

# "no_any" needs the set's absent answer, else it reads as "no_all"; "yes_all" (q1_forms one_breaker)
# needs it too, else it reads as "yes"
Q1_KINDS = ("yes", "no_any", "no_all", "yes_all")
_CHOICE_LINE = re.compile(r"^\s*\(?([abcd])[.):]\s*(.+?)\s*$", re.MULTILINE | re.IGNORECASE)
SPLITS = driver.SPLITS
UNIQUE_DRAW = 34  # an image's stream (beside its seed) for which panel shared_answers lets be unique
PLACE_DRAW = 35  # an image's stream (beside its seed) for which layout box the target takes (target_place any)
SET_BITS = 62  # each split owns 2**62 image-set indices (which seed the sets' images)


def set_range(split: driver.Split) -> range:
    """The image-set indices of `split`: disjoint by construction (as dicobench's seed_range),
    so a train image can never be drawn from a test image set; recorded in the card."""
    return driver.code_range(SPLITS[split], SET_BITS)


@dataclass(frozen=True)
class ImageTask:
    """Everything besides the image set that decides one image's rows."""

    source: str
    layout: Layout
    q1: str  # one of Q1_KINDS
    q3_letter: str
    root_seed: int
    configs: tuple[str, ...]
    compress_level: int = 1
    generated: dict | None = None  # checked LLM fields Q1..A3 (questions.parse_generated), else templates
    split: driver.Split = "test"
    cycle: int = 0  # pass over the layouts; every pass fills them from fresh image sets
    redo: int = 0  # versions of this image reviewers rejected: its set and seed are drawn afresh this often
    difficulty: PanelDifficulty = EASY  # what the procedural panels hold and how the target is named

    @property
    def set_index(self) -> int:
        """The image set this image draws its panels from: its split's range, then its pass, then its
        layout's base sequence."""
        return set_range(self.split).start + self.cycle * BASES_PER_STYLE + base_sequence(self.layout)

    @property
    def variant(self) -> tuple[int, ...]:
        """What tells this image from the same layout's in other passes or splits; empty for the
        first test pass, whose seeds and ids stay those of the published benchmark."""
        return () if (self.split, self.cycle) == ("test", 0) else (SPLITS[self.split], self.cycle)

    @property
    def seed_variant(self) -> tuple[int, ...]:
        """`variant`, plus the redo count of an image reviewers rejected: what its seed is drawn from."""
        return self.variant + ((self.redo,) if self.redo else ())

    @property
    def seed(self) -> int:
        """The image's seed (`image_seed`): its questions' draws and its own streams start from it."""
        return image_seed(self.root_seed, self.source, self.layout.layout_id, self.seed_variant)

    @property
    def placed(self) -> Layout:
        """The layout as this image fills it, the target's box first (`place_target`)."""
        return place_target(self.layout, self.difficulty.target_place, self.seed)


def place_target(layout: Layout, place: str, seed: int) -> Layout:
    """`layout` with the target's box first, the others after it in placement order: at target_place
    "first" (the paper's first release) the first box the layout generator placed, so the layout
    itself; at "any" a box drawn uniformly from the image's seed on its own stream (PLACE_DRAW),
    so that the target is at each of the layout's boxes alike and nothing else drawn changes. The
    rows' subfigures list the target first (target_index 0) in either case."""
    if place == "first":
        return layout
    t = int(np.random.default_rng([seed, PLACE_DRAW]).integers(layout.num_panels))
    boxes = layout.boxes
    return Layout(layout.layout_id, layout.style, (boxes[t],) + boxes[:t] + boxes[t + 1:])


def base_sequence(layout: Layout) -> int:
    """The base sequence a layout was cut from (0..BASES_PER_STYLE-1): its image set within a pass
    (`ImageTask.set_index`), so one set fills one layout of every style and panel count (content
    independent of layout, as in the paper's A.2)."""
    per_style = BASES_PER_STYLE * (MAX_PANELS - MIN_PANELS + 1)
    return (layout.layout_id % per_style) // (MAX_PANELS - MIN_PANELS + 1)


def image_seed(root: int, source: str, layout_id: int, variant: tuple[int, ...] = ()) -> int:
    ss = np.random.SeedSequence([root, SOURCES.index(source), layout_id, *variant])
    return int(ss.generate_state(1, np.uint64)[0] >> np.uint64(1))


def row_id(config: str, source: str, root: int, layout_id: int, question_type: str,
           variant: tuple[int, ...] = ()) -> str:
    tag = "".join(f"-v{v}" for v in variant)
    return f"{config}-{source}{tag}-s{root}-L{layout_id:03d}-{question_type}"


def target_info(task: ImageTask, image_set: ImageSet) -> dict:
    """What the paper's question prompt needs about an image (Table 7's slots)."""
    return {
        "num_subfigures": task.layout.num_panels,
        "common_question": image_set.question,
        "target_answer": image_set.answers[0],
        "position": describe_positions(task.placed.boxes, task.difficulty.position_words)[0],
    }


def shared_answers(boxes: Sequence, target: str, others: Sequence[str], draw: int | None = None) -> list[str]:
    """target_answer "shared": the answer each layout box shows (box 0 the target), so that no
    panel is told apart by its answer alone and the position decides:

    - the target's neighbours (`positions.neighbours`) show other answers: one or more of them
      answers no other neighbour shows (so that among the target and its twins the target is not
      the one odd answer), the rest answers they share in twos or threes;
    - the farthest panel that is no neighbour shows the target's answer too (Q3 never offers it);
    - the remaining panels first repeat the neighbours' answers that show once, then pairs of
      other answers, so that, where the layout has room, every answer shows at least twice;
    - where every panel is a neighbour, they show different answers while `others` last, else
      the last once: the target is one of several panels whose answer is unique;
    - `draw` (a panel index drawn uniformly, 0 to len(boxes) - 1, per image): where the layout lacks
      room and u panels but the target have an answer no other shows, the target is one of them at
      the rate any panel is (u in len(boxes)): when `draw` < u, the far panel shows the answer of the
      draw-th of them instead of the target's, so that panel's answer shows twice and the target's
      once. Then how often its answer shows tells nothing of which panel is the target (neither
      "pick a panel whose answer no other has" nor "pick one whose answer another has" beats chance).
    """
    values = list(dict.fromkeys(others))
    if not values:
        raise ValueError("shared answers need at least one answer besides the target's")
    near = neighbours(boxes)
    far = [i for i in nearest(boxes) if i not in near]
    n, m = len(near), len(values)
    plan: list[str | None] = [target] + [None] * (len(boxes) - 1)
    if m == 1:  # yes/no: every other panel says the other word
        near_values = values * n
    elif not far:
        if n <= m:
            near_values = values[:n]
        else:  # more neighbours than answers: the last answer once
            near_values = [values[j % (m - 1)] for j in range(n - 1)] + [values[-1]]
    else:
        rest = len(far) - 1
        u = max(1, min(n, rest, m if n <= m else m - 1))  # neighbours with an answer of their own
        if n - u == 1:  # one left over cannot share with another neighbour
            u = u - 1 if u > 1 else u + 1
        groups = max(1, min(m - u, (n - u) // 2))  # the rest share answers in twos or threes
        near_values = values[:u] + [values[u + j % groups] for j in range(n - u)]
    for i, v in zip(near, near_values):
        plan[i] = v
    if far:
        plan[far[-1]] = target
    rest = far[:-1]
    for k, i in enumerate(rest):
        count = {v: sum(p == v for p in plan) for v in values}
        once = [v for v in values if count[v] == 1]
        unused = [v for v in values if count[v] == 0]
        if once:
            plan[i] = once[0]
        elif unused and len(rest) - k >= 2:
            plan[i] = unused[0]
        else:
            plan[i] = min((v for v in values if count[v]), key=lambda v: (count[v], values.index(v)))
    if draw is not None and far:
        count = {v: sum(p == v for p in plan) for v in plan}
        unique = [i for i, v in enumerate(plan) if count[v] == 1]
        if draw < len(unique):
            plan[far[-1]] = plan[unique[draw]]
    return [str(p) for p in plan]


def _pick(answers: Sequence[str], answer: str, used: list[int], set_id: str, skip: int | None = None) -> int:
    """The first of `answers` (but index `skip`) that is `answer` and not yet used, else the one
    used least (only where a layout needs one answer more often than the pool holds it: never at
    hard and extreme, whose common questions have three other answers)."""
    fits = [j for j, a in enumerate(answers) if a == answer and j != skip]
    if not fits:
        raise ValueError(f"{set_id}: no panel shows {answer!r}")
    return min(fits, key=lambda j: (used.count(j), j))


def _shared_panels(task: ImageTask, image_set: ImageSet):
    """(panel bytes, answers, ids, replacement indices by box) of a layout filled from a shared
    pool: the target, twins at its neighbours, pool panels elsewhere (each used once)."""
    boxes = task.placed.boxes
    target = image_set.answers[0]
    draw = int(np.random.default_rng([task.seed, UNIQUE_DRAW]).integers(len(boxes)))
    plan = shared_answers(boxes, target, [a for a in image_set.answers[1:] if a != target], draw)
    near = set(neighbours(boxes))
    used: list[int] = []
    used_repl: list[int] = []
    panel_bytes, ids, repl = [image_set.panels[0]], [image_set.panel_ids[0]], []
    for i, answer in enumerate(plan[1:], start=1):
        if i in near:
            j = next(j for j, a in enumerate(image_set.answers) if a == answer and image_set.twins[j])
            panel_bytes.append(image_set.twins[j])
            ids.append(f"{image_set.panel_ids[j]}:twin")
        else:
            j = _pick(image_set.answers, answer, used, image_set.set_id, skip=0)
            used.append(j)
            panel_bytes.append(image_set.panels[j])
            ids.append(image_set.panel_ids[j])
        r = _pick(image_set.replacement_answers, answer, used_repl, image_set.set_id)
        used_repl.append(r)
        repl.append(r)
    return panel_bytes, plan, ids, repl


def _composite(config: str, base: Composition, image_set: ImageSet, answers: list[str], compress_level: int,
               replacement_order: Sequence[int] | None = None):
    """(PNG bytes, boxes, replaced panel ids or None) of one config's composite."""
    k = len(base.boxes)
    replacement_ids = None
    kwargs: dict = {}
    if get_augmentation(config).replaces_panels:
        if replacement_order is not None:  # a shared pool: the replacement showing each box's answer
            panels = [image_set.replacements[r] for r in replacement_order]
            repl_answers = [image_set.replacement_answers[r] for r in replacement_order]
            replacement_ids = [image_set.replacement_ids[r] for r in replacement_order]
        else:
            panels, repl_answers, replacement_ids = image_set.take_replacements(k)
        if not panels:
            raise ValueError(f"{image_set.set_id}: no replacement images for {config}")
        kwargs = {"replacements": [decode_panel(p) for p in panels], "replacement_answers": repl_answers}
    spec = for_config(config, question=image_set.question, answers=answers, **kwargs)(base)
    return encode_png(np.asarray(render(spec)), compress_level), spec.boxes, replacement_ids


def _choices(question: str) -> tuple[str, ...]:
    found = dict((m.group(1).lower(), m.group(2)) for m in _CHOICE_LINE.finditer(question))
    return tuple(found[l] for l in "abcd") if len(found) == 4 else ()


def _questions(task: ImageTask, image_set: ImageSet, answers, positions, caption: str | None, seed: int):
    if task.generated is None:
        one_breaker = task.difficulty.q1_forms == "one_breaker"
        absent = image_set.absent_answer
        return questions(
            image_set.question,
            answers,
            0,
            positions,
            q1_yes=task.q1 in ("yes", "yes_all"),
            q3_letter=task.q3_letter,
            rng=np.random.default_rng(seed),
            caption=caption,
            absent_answer=absent if task.q1 == "no_any" or (task.q1 == "yes_all" and one_breaker) else None,
            q1_other_than=(one_breaker and task.q1 in ("yes_all", "no_all")
                           and (task.q1 == "no_all" or absent is not None)),
            q3_order=nearest(task.placed.boxes) if task.difficulty.q3_choices == "neighbours" else None,
            shared=image_set.shared,
        )
    g = task.generated
    second = Question("q2", g["Q2"], g["A2"])
    if caption is not None:  # the model named the target by position; captions_referenced needs its number
        second = q2(image_set.question, answers[0], caption=caption)
    return Question("q1", g["Q1"], g["A1"]), second, Question("q3", g["Q3"], g["A3"], _choices(g["Q3"]))


def image_rows(task: ImageTask, image_set: ImageSet) -> dict[str, list[dict]]:
    """Rows (three per config, Q1-Q3) of the image that fills `task.layout` from `image_set` (the
    target's box first: `ImageTask.placed`)."""
    layout = task.placed
    k = layout.num_panels
    replacement_order = None
    if image_set.shared:  # target_answer "shared": which answer each box shows decides its panel
        panel_bytes, answers, ids, replacement_order = _shared_panels(task, image_set)
    else:
        panel_bytes, answers, ids = image_set.take(k)
        twins = image_set.take_twins(k) if task.difficulty.neighbours == "twins" else []
        for i in neighbours(layout.boxes) if twins else ():  # next to the target: its panel, but for the answer
            panel_bytes[i], ids[i] = twins[i], f"{ids[i]}:twin"
    positions = describe_positions(layout.boxes, task.difficulty.position_words)
    seed = task.seed
    base = Composition.of(layout, [decode_panel(p) for p in panel_bytes])
    composites: dict[str, tuple] = {}
    out: dict[str, list[dict]] = {}
    for config in task.configs:
        augmentation = get_augmentation(config)
        key = augmentation.composite
        if key not in composites:
            composites[key] = _composite(key, base, image_set, answers, task.compress_level, replacement_order)
        png, boxes, replaced = composites[key]
        sub_ids = ids if replaced is None else [ids[0]] + list(replaced)
        caption = str(caption_numbers(boxes)[0]) if augmentation.caption_in_question else None
        subfigures = [
            {"bbox": [int(v) for v in box], "position": pos, "source_id": sid}
            for box, pos, sid in zip(boxes, positions, sub_ids)
        ]
        out[config] = [
            {
                "id": row_id(config, task.source, task.root_seed, layout.layout_id, q.question_type, task.variant),
                "image": {"bytes": png, "path": None},
                "question_type": q.question_type,
                "question": q.question,
                "answer": q.answer,
                "choices": list(q.choices),
                "subset": "synthetic",
                "source": image_set.source,
                "augmentation": config,
                "layout_id": layout.layout_id,
                "layout_style": layout.style,
                "num_subfigures": k,
                "subfigures": subfigures,
                "target_index": 0,
                "seed": seed,
            }
            for q in _questions(task, image_set, answers, positions, caption, seed)
        ]
    return out


def panel_answers(task: ImageTask, image_set: ImageSet) -> tuple[list[str], int]:
    """Each layout box's answer to the common question (the target's first) and how many panels
    but the target repeat its scene (a twin or the near-duplicate group), as `image_rows` fills it."""
    k = task.layout.num_panels
    if image_set.shared:
        _, answers, ids, _ = _shared_panels(task, image_set)
        index = {pid: n for n, pid in enumerate(image_set.panel_ids)}
        dups = sum(pid.endswith(":twin") or bool(image_set.near_duplicate[index[pid]]) for pid in ids[1:])
        return answers, dups
    return image_set.take(k)[1], image_set.near_duplicates(k)


def descriptors(image_set: ImageSet, rows: Sequence[dict], task: ImageTask | None = None) -> list[dict]:
    """How hard each row's target is to read, without a model: the answer object's size on the
    canvas (its em size times the target box's scale; None for imported sets), the objects in
    the target panel, and how many other panels repeat the target's scene (near duplicates: the
    subfigures right after the target, 1..n, which `shortcuts.odd_one_out` compares; at
    neighbours "twins", the twins and the group wherever they stand). At neighbours "twins"
    (given the task), also each panel's answer to the common question (`panel_answers`, in
    subfigure order; the replacements' at low_similarity), which `shortcuts.answer_odd_one_out` reads."""
    out = []
    twins = task is not None and task.difficulty.neighbours == "twins"
    answers, near = panel_answers(task, image_set) if twins else (None, None)
    for row in rows:
        w, h = row["subfigures"][0]["bbox"][2:]
        k = row["num_subfigures"]
        scaled = round(image_set.detail_size * max(w, h) / image_set.crop_side) if image_set.crop_side else None
        replaced = get_augmentation(row["augmentation"]).replaces_panels
        dups = 0 if replaced else near if near is not None else image_set.near_duplicates(k)
        d = {"id": row["id"], "source": row["source"], "detail_px": scaled, "objects": image_set.objects or None,
             "near_duplicates": dups}
        if answers is not None:
            d["panel_answers"] = (answers if not replaced or image_set.shared
                                  else answers[:1] + image_set.take_replacements(k)[1])
        out.append(d)
    return out


def shard_rows(tasks: Sequence[ImageTask], sets: Mapping[tuple[str, int], ImageSet]) -> Iterator[tuple[dict, dict]]:
    """(rows, descriptors) of one shard's images, image by image, in order, both keyed by
    config. Procedural image sets are made here (pure in source, index, root seed and
    difficulty), so only imported sets travel in `sets`, keyed by (source, set index)."""
    made = dict(sets)
    for task in tasks:
        key = (task.source, task.set_index) + ((task.redo,) if task.redo else ())
        if key not in made:
            made[key] = procedural_set(task.source, task.set_index, task.root_seed, task.redo, task.difficulty)
        rows = image_rows(task, made[key])
        yield rows, {config: descriptors(made[key], config_rows, task) for config, config_rows in rows.items()}
