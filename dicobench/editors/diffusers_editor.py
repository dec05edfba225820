"""Diffusion inpainting editors behind one interface: `edit(image, mask, instruction) -> image`.

Inpainting pipelines work near one native size (SD at 512, FLUX near 1 megapixel) while
DiCoBench photos are near 2K. So, as in the paper, the region around the mask with a 2x
context margin is cut out, resized to the pipeline's size, edited, resized back and blended
in with a feathered mask: the rest of the photo stays bit-identical. One class per pipeline
family says its native size, the multiple its sides must have and its default guidance.
"""

from __future__ import annotations

import math
from typing import ClassVar

import numpy as np
from PIL import Image

from benchkit.errors import UserError
from benchkit.render import Box
from dicobench.editors.classical import crop, soft


def context_box(mask_box: Box, margin: float, width: int, height: int) -> Box:
    """A box `margin` times the mask box's size, centred on it, shifted (not cut) to fit the image."""
    x, y, w, h = mask_box
    cw, ch = min(width, math.ceil(w * margin)), min(height, math.ceil(h * margin))
    cx = min(max(x + w // 2 - cw // 2, 0), width - cw)
    cy = min(max(y + h // 2 - ch // 2, 0), height - ch)
    return (cx, cy, cw, ch)


def work_size(box: Box, long_side: int, multiple: int) -> tuple[int, int]:
    """The pipeline's (width, height) for a crop: long side `long_side`, sides rounded to `multiple`."""
    scale = long_side / max(box[2], box[3])
    return tuple(max(multiple, round(v * scale / multiple) * multiple) for v in box[2:])


def auto_device_dtype():
    import torch

    if torch.cuda.is_available():
        return "cuda", torch.bfloat16 if torch.cuda.is_bf16_supported() else torch.float16
    if torch.backends.mps.is_available():
        return "mps", torch.float16
    return "cpu", torch.float32


class InpaintEditor:
    """Crop-edit-resize-blend around a mask with any diffusers inpainting pipeline."""

    pipeline_class: ClassVar[str]
    native: ClassVar[int]  # long side the pipeline edits at
    multiple: ClassVar[int]  # its width and height must be multiples of this
    guidance: ClassVar[float]

    def __init__(self, pipeline, *, size: int | None = None, margin: float = 2.0, steps: int = 28,
                 guidance: float | None = None, feather: float = 4.0, seed: int = 0):
        self.pipeline = pipeline
        self.size = size or self.native
        self.margin, self.steps, self.feather, self.seed = margin, steps, feather, seed
        self.guidance_scale = self.guidance if guidance is None else guidance

    @classmethod
    def from_pretrained(cls, model_id: str, device: str | None = None, dtype=None, **kwargs) -> "InpaintEditor":
        import diffusers

        auto_device, auto_dtype = auto_device_dtype()
        pipeline = getattr(diffusers, cls.pipeline_class).from_pretrained(model_id, dtype=dtype or auto_dtype)
        return cls(pipeline.to(device or auto_device), **kwargs)

    def edit(self, image: np.ndarray, mask: np.ndarray, instruction: str, **extra) -> np.ndarray:
        """`image` (HxWx3 uint8) edited where `mask` (HxW bool) is set, following `instruction`."""
        import torch

        ys, xs = np.nonzero(mask)
        if len(xs) == 0:
            raise ValueError("empty mask")
        height, width = image.shape[:2]
        mask_box = (int(xs.min()), int(ys.min()), int(xs.max() - xs.min() + 1), int(ys.max() - ys.min() + 1))
        box = context_box(mask_box, self.margin, width, height)
        size = work_size(box, self.size, self.multiple)
        region = Image.fromarray(np.ascontiguousarray(crop(image, box))).resize(size, Image.Resampling.LANCZOS)
        region_mask = Image.fromarray(crop(mask, box).astype(np.uint8) * 255).resize(size, Image.Resampling.NEAREST)
        result = self.pipeline(
            prompt=instruction, image=region, mask_image=region_mask, width=size[0], height=size[1],
            num_inference_steps=self.steps, guidance_scale=self.guidance_scale,
            generator=torch.Generator("cpu").manual_seed(self.seed), output_type="pil", **extra,
        ).images[0]
        edited = np.asarray(result.convert("RGB").resize(box[2:], Image.Resampling.LANCZOS))
        # feather over the mask grown by the feather's reach: nothing past it can change
        blend = soft(crop(mask, box), box, self.feather)
        out = image.copy()
        a = blend.alpha[..., None]
        target = crop(out, box)
        target[...] = np.where(a > 0, np.rint(target * (1 - a) + edited * a), target).astype(np.uint8)
        return out


class StableDiffusionInpaintEditor(InpaintEditor):
    pipeline_class = "StableDiffusionInpaintPipeline"
    native, multiple, guidance = 512, 8, 7.5


class FluxFillEditor(InpaintEditor):
    pipeline_class = "FluxFillPipeline"
    native, multiple, guidance = 1024, 16, 30.0


class Flux2KleinInpaintEditor(InpaintEditor):
    """FLUX.2 Klein resizes inputs above about one megapixel, so it edits at 1024 on the long side.
    For the instance task, `edit(..., image_reference=[cut_out])` blends a reference image in."""

    pipeline_class = "Flux2KleinInpaintPipeline"
    native, multiple, guidance = 1024, 16, 4.0


EDITORS = {cls.pipeline_class: cls for cls in (StableDiffusionInpaintEditor, FluxFillEditor, Flux2KleinInpaintEditor)}


def DiffusersEditor(model_id: str, **kwargs) -> InpaintEditor:
    """The editor for a model id or folder (`--editor diffusers:<model-id>`), chosen by the
    pipeline class in its `model_index.json`."""
    from diffusers import DiffusionPipeline

    try:
        name = DiffusionPipeline.load_config(model_id)["_class_name"]
    except Exception as exc:  # hub, network and file errors all have their own types
        raise UserError(f"cannot read the pipeline config of {model_id!r} ({type(exc).__name__}: {exc})") from None
    if name not in EDITORS:
        raise UserError(f"{model_id!r} is a {name}; supported inpainting pipelines: {', '.join(EDITORS)}")
    return EDITORS[name].from_pretrained(model_id, **kwargs)
