"""Image sets from the paper's real sources, read with `datasets` (a Hub id, or local Parquet).

- MagicBrush (img_id, turn_index, source_img, mask_img, instruction, target_img): the
  paper asks a template question about the edited component. Here an instruction that
  makes, adds or replaces something ("make the car red", "add a hat to the dog") becomes a
  yes/no question ("Is the car red?", "Is there a hat in the image?") whose answer is yes
  for the turn's result and no for the images before that edit (the original and earlier
  turns); other instructions are skipped. low_similarity uses other photos' originals,
  assumed to answer no.
- VQAv2 (question_type, multiple_choice_answer, answers, image_id, answer_type,
  question_id, question, image): images that share a question text. The target is the
  image with the rarest confident answer; the others are images with a different answer.
  low_similarity uses the group's remaining images (VQAv2 panels already differ).

Both read the data twice, streaming: once without images to choose the sets, once to
fetch only the chosen images, so a large split never sits in memory.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from pathlib import Path
from typing import Iterable, Iterator

import datasets
from PIL import Image

from dicobench.kit.errors import UserError, first_line
from dicobench.kit.io.imageio import decode
from multipanelvqa.sources.image_sets import MAX_PANELS, ImageSet, encode_panel

DEFAULT_DATA = {"magicbrush": ("osunlp/MagicBrush", "dev"), "vqav2": ("HuggingFaceM4/VQAv2", "validation")}
ADAPTERS = tuple(DEFAULT_DATA)
MAX_QUESTION_CHARS = 80  # the question is written above the panels in text_hint
MAX_ANSWER_CHARS = 20  # ... and each answer on its panel
MIN_AGREEMENT = 3  # VQAv2 annotators (of 10) giving the multiple-choice answer: full VQA credit


def open_rows(data: str, split: str, columns: list[str]) -> Iterable[dict]:
    """Streamed rows (only `columns`, images left encoded) of a Parquet file or folder, or a Hub dataset."""
    path = Path(data)
    try:
        if path.exists():
            files = [path] if path.is_file() else (sorted(path.rglob(f"{split}*.parquet"))
                                                   or sorted(path.rglob("*.parquet")))
            if not files:
                raise UserError(f"no Parquet files in {data}")
            ds = datasets.load_dataset("parquet", data_files=[str(f) for f in files], split="train", streaming=True)
        else:
            ds = datasets.load_dataset(data, split=split, streaming=True)
        missing = [c for c in columns if ds.column_names is not None and c not in ds.column_names]
        if missing:
            raise UserError(f"{data} has no column(s) {', '.join(missing)}; columns: {', '.join(ds.column_names)}")
        ds = ds.select_columns(columns)
        for name, feature in (ds.features or {}).items():
            if isinstance(feature, datasets.Image):
                ds = ds.cast_column(name, datasets.Image(decode=False))
        return ds
    except UserError:
        raise
    except Exception as exc:  # datasets raises many types for missing or malformed data
        raise UserError(f"cannot read {data} (split {split}): {type(exc).__name__}: {first_line(exc)}") from None


def _image(value, what: str) -> Image.Image:
    if isinstance(value, Image.Image):
        return value
    data = value.get("bytes") if isinstance(value, dict) else value
    if not isinstance(data, (bytes, bytearray)):
        raise UserError(f"{what}: no image bytes")
    return Image.fromarray(decode(bytes(data), what))


def _fetch(rows: Iterable[dict], key, wanted: dict, columns: list[str], data: str) -> dict:
    """{(key, column): panel PNG} for the keys in `wanted`, stopping once all are found."""
    out = {}
    for row in rows:
        k = key(row)
        if k in wanted and (k, columns[0]) not in out:
            for c in columns:
                out[(k, c)] = encode_panel(_image(row[c], f"{data} {k} {c}"))
            if len(out) == len(wanted) * len(columns):
                break
    return out


def _limited(rows: Iterable[dict], scan: int) -> Iterator[dict]:
    for i, row in enumerate(rows):
        if i >= scan:
            return
        yield row


# ---- MagicBrush -------------------------------------------------------------------------

_COLOURS = "red|orange|yellow|green|blue|purple|pink|brown|black|white|gray|grey|silver|gold"
_TEMPLATES = (
    # "make the car red", "turn the sky purple", "the wall should be blue"
    (re.compile(r"^(?:please )?(?:make|turn|paint|color|colour|change|let) (the [\w' -]+?) "
                rf"(?:to |into )?(?:be )?({_COLOURS})$"), "Is {0} {1}?"),
    (re.compile(rf"^(?:what if |let )?(the [\w' -]+?) (?:is|are|was|were|should be|be) ({_COLOURS})$"), "Is {0} {1}?"),
    # "replace the cat with a dog", "change the bus into a train"
    (re.compile(r"^(?:please )?(?:replace|change|swap|turn) the [\w' -]+? (?:with|into|to|for) (an? [\w' -]+)$"),
     "Is there {0} in the image?"),
    # "add a hat to the dog", "put a boat in the water"
    (re.compile(r"^(?:please )?(?:add|put|place|draw|insert|include) (an? [\w'-]+(?: [\w'-]+)?)"
                r"(?: (?:on|in|to|next to|onto|into|near|under|above|behind|at|over|beside)\b.*)?$"),
     "Is there {0} in the image?"),
)


def edit_question(instruction: str) -> str | None:
    """The yes/no question an edit makes true, or None when no template fits."""
    text = re.sub(r"\s+", " ", instruction.strip().lower()).rstrip(".!")
    for pattern, template in _TEMPLATES:
        m = pattern.match(text)
        if m:
            question = template.format(*m.groups())
            return question[0].upper() + question[1:] if len(question) <= MAX_QUESTION_CHARS else None
    return None


def magicbrush_sets(data: str = DEFAULT_DATA["magicbrush"][0], split: str = DEFAULT_DATA["magicbrush"][1], *,
                    n: int = 10, scan: int = 5000) -> list[ImageSet]:
    """Up to n yes/no sets, one per photo (its last edit a template fits), in the data's order."""
    turns: dict[str, dict[int, str]] = defaultdict(dict)
    for row in _limited(open_rows(data, split, ["img_id", "turn_index", "instruction"]), scan):
        turns[str(row["img_id"])][int(row["turn_index"])] = row["instruction"]
    chosen = []  # (img_id, turn, question)
    for img_id, by_turn in turns.items():
        if 1 not in by_turn:
            continue
        for t in sorted(by_turn, reverse=True):
            question = edit_question(by_turn[t])
            if question and all(u in by_turn for u in range(1, t + 1)):
                chosen.append((img_id, t, question))
                break
    if not chosen:
        raise UserError(f"no MagicBrush edit in {data} has an instruction the question templates fit")
    sets_meta = chosen[:n]
    wanted = {(i, u) for i, t, _ in sets_meta for u in range(1, t + 1)} | {(i, 1) for i, _, _ in chosen}
    rows = open_rows(data, split, ["img_id", "turn_index", "source_img", "target_img"])
    images = _fetch(_limited(rows, scan), lambda r: (str(r["img_id"]), int(r["turn_index"])), wanted,
                    ["source_img", "target_img"], data)
    originals = [(i, images[((i, 1), "source_img")]) for i, _, _ in chosen]
    out = []
    for img_id, t, question in sets_meta:
        before = [images[((img_id, u), "source_img")] for u in range(1, t + 1)]
        others = [(i, png) for i, png in originals if i != img_id][: MAX_PANELS - 1]
        out.append(
            ImageSet(
                source="magicbrush",
                set_id=f"magicbrush:{img_id}:turn{t}",
                question=question,
                panels=(images[((img_id, t), "target_img")],) + tuple(before),
                answers=("yes",) + ("no",) * len(before),
                panel_ids=(f"magicbrush:{img_id}:turn{t}:target",)
                          + tuple(f"magicbrush:{img_id}:turn{u}:source" for u in range(1, t + 1)),
                replacements=tuple(png for _, png in others),
                replacement_answers=("no",) * len(others),
                replacement_ids=tuple(f"magicbrush:{i}:turn1:source" for i, _ in others),
            )
        )
    return out


