"""The crop-edit-resize-blend code with tiny randomly initialised inpainting pipelines (SD, FLUX.1
Fill, FLUX.2 Klein), built from configs as diffusers' own tests do (no weights, no network), two
steps on CPU."""

import json

import numpy as np
import pytest

torch = pytest.importorskip("torch")
diffusers = pytest.importorskip("diffusers")
pytest.importorskip("cv2")
skdata = pytest.importorskip("skimage.data")

from tiny_diffusers import (  # noqa: E402
    KLEIN_OUT_LAYERS,
    Spy,
    save_tiny_pipeline,
    tiny_flux2_klein_inpaint_pipeline,
    tiny_flux_fill_pipeline,
    tiny_sd_pipeline,
)

from dicobench.editors.photo.diffusers_editor import (  # noqa: E402
    DiffusersEditor,
    Flux2KleinInpaintEditor,
    FluxFillEditor,
    StableDiffusionInpaintEditor,
    context_box,
    work_size,
)
from dicobench.kit.errors import UserError  # noqa: E402

FEATHER = 2.0
# each pipeline's editor, its tiny builder and the call arguments the tiny models need
CASES = {
    "sd": (StableDiffusionInpaintEditor, tiny_sd_pipeline, {}),
    "flux_fill": (FluxFillEditor, tiny_flux_fill_pipeline, {}),
    "flux2_klein": (Flux2KleinInpaintEditor, tiny_flux2_klein_inpaint_pipeline,
                    {"text_encoder_out_layers": KLEIN_OUT_LAYERS}),
}


@pytest.fixture(scope="module")
def photo():
    """A 400x300 photo and a 40x30 mask whose 2x context box is 80x60 (64x48 at a 64 px long side)."""
    image = skdata.astronaut()[:300, :400].copy()
    mask = np.zeros(image.shape[:2], bool)
    mask[120:150, 200:240] = True
    return image, mask


def changed_only_near_the_mask(out, image, mask):
    """True when the edit repainted the mask and changed nothing beyond the feather's reach."""
    diff = (out != image).any(axis=2)
    ys, xs = np.nonzero(mask)
    reach = 2 * int(np.ceil(3 * FEATHER)) + 1
    allowed = np.zeros_like(mask)
    allowed[ys.min() - reach : ys.max() + 1 + reach, xs.min() - reach : xs.max() + 1 + reach] = True
    return diff[mask].mean() > 0.9 and not (diff & ~allowed).any()


def test_context_box_is_twice_the_mask_and_stays_inside():
    assert context_box((100, 100, 20, 10), 2.0, 400, 300) == (90, 95, 40, 20)
    assert context_box((0, 0, 20, 10), 2.0, 400, 300) == (0, 0, 40, 20)  # shifted, not cut
    assert context_box((390, 295, 10, 5), 2.0, 400, 300) == (380, 290, 20, 10)
    assert work_size((0, 0, 300, 150), 64, 8) == (64, 32)
    assert work_size((0, 0, 1000, 700), 1024, 16) == (1024, 720)


@pytest.mark.parametrize("case", CASES)
def test_inpainting_edits_only_around_the_mask(case, photo, tmp_path):
    editor_class, build, call_kwargs = CASES[case]
    image, mask = photo
    spy = Spy(build(tmp_path))
    editor = editor_class(spy, size=64, steps=2, feather=FEATHER, call_kwargs=call_kwargs)
    out = editor.edit(image, mask, "make it red")
    call = spy.calls[0]
    assert (call["width"], call["height"]) == (64, 48)  # the 80x60 context box at the pipeline's size
    assert call["width"] % editor.multiple == 0 and call["height"] % editor.multiple == 0
    assert call["image"].size == call["mask_image"].size == (64, 48) and call["num_inference_steps"] == 2
    assert call["strength"] == 1.0 and call["guidance_scale"] == editor_class.guidance
    assert out.shape == image.shape and out.dtype == np.uint8
    assert changed_only_near_the_mask(out, image, mask)  # everything else is bit-identical
    assert np.array_equal(editor.edit(image, mask, "make it red"), out)  # seeded
    assert editor.name == editor_class.pipeline_class


