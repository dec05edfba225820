"""Model backends of photo builds: options, template plans, the VLM check on the stub server,
and whole builds with `verify` (classical edits) and with `--test-photos`."""

import json

import numpy as np
import pytest

skdata = pytest.importorskip("skimage.data")
pytest.importorskip("cv2")

from datasets import load_dataset  # noqa: E402

from dicobench.build import build  # noqa: E402
from dicobench.editors.instructions import EditVerifier  # noqa: E402
from dicobench.editors.models import Backends, ModelOptions  # noqa: E402
from dicobench.editors.photo.instructed import TARGET_COLOURS, template_plan  # noqa: E402
from dicobench.kit.errors import UserError  # noqa: E402
from dicobench.kit.eval.chat import ChatClient  # noqa: E402
from dicobench.kit.photos.model import SizePolicy  # noqa: E402
from dicobench.kit.photos.sources import FolderSource  # noqa: E402
from dicobench.sources.photo_difference import choose_edits, remove  # noqa: E402
from tests.openai_stub import StubServer  # noqa: E402

SECRET = "sk-never-written-4242"


@pytest.fixture(scope="module")
def photos(tmp_path_factory):
    from PIL import Image

    root = tmp_path_factory.mktemp("photos")
    for name in ("astronaut", "coffee", "chelsea"):
        Image.fromarray(getattr(skdata, name)()).save(root / f"{name}.png")
    return root


@pytest.mark.parametrize("kwargs, message", [
    ({"editor": "flux"}, "unknown editor"),
    ({"editor": "diffusers:"}, "unknown editor"),
    ({"instructions": "gpt-4o"}, "unknown --instructions"),
    ({"verify": "anthropic:x"}, "unknown --verify"),
    ({"instructions": "openai:gpt-4o"}, "give --editor"),
    ({"edit_steps": 4}, "needs --editor"),
    ({"editor": "diffusers:x", "edit_size": 0}, "positive"),
])
def test_bad_model_options_are_one_line_errors(kwargs, message):
    with pytest.raises(UserError, match=message):
        ModelOptions(**kwargs).check()


def test_model_options_need_a_photo_source(tmp_path):
    with pytest.raises(UserError, match="apply to photo sources"):
        build(tmp_path / "x", verify="openai:m", progress=False)
    with pytest.raises(UserError, match="apply to photo sources"):
        build(tmp_path / "x", test_photos=0.2, progress=False)


def test_template_plans_say_what_they_ask():
    rng = np.random.default_rng(0)
    colours = {template_plan(rng, "attribute", "cup", "dark red").colour for _ in range(40)}
    assert colours <= set(TARGET_COLOURS) - {"red"} and len(colours) > 2
    plan = template_plan(rng, "entity", "cup", "red")
    assert plan.option == "The cup disappeared." and "Remove the cup" in plan.instruction and plan.colour is None
    trace = template_plan(rng, "difference_reasoning", "cup", "red")
    assert trace.option.endswith("appeared on the cup.") and trace.option.split()[-5] in trace.instruction
    with pytest.raises(ValueError):
        template_plan(rng, "spatial_relation", "cup", "red")


@pytest.mark.parametrize("first_reply", [("ok", '{"matches": false}'), ("ok", "I cannot tell"), ("500",)])
def test_an_edit_the_verifier_rejects_or_cannot_judge_is_not_used(photos, first_reply):
    pixels = FolderSource(photos, SizePolicy(1024, upscale=True)).load(0).pixels
    plain = choose_edits(np.random.default_rng(3), remove, pixels, (), count=5)  # removal draws nothing from the rng
    with StubServer(reply=lambda body: '{"matches": true}') as stub:
        stub.script.extend([first_reply] * (6 if first_reply == ("500",) else 1))  # a 500 is retried, then unjudged
        client = ChatClient("vlm", base_url=stub.base_url, api_key=SECRET, backoff=0.01, max_retries=5)
        checked = choose_edits(np.random.default_rng(3), remove, pixels, (),
                               backends=Backends(verifier=EditVerifier(client)))
        client.close()
    # the first region's edit is dropped and the next acceptable region takes its place
    assert [e.subject for e in checked] == [e.subject for e in plain[1:]]
    sent = stub.requests[0]["body"]["messages"][0]["content"]
    assert plain[0].text in sent[0]["text"] and len(sent) == 3  # the sentence, image before, image after