# ---- VQAv2 ------------------------------------------------------------------------------

_VQA_COLUMNS = ["question_id", "image_id", "question", "multiple_choice_answer", "answers", "answer_type"]


def _norm(text: str) -> str:
    return re.sub(r"\s+", " ", str(text).strip().lower())


def vqav2_sets(data: str = DEFAULT_DATA["vqav2"][0], split: str = DEFAULT_DATA["vqav2"][1], *, n: int = 10,
               scan: int = 20000) -> list[ImageSet]:
    """Up to n sets of images sharing a question, largest groups first."""
    groups: dict[str, list[dict]] = defaultdict(list)
    type_answers: dict[str, Counter] = defaultdict(Counter)
    for row in _limited(open_rows(data, split, _VQA_COLUMNS), scan):
        answer = _norm(row["multiple_choice_answer"])
        question = str(row["question"]).strip()
        agree = sum(_norm(a["answer"]) == answer for a in row["answers"])
        type_answers[row["answer_type"]][answer] += 1
        if agree >= MIN_AGREEMENT and 0 < len(answer) <= MAX_ANSWER_CHARS and len(question) <= MAX_QUESTION_CHARS:
            group = groups[_norm(question)]
            if all(r["image_id"] != row["image_id"] for r in group):
                group.append({**row, "question": question, "answer": answer})
    plans = []
    for key, rows in groups.items():
        counts = Counter(r["answer"] for r in rows)
        target = min(rows, key=lambda r: (counts[r["answer"]], r["question_id"]))
        others = sorted((r for r in rows if r["answer"] != target["answer"]), key=lambda r: r["question_id"])
        if others:
            plans.append((target, others))
    plans.sort(key=lambda p: (-len(p[1]), _norm(p[0]["question"])))
    plans = plans[:n]
    if not plans:
        raise UserError(f"no question in the first {scan} rows of {data} is shared by images with different "
                        "confident answers")
    wanted = {r["question_id"] for t, o in plans for r in [t] + o[: 2 * MAX_PANELS - 1]}
    rows = open_rows(data, split, ["question_id", "image"])
    images = _fetch(_limited(rows, scan), lambda r: r["question_id"], wanted, ["image"], data)
    out = []
    for target, others in plans:
        panels, spare = others[: MAX_PANELS - 1], (others[MAX_PANELS - 1 : 2 * MAX_PANELS - 1]
                                                   or others[: MAX_PANELS - 1])
        present = {target["answer"]} | {r["answer"] for r in others}
        absent = None
        if target["answer_type"] != "yes/no":
            absent = next((a for a, _ in type_answers[target["answer_type"]].most_common()
                           if a not in present and len(a) <= MAX_ANSWER_CHARS), None)
        png = lambda r: images[(r["question_id"], "image")]  # noqa: E731
        ident = lambda r: f"vqav2:{r['image_id']}:{r['question_id']}"  # noqa: E731
        out.append(
            ImageSet(
                source="vqav2",
                set_id=f"vqav2:{target['question_id']}",
                question=target["question"],
                panels=tuple(png(r) for r in [target] + panels),
                answers=tuple(r["answer"] for r in [target] + panels),
                panel_ids=tuple(ident(r) for r in [target] + panels),
                replacements=tuple(png(r) for r in spare),
                replacement_answers=tuple(r["answer"] for r in spare),
                replacement_ids=tuple(ident(r) for r in spare),
                absent_answer=absent,
            )
        )
    return out


def load_sets(source: str, data: str | None, split: str | None, n: int) -> list[ImageSet]:
    default_data, default_split = DEFAULT_DATA[source]
    make = {"magicbrush": magicbrush_sets, "vqav2": vqav2_sets}[source]
    return make(data or default_data, split or default_split, n=n)
