"""Local models through transformers: `AutoProcessor` + `AutoModelForImageTextToText`.

Answers do not depend on the batch size: prompts are left-padded with an attention mask and
decoded greedily, so a row gets the same reply alone or in a batch. Device and dtype are picked
automatically (bf16 on a GPU, spread over all GPUs with accelerate; float32 on CPU) unless
`dtype`, `device_map`, `attn_implementation`, `trust_remote_code` or `model_args` (any other
`from_pretrained` keyword) say otherwise. `stream` decodes and preprocesses the next batches
in background threads while the model generates, so the device does not wait for PNG decoding.
"""

from __future__ import annotations

import time
from collections import deque
from concurrent.futures import Future, ThreadPoolExecutor
from itertools import islice
from typing import Iterable, Iterator, Sequence

from dicobench.kit.errors import UserError, first_line
from dicobench.kit.eval.runners.base import Prompt, Reply, Runner


def parse_model_args(text: str | dict | None) -> dict:
    """`k=v,k2=v2` (lmms-eval's --model_args form) as keyword arguments; values read as
    JSON-like scalars (true/false/none, numbers) where they parse, else kept as strings."""
    if text is None or isinstance(text, dict):
        return dict(text or {})
    out = {}
    for item in filter(None, (i.strip() for i in text.split(","))):
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise UserError(f"--model-args: expected key=value pairs separated by commas, got {item!r}")
        out[key.strip()] = _scalar(value.strip())
    return out


def _scalar(value: str):
    lowered = value.lower()
    if lowered in ("true", "false"):
        return lowered == "true"
    if lowered in ("none", "null"):
        return None
    for kind in (int, float):
        try:
            return kind(value)
        except ValueError:
            pass
    return value


