"""Diffusion inpainting editors behind one interface: `edit(image, mask, instruction, *, seed=None) -> image`.

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

from dicobench.editors.photo.classical import crop, soft
from dicobench.kit.errors import UserError
from dicobench.kit.scene.geometry import Box, centre_px


def context_box(mask_box: Box, margin: float, width: int, height: int) -> Box:
    """A box `margin` times the mask box's size, centred on it, shifted (not cut) to fit the image."""
    (mx, my), (w, h) = centre_px(mask_box), mask_box[2:]
    cw, ch = min(width, math.ceil(w * margin)), min(height, math.ceil(h * margin))
    cx = min(max(mx - cw // 2, 0), width - cw)
    cy = min(max(my - ch // 2, 0), height - ch)
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
    """Crop-edit-resize-blend around a mask with any diffusers inpainting pipeline.

    Subclasses say the pipeline's native size, side multiple and default guidance, and adapt a call's
    extra arguments in `pipeline_kwargs`. `call_kwargs` go into every pipeline call: arguments only
    one pipeline takes, such as FLUX.2 Klein's `text_encoder_out_layers` for a smaller text encoder."""

    pipeline_class: ClassVar[str]
    native: ClassVar[int]  # long side the pipeline edits at
    multiple: ClassVar[int]  # its width and height must be multiples of this
    guidance: ClassVar[float]
    takes_reference: ClassVar[bool] = False  # whether `edit` accepts `image_reference` images

    def __init__(self, pipeline, *, size: int | None = None, margin: float = 2.0, steps: int = 28,
                 guidance: float | None = None, strength: float = 1.0, feather: float = 4.0, seed: int = 0,
                 call_kwargs: dict | None = None, model_id: str | None = None):
        self.pipeline = pipeline
        self.size = size or self.native
        self.margin, self.steps, self.feather, self.seed = margin, steps, feather, seed
        self.guidance_scale = self.guidance if guidance is None else guidance
        # 1.0 repaints the mask from pure noise; FLUX.2 Klein would otherwise keep 20% of the original
        self.strength = strength
        self.call_kwargs = dict(call_kwargs or {})
        self.model_id = model_id

    @property
    def name(self) -> str:
        """Provenance for the dataset's `generator` column: the pipeline class and, when loaded, the model id."""
        return f"{self.pipeline_class} ({self.model_id})" if self.model_id else self.pipeline_class

    @classmethod
    def from_pretrained(cls, model_id: str, device: str | None = None, dtype=None, **kwargs) -> "InpaintEditor":
        import diffusers

        auto_device, auto_dtype = auto_device_dtype()
        pipeline = getattr(diffusers, cls.pipeline_class).from_pretrained(model_id, dtype=dtype or auto_dtype)
        return cls(pipeline.to(device or auto_device), model_id=model_id, **{**cls.defaults(pipeline), **kwargs})

    @classmethod
    def defaults(cls, pipeline) -> dict:
        """Settings a checkpoint implies (its own usual steps and guidance), below the caller's."""
        return {}

    def pipeline_kwargs(self, extra: dict) -> dict:
        """A call's extra pipeline arguments as this pipeline wants them."""
        return extra

    def edit(self, image: np.ndarray, mask: np.ndarray, instruction: str, *, seed: int | None = None,
             **extra) -> np.ndarray:
        """`image` (HxWx3 uint8) edited where `mask` (HxW bool) is set, following `instruction`.

        `seed` (default: the editor's) seeds this call's noise, so a build can give each row its own;
        `extra` goes to the pipeline, over `call_kwargs`."""
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
        generator = torch.Generator("cpu").manual_seed(self.seed if seed is None else seed)
        result = self.pipeline(
            prompt=instruction, image=region, mask_image=region_mask, width=size[0], height=size[1],
            num_inference_steps=self.steps, guidance_scale=self.guidance_scale, strength=self.strength,
            generator=generator, output_type="pil", **self.pipeline_kwargs({**self.call_kwargs, **extra}),
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
    takes_reference = True

    @classmethod
    def defaults(cls, pipeline) -> dict:
        """The distilled Klein checkpoints are made for 4 steps and ignore guidance."""
        return {"steps": 4, "guidance": 1.0} if pipeline.config.get("is_distilled") else {}

    def pipeline_kwargs(self, extra: dict) -> dict:
        """Reference images as PIL: the pipeline reads a numpy array as floats in [0, 1], not uint8."""
        ref = extra.get("image_reference")
        if ref is None:
            return extra
        refs = [Image.fromarray(r) if isinstance(r, np.ndarray) else r
                for r in (ref if isinstance(ref, list) else [ref])]
        return {**extra, "image_reference": refs}


EDITORS = {cls.pipeline_class: cls for cls in (StableDiffusionInpaintEditor, FluxFillEditor, Flux2KleinInpaintEditor)}
# FLUX.2 Klein checkpoints are published as the text-to-image pipeline; its inpainting
# pipeline loads the same components
EDITORS["Flux2KleinPipeline"] = Flux2KleinInpaintEditor


def DiffusersEditor(model_id: str, **kwargs) -> InpaintEditor:
    """The editor for a model id or folder (`--editor diffusers:<model-id>`), chosen by the
    pipeline class in its `model_index.json` (e.g. black-forest-labs/FLUX.2-klein-base-9B,
    black-forest-labs/FLUX.1-Fill-dev, an SD inpainting checkpoint)."""
    from diffusers import DiffusionPipeline

    try:
        name = DiffusionPipeline.load_config(model_id)["_class_name"]
    except Exception as exc:  # hub, network and file errors all have their own types
        raise UserError(f"cannot read the pipeline config of {model_id!r} ({type(exc).__name__}: {exc})") from None
    if name not in EDITORS:
        raise UserError(f"{model_id!r} is a {name}; supported inpainting pipelines: {', '.join(EDITORS)}")
    return EDITORS[name].from_pretrained(model_id, **kwargs)
