"""Local models through transformers: `AutoProcessor` + `AutoModelForImageTextToText`.

Answers do not depend on the batch size: prompts are left-padded with an attention mask and
decoded greedily, so a row gets the same reply alone or in a batch. Device and dtype are picked
automatically: bf16 on a GPU (spread over all GPUs with accelerate), float32 on CPU.
"""

from __future__ import annotations

import time
from typing import Sequence

from benchkit.errors import UserError
from benchkit.runners.base import Prompt, Reply, Runner


def _first_line(exc: Exception) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


class TransformersRunner(Runner):
    """A Hub id or local folder holding a vision-language model with a chat template."""

    def __init__(self, model: str, *, batch_size: int = 1, max_new_tokens: int = 64, max_pixels: int | None = None):
        try:
            import torch
            import transformers
        except ImportError:
            raise UserError("hf: models need torch and transformers: pip install 'dicobench[models]'") from None
        self._torch = torch
        self.batch_size = batch_size
        self.max_new_tokens = max_new_tokens
        try:
            self.processor = transformers.AutoProcessor.from_pretrained(model)
        except (OSError, ValueError) as exc:
            raise UserError(f"cannot load a processor for {model}: {_first_line(exc)}") from None
        if not getattr(self.processor, "chat_template", None):
            raise UserError(f"{model} has no chat template: use an instruction-tuned (chat) model")
        tokenizer = self.processor.tokenizer
        tokenizer.padding_side = "left"  # right padding would shift where generation starts
        if tokenizer.pad_token is None:
            tokenizer.pad_token = tokenizer.eos_token
        self._call_kwargs = {"padding": True}
        if max_pixels is not None:
            image_processor = getattr(self.processor, "image_processor", None)
            if "max_pixels" not in getattr(getattr(image_processor, "valid_kwargs", None), "__annotations__", {}):
                raise UserError(f"--max-pixels: the image processor of {model} has no max_pixels setting")
            self._call_kwargs["max_pixels"] = max_pixels
        self.model = self._load_model(transformers, model)
        generation = self.model.generation_config
        if generation.pad_token_id is None:
            generation.pad_token_id = tokenizer.pad_token_id

    def _load_model(self, transformers, model: str):
        """The image-text-to-text class, else the checkpoint's own class (e.g. older remote layouts)."""
        torch = self._torch
        if torch.cuda.is_available():
            dtype = torch.bfloat16 if torch.cuda.is_bf16_supported() else torch.float16
            placement = {"device_map": "auto"}
        else:
            dtype, placement = torch.float32, {}
        kwargs = {"dtype": dtype, **placement}
        try:
            loaded = transformers.AutoModelForImageTextToText.from_pretrained(model, **kwargs)
        except ValueError:  # the auto class does not map this config
            config = transformers.AutoConfig.from_pretrained(model)
            cls = getattr(transformers, (config.architectures or [""])[0], None)
            if cls is None:
                raise UserError(f"{model}: no transformers class for architectures {config.architectures}") from None
            loaded = cls.from_pretrained(model, **kwargs)
        except OSError as exc:
            raise UserError(f"cannot load model {model}: {_first_line(exc)}") from None
        return loaded.eval()

    def encode(self, prompts: Sequence[Prompt]):
        """The model inputs of a batch through the chat template: token ids left-padded, pixels."""
        conversations = [[{"role": "user", "content": [
            {"type": "text", "text": part} if isinstance(part, str) else {"type": "image", "image": part}
            for part in prompt]}] for prompt in prompts]
        return self.processor.apply_chat_template(
            conversations, add_generation_prompt=True, tokenize=True, return_dict=True, return_tensors="pt",
            processor_kwargs=self._call_kwargs,
        ).to(self.model.device, dtype=self.model.dtype)

    def generate(self, prompts: Sequence[Prompt]) -> list[Reply]:
        start = time.perf_counter()
        inputs = self.encode(prompts)
        try:
            with self._torch.inference_mode():
                output = self.model.generate(**inputs, do_sample=False, num_beams=1,
                                             max_new_tokens=self.max_new_tokens)
        except self._torch.OutOfMemoryError as exc:  # too large for this device: retried on the next run
            return [Reply(None, error=f"OutOfMemoryError: {_first_line(exc)}"[:300])] * len(prompts)
        texts = self.processor.batch_decode(output[:, inputs["input_ids"].shape[1]:], skip_special_tokens=True)
        latency = (time.perf_counter() - start) / len(prompts)
        return [Reply(text.strip(), latency=latency) for text in texts]

    def close(self) -> None:
        del self.model
        if self._torch.cuda.is_available():
            self._torch.cuda.empty_cache()
