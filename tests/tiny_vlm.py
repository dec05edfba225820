"""A tiny randomly initialised LLaVA (CLIP vision tower + Llama text model) saved to a folder.

Tests load it like any Hub checkpoint (`AutoProcessor` + `AutoModelForImageTextToText`) without
downloading weights. The tokenizer is a byte-level BPE trained in memory, so every prompt
encodes; the chat template emits exactly one `<image>` per image part.
"""

from __future__ import annotations

from pathlib import Path

SPECIAL = ["<unk>", "<s>", "</s>", "<pad>", "<image>", "<|user|>", "<|assistant|>", "<|end|>"]
CHAT_TEMPLATE = (
    "{% for message in messages %}<|{{ message['role'] }}|>"
    "{% if message['content'] is string %}{{ message['content'] }}{% else %}"
    "{% for part in message['content'] %}{% if part['type'] == 'image' %}<image>"
    "{% else %}{{ part['text'] }}{% endif %}"
    "{% endfor %}{% endif %}<|end|>\n{% endfor %}{% if add_generation_prompt %}<|assistant|>{% endif %}"
)
CORPUS = [
    "Image 1: Image 2: What is the difference between the two images? Options: A. B. C. D. E.",
    "What do the two images have in common? There is no visible difference between the two images",
    "Answer with the option's letter from the given choices directly. The answer is B because",
    "a red cup moved left of the blue lamp; the dog is gone; a scorch on the paint palette (pink)",
]


def build_tiny_llava(folder: str | Path, *, seed: int = 0) -> Path:
    """Write processor, tokenizer and random weights (a few MB) to `folder`; return it."""
    import torch
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import (
        CLIPImageProcessorPil,
        CLIPVisionConfig,
        LlamaConfig,
        LlavaConfig,
        LlavaForConditionalGeneration,
        LlavaProcessor,
        PreTrainedTokenizerFast,
    )

    folder = Path(folder)
    bpe = Tokenizer(models.BPE(unk_token="<unk>"))
    bpe.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    bpe.decoder = decoders.ByteLevel()
    bpe.train_from_iterator(CORPUS * 4, trainers.BpeTrainer(
        vocab_size=400, special_tokens=SPECIAL, initial_alphabet=pre_tokenizers.ByteLevel.alphabet()))
    tokenizer = PreTrainedTokenizerFast(
        tokenizer_object=bpe, unk_token="<unk>", bos_token="<s>", eos_token="</s>", pad_token="<pad>",
        extra_special_tokens={"image_token": "<image>"}, padding_side="left")
    tokenizer.add_special_tokens({"additional_special_tokens": SPECIAL[4:]})
    image_processor = CLIPImageProcessorPil(size={"shortest_edge": 32}, crop_size={"height": 32, "width": 32})
    processor = LlavaProcessor(image_processor=image_processor, tokenizer=tokenizer, patch_size=8,
                               vision_feature_select_strategy="default", num_additional_image_tokens=1,
                               chat_template=CHAT_TEMPLATE)
    ids = {t: tokenizer.convert_tokens_to_ids(t) for t in SPECIAL}
    config = LlavaConfig(
        vision_config=CLIPVisionConfig(hidden_size=16, intermediate_size=32, num_hidden_layers=1,
                                       num_attention_heads=2, image_size=32, patch_size=8),
        text_config=LlamaConfig(vocab_size=len(tokenizer), hidden_size=32, intermediate_size=64,
                                num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
                                max_position_embeddings=4096, bos_token_id=ids["<s>"],
                                eos_token_id=ids["</s>"], pad_token_id=ids["<pad>"]),
        image_token_index=ids["<image>"], vision_feature_select_strategy="default", vision_feature_layer=-1,
    )
    torch.manual_seed(seed)
    model = LlavaForConditionalGeneration(config).eval()
    for key, token in (("bos_token_id", "<s>"), ("eos_token_id", "</s>"), ("pad_token_id", "<pad>")):
        setattr(model.generation_config, key, ids[token])
    model.save_pretrained(folder)
    processor.save_pretrained(folder)
    return folder
