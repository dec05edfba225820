"""What every DiCoBench row carries besides its task's own content."""

from __future__ import annotations

from benchkit import __version__
from dicobench.schema import QUESTIONS, track_of


def cue_dicts(cues) -> list[dict]:
    return [{"image": c.image, "bbox": [int(v) for v in c.bbox], "label": c.label} for c in cues]


def assemble(task: str, seed: int, png_a: bytes, png_b: bytes, options: list[str], letter: str,
             cues: list[dict], changed_area: float, made_by: str) -> dict:
    """A schema row (without its id); `made_by` says which edits made it, for `generator`."""
    track = track_of(task)
    return {
        "track": track,
        "task": task,
        "image_a": {"bytes": png_a, "path": None},
        "image_b": {"bytes": png_b, "path": None},
        "question": QUESTIONS[track],
        "options": options,
        "answer": letter,
        "cues": cues,
        "changed_area": changed_area,
        "source": f"procedural:{seed}",
        "seed": seed,
        "generator": f"dicobench {__version__}; procedural scene engine; {made_by}",
    }