@pytest.mark.parametrize("case", CASES)
def test_a_per_call_seed_replaces_the_editor_seed(case, photo, tmp_path):
    editor_class, build, call_kwargs = CASES[case]
    image, mask = photo
    editor = editor_class(build(tmp_path), size=64, steps=2, feather=FEATHER, seed=3, call_kwargs=call_kwargs)
    by_editor_seed = editor.edit(image, mask, "make it red")
    assert np.array_equal(editor.edit(image, mask, "make it red", seed=3), by_editor_seed)
    by_row_seed = editor.edit(image, mask, "make it red", seed=4)
    assert not np.array_equal(by_row_seed, by_editor_seed)
    assert changed_only_near_the_mask(by_row_seed, image, mask)
    assert editor.seed == 3  # the per-call seed is not kept


def test_flux2_klein_blends_a_reference_image_in(photo, tmp_path):
    image, mask = photo
    spy = Spy(tiny_flux2_klein_inpaint_pipeline(tmp_path))
    editor = Flux2KleinInpaintEditor(spy, size=64, steps=2, feather=FEATHER,
                                     call_kwargs={"text_encoder_out_layers": KLEIN_OUT_LAYERS})
    plain = editor.edit(image, mask, "put this here")
    cut_out = image[40:72, 150:182]  # a uint8 array, which the pipeline alone would read as [0, 1] floats
    with_reference = editor.edit(image, mask, "put this here", image_reference=[cut_out])
    reference = spy.calls[-1]["image_reference"]
    assert len(reference) == 1 and np.array_equal(np.asarray(reference[0]), cut_out)
    assert changed_only_near_the_mask(with_reference, image, mask)
    assert not np.array_equal(with_reference, plain)


@pytest.mark.parametrize("case", CASES)
def test_editor_from_a_saved_pipeline_folder(case, photo, tmp_path):
    editor_class, _, call_kwargs = CASES[case]
    folder = save_tiny_pipeline(editor_class.pipeline_class, tmp_path)
    editor = DiffusersEditor(str(folder), size=64, steps=2, feather=FEATHER, call_kwargs=call_kwargs)
    assert type(editor) is editor_class and editor.pipeline.device.type == "cpu"  # chosen by model_index.json
    assert editor.name == f"{editor_class.pipeline_class} ({folder})"
    image, mask = photo
    assert changed_only_near_the_mask(editor.edit(image, mask, "make it red"), image, mask)


def test_unreadable_or_unsupported_pipeline_folders_are_user_errors(tmp_path):
    with pytest.raises(UserError, match="cannot read"):
        DiffusersEditor(str(tmp_path / "missing"))
    folder = tmp_path / "text-to-image"
    folder.mkdir()
    (folder / "model_index.json").write_text('{"_class_name": "StableDiffusionPipeline"}')
    with pytest.raises(UserError, match="supported inpainting pipelines"):
        DiffusersEditor(str(folder))


def test_a_distilled_klein_checkpoint_defaults_to_four_steps_without_guidance(tmp_path):
    folder = tmp_path / "klein-distilled"
    tiny_flux2_klein_inpaint_pipeline(tmp_path, is_distilled=True).save_pretrained(folder)
    editor = DiffusersEditor(str(folder))
    assert (editor.steps, editor.guidance_scale) == (4, 1.0)
    assert DiffusersEditor(str(folder), steps=8).steps == 8  # the caller's choice wins
    undistilled = save_tiny_pipeline("Flux2KleinInpaintPipeline", tmp_path)
    plain = DiffusersEditor(str(undistilled))
    assert (plain.steps, plain.guidance_scale) == (28, 4.0)


def test_a_klein_text_to_image_checkpoint_loads_as_the_inpainting_editor(photo, tmp_path):
    folder = tmp_path / "klein-base"
    diffusers.Flux2KleinPipeline(**tiny_flux2_klein_inpaint_pipeline(tmp_path).components).save_pretrained(folder)
    assert json.loads((folder / "model_index.json").read_text())["_class_name"] == "Flux2KleinPipeline"
    editor = DiffusersEditor(str(folder), size=64, steps=2, feather=FEATHER,
                             call_kwargs={"text_encoder_out_layers": KLEIN_OUT_LAYERS})
    assert isinstance(editor, Flux2KleinInpaintEditor)
    image, mask = photo
    assert changed_only_near_the_mask(editor.edit(image, mask, "make it red"), image, mask)
