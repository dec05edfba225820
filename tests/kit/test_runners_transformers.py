"""The transformers runner on a tiny random LLaVA: left padding, batch-size invariance, options."""

import pytest
from PIL import Image
from tiny_vlm import build_tiny_llava

from dicobench.kit.errors import UserError
from dicobench.kit.eval.runners import load_runner

pytest.importorskip("torch")


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    return build_tiny_llava(tmp_path_factory.mktemp("tiny") / "llava")


def prompts():
    """Three two-image prompts of different lengths, so a batch needs padding."""
    colours = [(200, 30, 30), (30, 200, 30), (30, 30, 200)]
    out = []
    for i, colour in enumerate(colours):
        a, b = Image.new("RGB", (1900, 1400), colour), Image.new("RGB", (1400, 1900), colour[::-1])
        text = "What is the difference between the two images?" + " Options: A. a red cup moved" * (i + 1)
        out.append(["Image 1:", a, "Image 2:", b, text])
    return out


def test_answers_do_not_depend_on_the_batch_size(tiny):
    with load_runner(f"hf:{tiny}", batch_size=3, max_new_tokens=8) as runner:
        inputs = runner.encode(prompts())
        mask = inputs["attention_mask"]
        assert (mask[:, -1] == 1).all() and (mask[:, 0] == 0).any()  # padded, on the left
        together = runner.generate(prompts())
        alone = [runner.generate([p])[0] for p in prompts()]
    assert [r.text for r in together] == [r.text for r in alone]
    assert all(r.error is None and r.latency > 0 for r in together)
    assert any(r.text for r in together)  # the model generated something to compare


def test_options_of_the_wrong_backend_or_unsupported_are_refused(tiny):
    with pytest.raises(UserError, match="max_pixels"):
        load_runner(f"hf:{tiny}", max_pixels=512 * 512)  # CLIP's processor has no pixel budget
    with pytest.raises(UserError, match="--api-key"):
        load_runner(f"hf:{tiny}", api_key="sk-x")
    with pytest.raises(UserError, match="cannot load a processor"):
        load_runner(f"hf:{tiny}/missing")
    with pytest.raises(UserError, match="unknown model"):
        load_runner("llama:7b")


def test_loading_options_reach_from_pretrained(tiny):
    import torch

    with load_runner(f"hf:{tiny}", dtype="bfloat16", device_map="cpu", attn_implementation="eager",
                     trust_remote_code=True, model_args="use_safetensors=true") as runner:
        assert runner.model.dtype == torch.bfloat16 and runner.model.device.type == "cpu"
        assert runner.model.config._attn_implementation == "eager"
        reply = runner.generate(prompts()[:1])[0]
        assert reply.error is None and isinstance(reply.text, str)
    with load_runner(f"hf:{tiny}", model_args="attn_implementation=sdpa") as runner:
        assert runner.model.config._attn_implementation == "sdpa" and runner.model.dtype == torch.float32
    with pytest.raises(UserError, match="--dtype 'float99'"):
        load_runner(f"hf:{tiny}", dtype="float99")
    with pytest.raises(UserError, match="--model-args"):
        load_runner(f"hf:{tiny}", model_args="no_equals_sign")


def test_model_args_are_read_like_lmms_eval():
    from dicobench.kit.eval.runners.transformers_runner import parse_model_args

    assert parse_model_args("a=1, b=0.5,c=true,d=None,e=flash_attention_2") == \
        {"a": 1, "b": 0.5, "c": True, "d": None, "e": "flash_attention_2"}


def test_stream_prepares_batches_ahead_and_answers_as_generate_does(tiny):
    built = []

    def lazily():  # the stream pulls prompts from a worker thread, ahead of generation
        import threading

        for p in prompts():
            built.append(threading.current_thread().name)
            yield p

    with load_runner(f"hf:{tiny}", batch_size=2, max_new_tokens=6) as runner:
        streamed = dict(runner.stream(lazily()))
        direct = runner.generate(prompts()[:2]) + runner.generate(prompts()[2:])
    assert sorted(streamed) == [0, 1, 2]
    assert [streamed[i].text for i in range(3)] == [r.text for r in direct]
    assert all(name.startswith("preprocess") for name in built)
    assert runner.input_wait >= 0