class TransformersRunner(Runner):
    """A Hub id or local folder holding a vision-language model with a chat template."""

    options = ("batch_size", "max_new_tokens", "max_pixels", "dtype", "device_map", "attn_implementation",
               "trust_remote_code", "model_args")
    caps_tokens = True  # generation needs a cap: the benchmark's default when none is given
    prefetch = 2  # batches prepared ahead of the one generating

    def __init__(self, model: str, *, batch_size: int = 1, max_new_tokens: int = 64, max_pixels: int | None = None,
                 dtype: str | None = None, device_map: str | None = None, attn_implementation: str | None = None,
                 trust_remote_code: bool = False, model_args: str | dict | None = None):
        try:
            import torch
            import transformers
        except ImportError:
            raise UserError("hf: models need torch and transformers: pip install 'dicobench[models]'") from None
        self._torch = torch
        self.batch_size = batch_size
        self.max_new_tokens = max_new_tokens
        self.input_wait = 0.0  # seconds `stream` spent waiting for a prepared batch
        remote = {"trust_remote_code": True} if trust_remote_code else {}
        try:
            self.processor = transformers.AutoProcessor.from_pretrained(model, **remote)
        except (OSError, ValueError) as exc:
            raise UserError(f"cannot load a processor for {model}: {first_line(exc)}") from None
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
        self.model = self._load_model(transformers, model, {
            **self._placement(dtype, device_map), **remote, **parse_model_args(model_args),
            **({"attn_implementation": attn_implementation} if attn_implementation else {})})
        generation = self.model.generation_config
        if generation.pad_token_id is None:
            generation.pad_token_id = tokenizer.pad_token_id

    def _placement(self, dtype: str | None, device_map: str | None) -> dict:
        """dtype and device_map: as given, else bf16 (fp16) over all GPUs, or float32 on CPU."""
        torch = self._torch
        if dtype is None:
            if torch.cuda.is_available():
                chosen = torch.bfloat16 if torch.cuda.is_bf16_supported() else torch.float16
            else:
                chosen = torch.float32
        elif dtype == "auto":
            chosen = "auto"  # the checkpoint's own dtype
        else:
            chosen = getattr(torch, dtype, None)
            if not isinstance(chosen, torch.dtype):
                raise UserError(f"--dtype {dtype!r}: not a torch dtype (e.g. bfloat16, float16, float32, auto)")
        placement = {"dtype": chosen}
        if device_map is not None:
            placement["device_map"] = device_map
        elif torch.cuda.is_available():
            placement["device_map"] = "auto"
        return placement

    def _load_model(self, transformers, model: str, kwargs: dict):
        """The image-text-to-text class, else the checkpoint's own class (e.g. older remote layouts)."""
        try:
            loaded = transformers.AutoModelForImageTextToText.from_pretrained(model, **kwargs)
        except ValueError:  # the auto class does not map this config
            config = transformers.AutoConfig.from_pretrained(
                model, trust_remote_code=kwargs.get("trust_remote_code", False))
            cls = getattr(transformers, (config.architectures or [""])[0], None)
            if cls is None:
                raise UserError(f"{model}: no transformers class for architectures {config.architectures}") from None
            loaded = cls.from_pretrained(model, **kwargs)
        except OSError as exc:
            raise UserError(f"cannot load model {model}: {first_line(exc)}") from None
        except TypeError as exc:  # a --model-args key the model does not take
            raise UserError(f"cannot load model {model} with these arguments: {first_line(exc)}") from None
        return loaded.eval()

    def encode(self, prompts: Sequence[Prompt]):
        """The model inputs of a batch through the chat template: token ids left-padded, pixels."""
        conversations = [[{"role": "user", "content": [
            {"type": "text", "text": part} if isinstance(part, str) else {"type": "image", "image": part}
            for part in prompt]}] for prompt in prompts]
        return self.processor.apply_chat_template(
            conversations, add_generation_prompt=True, tokenize=True, return_dict=True, return_tensors="pt",
            processor_kwargs=self._call_kwargs,
        )

    def generate(self, prompts: Sequence[Prompt]) -> list[Reply]:
        return self._generate(self.encode(prompts), len(prompts), time.perf_counter())

    def stream(self, prompts: Iterable[Prompt]) -> Iterator[tuple[int, Reply]]:
        """Batches in order; up to `prefetch` later batches are built (images decoded) and
        encoded by a background thread while the model generates the current one."""
        items = iter(prompts)

        def prepare():  # runs in the worker: it alone advances the prompt iterator
            batch = list(islice(items, self.batch_size))
            return (self.encode(batch), len(batch)) if batch else None

        done = 0
        with ThreadPoolExecutor(1, thread_name_prefix="preprocess") as pool:
            ahead: deque[Future] = deque(pool.submit(prepare) for _ in range(1 + self.prefetch))
            try:
                while ahead:
                    waited = time.perf_counter()
                    prepared = ahead.popleft().result()
                    self.input_wait += time.perf_counter() - waited
                    if prepared is None:
                        break
                    ahead.append(pool.submit(prepare))
                    inputs, n = prepared
                    for offset, reply in enumerate(self._generate(inputs, n, time.perf_counter())):
                        yield done + offset, reply
                    done += n
            finally:
                for future in ahead:
                    future.cancel()

    def _generate(self, inputs, n: int, start: float) -> list[Reply]:
        inputs = inputs.to(self.model.device, dtype=self.model.dtype)
        try:
            with self._torch.inference_mode():
                output = self.model.generate(**inputs, do_sample=False, num_beams=1,
                                             max_new_tokens=self.max_new_tokens)
        except self._torch.OutOfMemoryError as exc:  # too large for this device: retried on the next run
            return [Reply(None, error=f"OutOfMemoryError: {first_line(exc)}"[:300])] * n
        texts = self.processor.batch_decode(output[:, inputs["input_ids"].shape[1]:], skip_special_tokens=True)
        latency = (time.perf_counter() - start) / n
        return [Reply(text.strip(), latency=latency) for text in texts]

    def close(self) -> None:
        del self.model
        if self._torch.cuda.is_available():
            self._torch.cuda.empty_cache()
