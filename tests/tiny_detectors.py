"""Tiny random open-vocabulary detectors and a tiny SAM, built from configs (no weights), saved
with their processors so that `transformers:<folder>` loads them as it would a Hub model."""

from __future__ import annotations

import json
from pathlib import Path

import torch
import transformers as T
from tiny_diffusers import LETTERS

WORDS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", ".", "apple", "coin", "key", "leaf", "button", "ring", "cup"]


def owl_tokenizer(tmp_path: Path) -> T.CLIPTokenizer:
    """A CLIP BPE tokenizer over single letters whose start token is not id 0: OWL models read a
    query whose first id is 0 as padding."""
    tmp_path.mkdir(parents=True, exist_ok=True)
    vocab = {"!": 0, "<|startoftext|>": 1, "<|endoftext|>": 2}
    for i, c in enumerate(LETTERS + " "):
        vocab[c], vocab[c + "</w>"] = 3 + 2 * i, 4 + 2 * i
    (tmp_path / "owl_vocab.json").write_text(json.dumps(vocab))
    (tmp_path / "owl_merges.txt").write_text("#version: 0.2\n")
    return T.CLIPTokenizer(str(tmp_path / "owl_vocab.json"), str(tmp_path / "owl_merges.txt"), model_max_length=16,
                           pad_token="!")


def save_owlv2(tmp_path: Path) -> Path:
    """OWLv2 on 64 px inputs (16 patches); its class head shifted so that every patch is a sure
    detection (a random head scores near zero), which leaves the thresholds and NMS to decide."""
    folder = tmp_path / "owlv2"
    tokenizer = owl_tokenizer(tmp_path)
    torch.manual_seed(0)
    small = dict(hidden_size=16, intermediate_size=32, num_hidden_layers=1, num_attention_heads=2)
    config = T.Owlv2Config(text_config=dict(vocab_size=len(tokenizer), max_position_embeddings=16, bos_token_id=1,
                                            eos_token_id=2, pad_token_id=0, **small),
                           vision_config=dict(image_size=64, patch_size=16, **small), projection_dim=16)
    model = T.Owlv2ForObjectDetection(config).eval()
    with torch.no_grad():
        model.class_head.logit_shift.weight.zero_()
        model.class_head.logit_shift.bias.fill_(2.0)
    model.save_pretrained(folder)
    T.Owlv2Processor(image_processor=T.Owlv2ImageProcessor(size={"height": 64, "width": 64}),
                     tokenizer=tokenizer).save_pretrained(folder)
    return folder


def save_grounding_dino(tmp_path: Path) -> Path:
    folder = tmp_path / "grounding-dino"
    (tmp_path / "vocab.txt").write_text("\n".join(WORDS))
    tokenizer = T.BertTokenizer(str(tmp_path / "vocab.txt"))
    torch.manual_seed(0)
    config = T.GroundingDinoConfig(
        backbone_config=T.SwinConfig(embed_dim=8, depths=[1, 1], num_heads=[1, 1], window_size=2, image_size=64,
                                     out_features=["stage1", "stage2"]),
        text_config=T.BertConfig(vocab_size=len(WORDS), hidden_size=16, num_hidden_layers=1, num_attention_heads=2,
                                 intermediate_size=32, max_position_embeddings=64),
        d_model=32, encoder_layers=1, decoder_layers=2, encoder_attention_heads=2, decoder_attention_heads=2,
        encoder_ffn_dim=32, decoder_ffn_dim=32, num_queries=10, num_feature_levels=2, encoder_n_points=2,
        decoder_n_points=2, max_text_len=32, use_timm_backbone=False, backbone=None, use_pretrained_backbone=False)
    T.GroundingDinoForObjectDetection(config).eval().save_pretrained(folder)
    processor = T.GroundingDinoProcessor(
        image_processor=T.GroundingDinoImageProcessor(size={"shortest_edge": 64, "longest_edge": 96}),
        tokenizer=tokenizer)
    processor.save_pretrained(folder)
    return folder


def save_sam(tmp_path: Path) -> Path:
    folder = tmp_path / "sam"
    torch.manual_seed(0)
    config = T.SamConfig(
        vision_config=dict(hidden_size=16, intermediate_size=32, num_hidden_layers=1, num_attention_heads=2,
                           image_size=64, patch_size=16, output_channels=8, window_size=2, global_attn_indexes=[0],
                           mlp_dim=32, num_pos_feats=4),
        prompt_encoder_config=dict(hidden_size=8, image_size=64, patch_size=16, mask_input_channels=4,
                                   image_embedding_size=4),
        mask_decoder_config=dict(hidden_size=8, mlp_dim=16, num_hidden_layers=1, num_attention_heads=2,
                                 iou_head_hidden_dim=8))
    T.SamModel(config).eval().save_pretrained(folder)
    T.SamProcessor(image_processor=T.SamImageProcessor(size={"longest_edge": 64},
                                                       pad_size={"height": 64, "width": 64})).save_pretrained(folder)
    return folder
