"""Open-vocabulary models that annotate photos: a zero-shot detector through the `transformers`
pipeline (OWLv2, OWL-ViT, Grounding DINO) and a promptable segmenter (SAM) that turns its boxes
into masks. Each is named `transformers:<model id or folder>`, loaded on first use (nothing heavy is
imported before), on the GPU when there is one.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from dicobench.kit.errors import UserError
from dicobench.kit.scene.geometry import iou_xyxy

PREFIX = "transformers:"


@dataclass(frozen=True)
class Detection:
    label: str
    score: float
    box: tuple[float, float, float, float]  # x0, y0, x1, y1 in pixels


def model_id(flag: str, spec: str) -> str:
    """The model of a `transformers:<id>` spec; a UserError for anything else."""
    if not spec.startswith(PREFIX) or spec == PREFIX:
        raise UserError(f"{flag} {spec!r}: expected transformers:<model id or folder>")
    return spec[len(PREFIX):]


def device() -> str:
    import torch

    return "cuda" if torch.cuda.is_available() else "cpu"


class Detector:
    """`transformers:<id>` through the zero-shot-object-detection pipeline."""

    def __init__(self, spec: str):
        from transformers import pipeline

        try:
            self.pipe = pipeline("zero-shot-object-detection", model=model_id("--detector", spec), device=device())
        except UserError:
            raise
        except Exception as exc:  # the Hub, files and configs raise their own types
            raise UserError(f"--detector {spec}: cannot load ({type(exc).__name__}: {exc})") from None

    def __call__(self, pixels: np.ndarray, labels: list[str], threshold: float) -> list[Detection]:
        from PIL import Image

        found = self.pipe(Image.fromarray(pixels), candidate_labels=labels, threshold=threshold)
        return [Detection(d["label"], float(d["score"]),
                          (d["box"]["xmin"], d["box"]["ymin"], d["box"]["xmax"], d["box"]["ymax"]))
                for d in found]


class Segmenter:
    """`transformers:<id>` of a SAM model: one mask per box prompt."""

    def __init__(self, spec: str):
        from transformers import SamModel, SamProcessor

        name = model_id("--segmenter", spec)
        try:
            self.processor = SamProcessor.from_pretrained(name)
            self.model = SamModel.from_pretrained(name).to(device()).eval()
        except Exception as exc:
            raise UserError(f"--segmenter {spec}: cannot load ({type(exc).__name__}: {exc})") from None

    def __call__(self, pixels: np.ndarray, boxes: list[tuple[float, float, float, float]]) -> list[np.ndarray]:
        """A full-size bool mask per box (x0, y0, x1, y1), cut to its box: SAM's best of one."""
        import torch
        from PIL import Image

        if not boxes:
            return []
        inputs = self.processor(images=Image.fromarray(pixels), input_boxes=[[list(map(float, b)) for b in boxes]],
                                return_tensors="pt").to(self.model.device)
        with torch.inference_mode():
            out = self.model(**inputs, multimask_output=False)
        masks = self.processor.post_process_masks(out.pred_masks.cpu(), inputs["original_sizes"].cpu(),
                                                  inputs["reshaped_input_sizes"].cpu())[0]
        result = []
        for mask, (x0, y0, x1, y1) in zip(masks[:, 0].numpy().astype(bool), boxes):
            inside = np.zeros_like(mask)
            inside[int(y0) : int(np.ceil(y1)), int(x0) : int(np.ceil(x1))] = True
            result.append(mask & inside)
        return result


def nms(detections: list[Detection], iou: float) -> list[Detection]:
    """Non-maximum suppression per label: of boxes of one label overlapping by more than `iou`,
    the highest-scoring stays (ties by box, so the result never depends on input order)."""
    kept: list[Detection] = []
    for det in sorted(detections, key=lambda d: (-d.score, d.label, d.box)):
        if all(k.label != det.label or iou_xyxy(k.box, det.box) <= iou for k in kept):
            kept.append(det)
    return kept