def test_verified_photo_build_records_it_and_never_writes_the_key(tmp_path, photos):
    with StubServer(reply=lambda body: '{"matches": true}') as stub:
        out = build(tmp_path / "b", source=f"folder:{photos}", tasks="entity,attribute", per_task=2, upscale=True,
                    num_proc=1, verify="openai:vlm", base_url=stub.base_url, api_key=SECRET, progress=False)
        sent = len(stub.requests)
        assert sent >= 16  # four options per row, each verified
        ds = load_dataset(str(out), "all", split="test")
        assert all("edits (OpenCV); verified by openai:vlm; camera a: " in g for g in ds["generator"])
        card = (out / "README.md").read_text()
        assert "checked by `openai:vlm`" in card
        manifest = json.loads((out / ".dicobench" / "test.json").read_text())
        assert manifest["models"]["verify"] == "openai:vlm" and "api_key" not in json.dumps(manifest)
        assert not [p for p in out.rglob("*") if p.is_file() and SECRET.encode() in p.read_bytes()]
        # a rerun of a lost shard against the same endpoint is answered from the shard's reply cache (keyed by
        # endpoint): nothing is sent, though the endpoint would now answer otherwise
        shard = sorted((out / "entity").glob("test-*.parquet"))[0]
        before = shard.read_bytes()
        shard.unlink()
        stub.reply, stub.requests = (lambda body: '{"matches": false}'), []
        build(out, source=f"folder:{photos}", tasks="entity,attribute", per_task=2, upscale=True, num_proc=1,
              verify="openai:vlm", base_url=stub.base_url, api_key=SECRET, progress=False)
        assert stub.requests == []
    assert shard.read_bytes() == before


def test_test_photos_keep_the_splits_apart(tmp_path):
    from PIL import Image

    photos = tmp_path / "photos"
    photos.mkdir()
    for n in range(4):  # copies under four ids: the ids decide the split (0, 2, 3 test; 1 train)
        Image.fromarray(skdata.astronaut()).save(photos / f"astronaut-{n}.png")
    common = dict(source=f"folder:{photos}", tasks="entity", per_task=2, upscale=True, num_proc=1, progress=False,
                  test_photos=0.5)
    out = build(tmp_path / "b", split="test", **common)
    build(out, split="train", **common)  # would be refused if any train row reused a test photo
    test, train = (set(load_dataset(str(out), "entity", split=s)["source"]) for s in ("test", "train"))
    assert test <= {"folder:astronaut-0.png", "folder:astronaut-2.png", "folder:astronaut-3.png"}
    assert train == {"folder:astronaut-1.png"}
    assert "held out for the test split" in (out / "README.md").read_text()
    with pytest.raises(UserError, match="between 0 and 1"):
        build(tmp_path / "c", **{**common, "test_photos": 1.5})


def written(body) -> str:
    """An instruction writer: a distinct instruction per request, naming the subject it was given."""
    text = body["messages"][0]["content"][0]["text"]
    subject = text.split("The image shows a ")[1].split(" in its surroundings")[0]
    n = text.count("\n- ")
    return json.dumps({"instruction": f"replace the {subject} with pebble {n}",
                       "option": f"The {subject} became a pebble ({n})."})


def test_editor_build_with_llm_instructions(tmp_path, photos):
    pytest.importorskip("diffusers")
    from tiny_diffusers import save_tiny_pipeline

    model = save_tiny_pipeline("StableDiffusionInpaintPipeline", tmp_path)
    common = dict(source=f"folder:{photos}", tasks="entity,spatial_relation", per_task=2, upscale=True,
                  editor=f"diffusers:{model}", edit_steps=2, edit_size=64, instructions="openai:writer",
                  api_key=SECRET, progress=False)
    with StubServer(reply=written) as stub:
        out = build(tmp_path / "b", base_url=stub.base_url, **common)
        sent = len(stub.requests)
        entity = load_dataset(str(out), "entity", split="test")
        assert sent >= 2 * 4 * 6  # six instructions per edited region
        assert all(o.endswith(").") and "became a pebble" in o for row in entity["options"] for o in row[:4])
        assert all(f"entity edits by StableDiffusionInpaintPipeline ({model}) from openai:writer instructions" in g
                   for g in entity["generator"])
        moves = load_dataset(str(out), "spatial_relation", split="test")
        assert all("classical spatial_relation edits" in g for g in moves["generator"])  # a mask cannot move things
        assert all(" moved " in o for row in moves["options"] for o in row[:4])
        manifest = json.loads((out / ".dicobench" / "test.json").read_text())
        assert manifest["models"]["editor"] == f"diffusers:{model}" and SECRET not in json.dumps(manifest)
        assert list((out / ".dicobench" / "llm-cache" / "entity").iterdir())
        # same seed, same bytes: a lost shard comes back identical, its instructions from the cache
        shard = sorted((out / "entity").glob("test-*.parquet"))[0]
        before = shard.read_bytes()
        shard.unlink()
        stub.reply, stub.requests = (lambda body: "no"), []  # the same endpoint: its cache answers
        build(out, base_url=stub.base_url, **common)
        assert stub.requests == []
        assert shard.read_bytes() == before
