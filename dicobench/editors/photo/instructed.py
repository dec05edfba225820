"""Instructed edits by a diffusion inpainting editor, the paper's recipe for photos.

An instruction for the region (one of the LLM's six, picked by the seed, or a template whose
claim can be checked on the pixels), the editor run on the region's mask, then the same pixel
checks as every edit, and the VLM's verdict where one was asked for. An inpainting editor
only changes pixels under its mask, so it cannot carry an object elsewhere: moves stay
classical (`dicobench.editors.photo.classical.Move`).
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from dicobench.checks import Rejected
from dicobench.editors.models import Backends
from dicobench.editors.photo.classical import Mask, PixelEdit, changed_box, crop, grow
from dicobench.kit.scene.geometry import Box
from dicobench.tasks.registry import Task, get_task

TARGET_COLOURS = ("red", "blue", "green", "yellow", "purple", "orange")  # names `photo_difference.colour_words` gives


@dataclass(frozen=True)
class Plan:
    instruction: str  # for the editor
    option: str  # the MCQ option stating the difference
    colour: str | None = None  # the colour the edit must show, checked after editing


def recolour_plan(rng: np.random.Generator, subject: str, colour: str) -> Plan:
    target = str(rng.choice([c for c in TARGET_COLOURS if c not in colour.split()]))
    return Plan(f"Make the {subject} {target}, keeping its shape and texture.", f"The {subject} turned {target}.",
                target)


def removal_plan(rng: np.random.Generator, subject: str, colour: str) -> Plan:
    return Plan(f"Remove the {subject} and fill in the background behind it.", f"The {subject} disappeared.")


def trace_plan(rng: np.random.Generator, subject: str, colour: str) -> Plan:
    kind = str(rng.choice(["crack", "stain"]))
    return Plan(f"Add a small visible {kind} on the {subject}.",
                f"A {'dark ' * (kind == 'stain')}{kind} appeared on the {subject}.")


def template_plan(rng: np.random.Generator, task: str, subject: str, colour: str) -> Plan:
    """The task's template plan (`dicobench.tasks.registry.ModelEdit.plan`)."""
    model_edit = get_task(task).model_edit
    if model_edit is None:
        raise ValueError(f"no model edit for {task}")
    return model_edit.plan(rng, subject, colour)


def plan(rng: np.random.Generator, task: Task, subject: str, colour: str, region: np.ndarray,
         backends: Backends) -> Plan:
    """The template plan, or one of the LLM's six instructions for the region (picked by the seed)."""
    if backends.writer is None:
        return template_plan(rng, task.name, subject, colour)
    from dicobench.editors.instructions import InstructionError

    try:
        written = backends.writer.generate(region, subject, task.name)
    except InstructionError as exc:
        raise Rejected("instructions_failed", str(exc)) from None
    chosen = written[int(rng.integers(len(written)))]
    return Plan(chosen.instruction, chosen.option)


def edit_mask(mask: Mask, shape: tuple[int, ...], grow_by: int = 4) -> np.ndarray:
    """The editor's hard mask: the object, grown a little so that its outline is repainted too."""
    full = np.zeros(shape[:2], bool)
    x, y, w, h = mask.window
    full[y : y + h, x : x + w] = mask.hard()
    return cv2.dilate(full.astype(np.uint8), np.ones((2 * grow_by + 1,) * 2, np.uint8)) > 0


def model_edit(rng: np.random.Generator, pixels: np.ndarray, mask: Mask, chosen: Plan,
               backends: Backends) -> PixelEdit:
    """Run the editor on the mask with the plan's instruction (its seed drawn from `rng`)."""
    hard = edit_mask(mask, pixels.shape)
    out = backends.editor.edit(pixels, hard, chosen.instruction, seed=int(rng.integers(2**31)))
    return PixelEdit(out, changed_box(pixels, out))


def context(pixels: np.ndarray, box: Box) -> np.ndarray:
    """The box with as much again around it: what the instruction writer and the verifier see."""
    h, w = pixels.shape[:2]
    return crop(pixels, grow(box, max(box[2], box[3]) // 2, w, h))


def verify(before: np.ndarray, after: np.ndarray, box: Box, sentence: str, backends: Backends) -> None:
    """Reject an edit the VLM says does not match its sentence; an unjudged one is not used
    either (an unverified edit must not pass as verified)."""
    if backends.verifier is None:
        return
    verdict = backends.verifier.verify(context(before, box), context(after, box), sentence)
    if verdict is None:
        raise Rejected("verify_unjudged", sentence)
    if not verdict:
        raise Rejected("verify_mismatch", sentence)


def blends_references(backends: Backends) -> bool:
    """Whether the editor can blend a cut-out in from a reference image (FLUX.2 Klein's
    multi-image editing): only then may commonality inserts go through it, since an editor
    without the reference would paint another object."""
    return getattr(backends.editor, "takes_reference", False)


def reference_blend(rng: np.random.Generator, backends: Backends, pasted: np.ndarray, placed: Mask,
                    reference: np.ndarray, name: str) -> np.ndarray:
    """`pasted` (a cut-out already alpha-blended in under `placed`) re-rendered by the editor
    around the cut-out, with the object's own crop as the reference, so that light and edges
    match the new photo while the object stays itself (the paper's instance blending)."""
    instruction = f"Blend the {name} from the reference image naturally into the scene, keeping its exact appearance."
    return backends.editor.edit(pasted, edit_mask(placed, pasted.shape), instruction, seed=int(rng.integers(2**31)),
                                image_reference=[reference])
