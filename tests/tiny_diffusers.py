"""Tiny randomly initialised diffusers inpainting pipelines, built from configs (no weights, no network).

One builder per pipeline family the editors support, each `builder(tmp_path) -> pipeline` with
`tmp_path` holding the tokenizer files it writes. The models are as small as the pipelines allow
(a few thousand parameters) so two denoising steps on a 64 px crop take well under a second on a
CPU, yet every tensor goes through the real code path: the VAEs downsample once (scale factor 2),
so packing, patchifying and mask reshapes are all exercised. `save_tiny_pipeline` writes one to a
folder with `save_pretrained`, which `DiffusersEditor(folder)` then loads like a Hub checkpoint.
"""

from __future__ import annotations

import json
from pathlib import Path

import diffusers
import torch
from tokenizers.pre_tokenizers import ByteLevel
from transformers import (
    CLIPTextConfig,
    CLIPTextModel,
    CLIPTokenizer,
    Qwen2TokenizerFast,
    Qwen3Config,
    Qwen3ForCausalLM,
    T5Config,
    T5EncoderModel,
    T5TokenizerFast,
)

LETTERS = "abcdefghijklmnopqrstuvwxyz"
# FLUX.2 Klein stacks these hidden states of its text encoder (the real one uses layers 9, 18, 27
# of a 36-layer Qwen3); the tiny encoder has two layers, so editors must pass these in the call.
KLEIN_OUT_LAYERS = (1, 2)
QWEN_CHAT_TEMPLATE = (
    "{% for message in messages %}<|im_start|>{{ message['role'] }}\n{{ message['content'] }}<|im_end|>\n"
    "{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)


def clip_tokenizer(tmp_path: Path) -> CLIPTokenizer:
    """A CLIP BPE tokenizer over single letters (no merges): enough to encode any lowercase prompt."""
    vocab = {"<|startoftext|>": 0, "<|endoftext|>": 1, "!": 2}
    for i, c in enumerate(LETTERS):
        vocab[c], vocab[c + "</w>"] = 3 + 2 * i, 4 + 2 * i
    (tmp_path / "vocab.json").write_text(json.dumps(vocab))
    (tmp_path / "merges.txt").write_text("#version: 0.2\n")
    return CLIPTokenizer(str(tmp_path / "vocab.json"), str(tmp_path / "merges.txt"), model_max_length=77)


def clip_text_encoder(vocab_size: int) -> CLIPTextModel:
    return CLIPTextModel(CLIPTextConfig(bos_token_id=0, eos_token_id=1, pad_token_id=1, hidden_size=32,
                                        intermediate_size=37, num_attention_heads=4, num_hidden_layers=2,
                                        vocab_size=vocab_size))


def tiny_sd_pipeline(tmp_path: Path) -> diffusers.StableDiffusionInpaintPipeline:
    tokenizer = clip_tokenizer(tmp_path)
    torch.manual_seed(0)
    unet = diffusers.UNet2DConditionModel(
        block_out_channels=(32, 64), layers_per_block=2, sample_size=32, in_channels=9, out_channels=4,
        down_block_types=("DownBlock2D", "CrossAttnDownBlock2D"), up_block_types=("CrossAttnUpBlock2D", "UpBlock2D"),
        cross_attention_dim=32)
    vae = diffusers.AutoencoderKL(block_out_channels=[32, 64], in_channels=3, out_channels=3, latent_channels=4,
                                  down_block_types=["DownEncoderBlock2D"] * 2, up_block_types=["UpDecoderBlock2D"] * 2)
    return diffusers.StableDiffusionInpaintPipeline(
        unet=unet, vae=vae, text_encoder=clip_text_encoder(len(tokenizer)), tokenizer=tokenizer,
        scheduler=diffusers.PNDMScheduler(skip_prk_steps=True, steps_offset=1),
        safety_checker=None, feature_extractor=None, requires_safety_checker=False)


def tiny_flux_fill_pipeline(tmp_path: Path) -> diffusers.FluxFillPipeline:
    """FLUX.1 Fill: the transformer reads the noisy latents, the masked image's latents and the mask
    folded into vae_scale**2 channels, all packed 2x2, so its input has 4 * (2 * latent + scale**2) channels."""
    tokenizer = clip_tokenizer(tmp_path)
    # T5's Unigram vocab: the specials in T5's order, the word-start marker and the letters
    t5_tokenizer = T5TokenizerFast(vocab=[("<pad>", 0.0), ("</s>", 0.0), ("<unk>", 0.0), ("\u2581", -2.0)]
                                   + [(c, -3.0) for c in LETTERS], extra_ids=0)
    latent, scale = 2, 2
    torch.manual_seed(0)
    transformer = diffusers.FluxTransformer2DModel(
        patch_size=1, in_channels=4 * (2 * latent + scale**2), out_channels=4 * latent, num_layers=1,
        num_single_layers=1, attention_head_dim=16, num_attention_heads=2, joint_attention_dim=32,
        pooled_projection_dim=32, guidance_embeds=True, axes_dims_rope=(4, 4, 8))
    vae = diffusers.AutoencoderKL(
        in_channels=3, out_channels=3, block_out_channels=(4,) * scale, layers_per_block=1, latent_channels=latent,
        down_block_types=("DownEncoderBlock2D",) * scale, up_block_types=("UpDecoderBlock2D",) * scale,
        norm_num_groups=1, use_quant_conv=False, use_post_quant_conv=False, shift_factor=0.0609, scaling_factor=1.5035)
    # models built from a config are in training mode: T5's default dropout would make seeded edits differ
    text_encoder_2 = T5EncoderModel(T5Config(vocab_size=len(t5_tokenizer), d_model=32, d_kv=8, d_ff=37, num_layers=1,
                                             num_heads=4, relative_attention_num_buckets=8, dropout_rate=0.0))
    return diffusers.FluxFillPipeline(
        scheduler=diffusers.FlowMatchEulerDiscreteScheduler(), vae=vae, text_encoder=clip_text_encoder(len(tokenizer)),
        tokenizer=tokenizer, text_encoder_2=text_encoder_2, tokenizer_2=t5_tokenizer, transformer=transformer)


def qwen_tokenizer(tmp_path: Path) -> Qwen2TokenizerFast:
    """A byte-level BPE over the 256 byte symbols (every prompt encodes) with one merge, plus
    the chat markers the Klein pipeline's chat template needs."""
    vocab = {c: i for i, c in enumerate(sorted(ByteLevel.alphabet()))}
    vocab["\u0120m"] = len(vocab)  # " m", from the single merge below
    (tmp_path / "qwen_vocab.json").write_text(json.dumps(vocab))
    (tmp_path / "qwen_merges.txt").write_text("#version: 0.2\n\u0120 m\n")
    tokenizer = Qwen2TokenizerFast(vocab=str(tmp_path / "qwen_vocab.json"), merges=str(tmp_path / "qwen_merges.txt"))
    tokenizer.add_special_tokens({"additional_special_tokens": ["<|im_start|>", "<|im_end|>"]})
    tokenizer.chat_template = QWEN_CHAT_TEMPLATE
    return tokenizer


def tiny_flux2_klein_inpaint_pipeline(tmp_path: Path,
                                      is_distilled: bool = False) -> diffusers.Flux2KleinInpaintPipeline:
    """FLUX.2 Klein inpainting: the transformer reads patchified latents (4 * latent channels) and a
    prompt embedding that stacks `KLEIN_OUT_LAYERS` hidden states of the Qwen3 text encoder."""
    tokenizer = qwen_tokenizer(tmp_path)
    hidden, latent, scale = 16, 1, 2
    torch.manual_seed(0)
    transformer = diffusers.Flux2Transformer2DModel(
        patch_size=1, in_channels=4 * latent, num_layers=1, num_single_layers=1, attention_head_dim=16,
        num_attention_heads=2, joint_attention_dim=hidden * len(KLEIN_OUT_LAYERS), timestep_guidance_channels=256,
        axes_dims_rope=(4, 4, 4, 4), guidance_embeds=False)
    vae = diffusers.AutoencoderKLFlux2(
        in_channels=3, out_channels=3, block_out_channels=(4,) * scale, layers_per_block=1, latent_channels=latent,
        down_block_types=("DownEncoderBlock2D",) * scale, up_block_types=("UpDecoderBlock2D",) * scale,
        norm_num_groups=1, use_quant_conv=False, use_post_quant_conv=False, sample_size=32)
    text_encoder = Qwen3ForCausalLM(Qwen3Config(
        vocab_size=len(tokenizer), hidden_size=hidden, intermediate_size=16, num_hidden_layers=max(KLEIN_OUT_LAYERS),
        num_attention_heads=2, num_key_value_heads=2, head_dim=8, max_position_embeddings=512,
        pad_token_id=tokenizer.pad_token_id))
    return diffusers.Flux2KleinInpaintPipeline(
        scheduler=diffusers.FlowMatchEulerDiscreteScheduler(), vae=vae, text_encoder=text_encoder,
        tokenizer=tokenizer, transformer=transformer, is_distilled=is_distilled)


class Spy:
    """A pipeline that records what the editor hands it."""

    def __init__(self, pipeline):
        self.pipeline, self.calls = pipeline, []

    def __call__(self, **kwargs):
        self.calls.append(kwargs)
        return self.pipeline(**kwargs)


BUILDERS = {
    "StableDiffusionInpaintPipeline": tiny_sd_pipeline,
    "FluxFillPipeline": tiny_flux_fill_pipeline,
    "Flux2KleinInpaintPipeline": tiny_flux2_klein_inpaint_pipeline,
}


def save_tiny_pipeline(pipeline_class: str, tmp_path: Path) -> Path:
    """The tiny `pipeline_class` pipeline saved to `tmp_path / pipeline_class`, loadable by `from_pretrained`."""
    folder = tmp_path / pipeline_class
    BUILDERS[pipeline_class](tmp_path).save_pretrained(folder)
    return folder
