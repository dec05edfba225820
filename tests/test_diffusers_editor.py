"""The crop-edit-resize-blend code with a tiny randomly initialised SD inpainting pipeline,
built from configs as diffusers' own tests do (no weights, no network), two steps on CPU."""

import json

import numpy as np
import pytest

torch = pytest.importorskip("torch")
diffusers = pytest.importorskip("diffusers")
pytest.importorskip("cv2")
skdata = pytest.importorskip("skimage.data")

from benchkit.errors import UserError  # noqa: E402
from dicobench.editors.diffusers_editor import (DiffusersEditor, StableDiffusionInpaintEditor,  # noqa: E402
                                                context_box, work_size)


def tiny_sd_pipeline(tmp_path):
    from transformers import CLIPTextConfig, CLIPTextModel, CLIPTokenizer

    vocab = {"<|startoftext|>": 0, "<|endoftext|>": 1, "!": 2}
    for i, c in enumerate("abcdefghijklmnopqrstuvwxyz"):
        vocab[c], vocab[c + "</w>"] = 3 + 2 * i, 4 + 2 * i
    (tmp_path / "vocab.json").write_text(json.dumps(vocab))
    (tmp_path / "merges.txt").write_text("#version: 0.2\n")
    torch.manual_seed(0)
    unet = diffusers.UNet2DConditionModel(
        block_out_channels=(32, 64), layers_per_block=2, sample_size=32, in_channels=9, out_channels=4,
        down_block_types=("DownBlock2D", "CrossAttnDownBlock2D"), up_block_types=("CrossAttnUpBlock2D", "UpBlock2D"),
        cross_attention_dim=32)
    vae = diffusers.AutoencoderKL(block_out_channels=[32, 64], in_channels=3, out_channels=3, latent_channels=4,
                                  down_block_types=["DownEncoderBlock2D"] * 2, up_block_types=["UpDecoderBlock2D"] * 2)
    text_encoder = CLIPTextModel(CLIPTextConfig(bos_token_id=0, eos_token_id=1, pad_token_id=1, hidden_size=32,
                                                intermediate_size=37, num_attention_heads=4, num_hidden_layers=2,
                                                vocab_size=len(vocab)))
    return diffusers.StableDiffusionInpaintPipeline(
        unet=unet, vae=vae, text_encoder=text_encoder,
        tokenizer=CLIPTokenizer(str(tmp_path / "vocab.json"), str(tmp_path / "merges.txt"), model_max_length=77),
        scheduler=diffusers.PNDMScheduler(skip_prk_steps=True, steps_offset=1),
        safety_checker=None, feature_extractor=None, requires_safety_checker=False)


class Spy:
    """Records what the editor hands the pipeline."""

    def __init__(self, pipeline):
        self.pipeline, self.calls = pipeline, []

    def __call__(self, **kwargs):
        self.calls.append(kwargs)
        return self.pipeline(**kwargs)


def test_context_box_is_twice_the_mask_and_stays_inside():
    assert context_box((100, 100, 20, 10), 2.0, 400, 300) == (90, 95, 40, 20)
    assert context_box((0, 0, 20, 10), 2.0, 400, 300) == (0, 0, 40, 20)  # shifted, not cut
    assert context_box((390, 295, 10, 5), 2.0, 400, 300) == (380, 290, 20, 10)
    assert work_size((0, 0, 300, 150), 64, 8) == (64, 32)
    assert work_size((0, 0, 1000, 700), 1024, 16) == (1024, 720)


def test_sd_inpainting_edits_only_around_the_mask(tmp_path):
    image = skdata.astronaut()[:300, :400].copy()
    mask = np.zeros(image.shape[:2], bool)
    mask[120:150, 200:240] = True
    spy = Spy(tiny_sd_pipeline(tmp_path))
    editor = StableDiffusionInpaintEditor(spy, size=64, steps=2, feather=2.0)
    out = editor.edit(image, mask, "make it red")
    call = spy.calls[0]
    assert (call["width"], call["height"]) == (64, 48)  # the 80x60 context box at the pipeline's size
    assert call["image"].size == call["mask_image"].size == (64, 48) and call["num_inference_steps"] == 2
    assert out.shape == image.shape and out.dtype == np.uint8
    diff = (out != image).any(axis=2)
    assert diff[120:150, 200:240].mean() > 0.9  # the random pipeline repaints the mask
    reach = 2 * int(np.ceil(3 * 2.0)) + 1
    allowed = np.zeros_like(mask)
    allowed[120 - reach : 150 + reach, 200 - reach : 240 + reach] = True
    assert not (diff & ~allowed).any()  # everything else is bit-identical
    assert np.array_equal(editor.edit(image, mask, "make it red"), out)  # seeded


def test_editor_from_a_saved_pipeline_folder(tmp_path):
    folder = tmp_path / "tiny-sd-inpaint"
    tiny_sd_pipeline(tmp_path).save_pretrained(folder)
    editor = DiffusersEditor(str(folder), size=32, steps=2)
    assert isinstance(editor, StableDiffusionInpaintEditor) and editor.pipeline.device.type == "cpu"
    with pytest.raises(UserError, match="cannot read"):
        DiffusersEditor(str(tmp_path / "missing"))
