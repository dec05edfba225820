"""The `real_world` config from a folder of real multipanel images and a JSONL of their questions.

Each JSONL line is one question: {"image": file in the folder, "question_type": q1|q2|q3,
"question", "answer", and optionally "choices" (Q3's four texts), "subfigures" ([{bbox
[x, y, w, h], position}]) and "target_index"}. Q1 answers must be yes/no and Q3 answers a
letter a-d. Image bytes are stored as given (validated by decoding); an image's rows share
one Parquet row group, so its bytes are stored once when every image has as many questions.
Layout fields that a real image does not have are -1.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from dicobench.kit.errors import UserError
from dicobench.kit.io.imageio import decode
from dicobench.kit.io.jsonl import read_lines
from dicobench.kit.io.shards import ShardWriter, shard_name, write_json_atomic
from multipanelvqa.card import write_card
from multipanelvqa.schema import CHOICE_LETTERS, MANIFEST_DIR, QUESTION_TYPES, features

CONFIG = "real_world"
QUESTIONS_FILE = "questions.jsonl"


def _check(item, where: str) -> dict:
    if not isinstance(item, dict):
        raise UserError(f"{where}: expected a JSON object")
    for key in ("image", "question_type", "question", "answer"):
        if not isinstance(item.get(key), str) or not item[key].strip():
            raise UserError(f"{where}: {key!r} must be a non-empty string")
    qtype, answer = item["question_type"], item["answer"].strip()
    if qtype not in QUESTION_TYPES:
        raise UserError(f"{where}: question_type must be one of {', '.join(QUESTION_TYPES)}, got {qtype!r}")
    if qtype == "q1" and answer.lower() not in ("yes", "no"):
        raise UserError(f"{where}: a q1 answer must be yes or no, got {answer!r}")
    if qtype == "q3" and answer.lower() not in CHOICE_LETTERS:
        raise UserError(f"{where}: a q3 answer must be one of a-d, got {answer!r}")
    subfigures = item.get("subfigures", [])
    try:
        subfigures = [
            {"bbox": [int(v) for v in s["bbox"]], "position": str(s.get("position", "")),
             "source_id": str(s.get("source_id", ""))}
            for s in subfigures
        ]
        if any(len(s["bbox"]) != 4 for s in subfigures):
            raise ValueError
    except (TypeError, KeyError, ValueError):
        raise UserError(f"{where}: subfigures must be a list of {{bbox: [x, y, w, h], position}}") from None
    choices = item.get("choices", [])
    if not isinstance(choices, list) or not all(isinstance(c, str) for c in choices):
        raise UserError(f"{where}: choices must be a list of strings")
    return {**item, "answer": answer.lower() if qtype in ("q1", "q3") else answer, "subfigures": subfigures,
            "choices": choices}


def read_questions(folder: Path, questions: Path) -> dict[str, list[dict]]:
    """Questions grouped by image file, in first-seen order; a UserError names the bad line."""
    if not questions.is_file():
        raise UserError(f"no questions file {questions}")
    by_image: dict[str, list[dict]] = {}
    for n, line in enumerate(read_lines(questions), start=1):
        if not line.strip():
            continue
        where = f"{questions.name}:{n}"
        try:
            item = _check(json.loads(line), where)
        except json.JSONDecodeError as exc:
            raise UserError(f"{where}: not JSON ({exc.msg})") from None
        by_image.setdefault(item["image"], []).append(item)
    if not by_image:
        raise UserError(f"{questions} holds no questions")
    for image in by_image:
        path = folder / image
        if not path.is_file() or folder.resolve() not in path.resolve().parents:
            raise UserError(f"image {image!r} is not a file in {folder}")
    return by_image


def import_real_world(folder, out, questions=None) -> Path:
    """Write `<out>/real_world/` from `folder` (images + questions.jsonl) and refresh the card."""
    folder, out = Path(folder), Path(out)
    if not folder.is_dir():
        raise UserError(f"{folder} is not a folder")
    by_image = read_questions(folder, Path(questions) if questions else folder / QUESTIONS_FILE)
    if out.exists() and any(not _ours(p) for p in out.iterdir()) and not (out / MANIFEST_DIR).is_dir():
        raise UserError(f"{out} is not empty and holds no MultipanelVQA build")
    counts = {len(items) for items in by_image.values()}
    path = out / CONFIG / shard_name("test", 0, 1)
    made = [d for d in (out, out / CONFIG, out / CONFIG / ".stats") if not d.exists()]
    writer = ShardWriter(path, features(), row_group_size=counts.pop() if len(counts) == 1 else 1)
    stats = Counter()
    try:
        for image, items in by_image.items():
            data = (folder / image).read_bytes()
            decode(data, f"{folder / image}")
            for k, item in enumerate(items):
                writer.write(_row(image, k, item, data))
                stats[(item["question_type"], item["answer"])] += 1
    except BaseException:
        writer.abort()
        _remove_empty(made)
        raise
    for old in (out / CONFIG).glob("test-*.parquet"):  # an earlier import's shards of another count
        if old != path:
            old.unlink()
    rows = sum(stats.values())
    writer.close(sidecar={
        "config": CONFIG,
        "rows": rows,
        "question_types": dict(Counter(t for t, _ in stats.elements())),
        "q1_answers": {a: c for (t, a), c in stats.items() if t == "q1"},
        "q3_answers": {a: c for (t, a), c in stats.items() if t == "q3"},
    })
    write_json_atomic(out / MANIFEST_DIR / f"{CONFIG}.json",
                      {"folder": str(folder), "images": len(by_image), "rows": rows})
    write_card(out)
    return out


def _ours(path: Path) -> bool:
    """What an import may find in a folder it writes to that holds no build: the manifest folder,
    and the `real_world` folder an import stopped before its first shard (killed) left behind."""
    return path.name == MANIFEST_DIR or (path.name == CONFIG and path.is_dir()
                                         and not any(path.glob("test-*.parquet")))


def _remove_empty(made: list[Path]) -> None:
    """The folders a failed import made, deepest first, those it left empty."""
    for folder in reversed(made):
        try:
            folder.rmdir()
        except OSError:
            pass


def _row(image: str, k: int, item: dict, data: bytes) -> dict:
    subfigures = item["subfigures"]
    return {
        "id": f"{CONFIG}-{Path(image).with_suffix('').as_posix().replace('/', '_')}-{k}-{item['question_type']}",
        "image": {"bytes": data, "path": None},
        "question_type": item["question_type"],
        "question": item["question"],
        "answer": item["answer"],
        "choices": item["choices"],
        "subset": CONFIG,
        "source": "imported",
        "augmentation": CONFIG,
        "layout_id": -1,
        "layout_style": -1,
        "num_subfigures": len(subfigures) if subfigures else int(item.get("num_subfigures", -1)),
        "subfigures": subfigures,
        "target_index": int(item.get("target_index", -1)),
        "seed": -1,
    }
