import json

import numpy as np
import pytest

skdata = pytest.importorskip("skimage.data")
cv2 = pytest.importorskip("cv2")

from photo_fixtures import ASTRONAUT, OTHERS, POLICY, TWINS, png, write_source  # noqa: E402

from dicobench.checks import MIN_VISIBLE_PIXELS, VISIBLE_STEP, Reason, Rejected  # noqa: E402
from dicobench.generate import (
    BuildOptions,  # noqa: E402
    row_from_seed,  # noqa: E402
)
from dicobench.kit.io.imageio import decode  # noqa: E402
from dicobench.kit.photos.sources import FolderSource  # noqa: E402
from dicobench.kit.scene.geometry import apart  # noqa: E402
from dicobench.schema import LETTERS, NONE_OPTIONS  # noqa: E402
from dicobench.sources.photo_commonality import (  # noqa: E402  # noqa: E402
    Photos,
    category_proposal,
    choose_candidates,
    instance_proposal,
    name_index,
)

OPTS = BuildOptions(photos=POLICY)
TASKS = ("instance", "category")
SHARING = {"instance": instance_proposal.sharing, "category": category_proposal.sharing}


@pytest.fixture(scope="module")
def sources(tmp_path_factory):
    return {kind: write_source(tmp_path_factory.mktemp(kind), twin) for kind, twin in TWINS.items()}


@pytest.fixture(scope="module")
def rows(sources):
    """Per task, one seed's rows for every letter (the seed: the first the E row accepts)."""
    out = {}
    for task in TASKS:
        for seed in range(10):
            try:
                none, _ = row_from_seed(task, seed, "E", OPTS, sources["full"])
            except Rejected:
                continue
            out[task] = {"E": none, **{L: row_from_seed(task, seed, L, OPTS, sources["full"])[0] for L in LETTERS[:4]}}
            break
    return out


def index_of(source, photo_id: str) -> int:
    return [source.photo_id(i) for i in range(len(source))].index(photo_id)


def box_mask(shape, box) -> np.ndarray:
    out = np.zeros(shape[:2], bool)
    x, y, w, h = box
    out[y : y + h, x : x + w] = True
    return out


def shadowed(before, after):
    """Pixels that `after` only darkens, every channel alike (a shadow, not an object)."""
    ratio = (after.astype(float) + 1) / (before.astype(float) + 1)
    return (ratio.max(axis=2) - ratio.min(axis=2) < 0.04) & (ratio.max(axis=2) <= 1.0)


@pytest.mark.parametrize("task", TASKS)
def test_every_letter_asks_the_same_question_and_only_the_answer_changes_image_b(task, rows, sources):
    by_letter = rows[task]
    none = by_letter["E"]
    photo_a_id, photo_b_id = none["source"].split("|")[:2]
    assert photo_a_id in ("folder:astronaut.png", "folder:twin.png") and photo_b_id.removeprefix("folder:") in OTHERS
    photo_b = sources["full"].load(index_of(sources["full"], photo_b_id))
    b_none = decode(none["image_b"]["bytes"])
    assert np.array_equal(b_none.shape, photo_b.pixels.shape)
    names = [o.removeprefix("The same ").removeprefix("A ").removesuffix(" is in both images.")
             for o in none["options"][:4]]
    assert set(names) <= set(ASTRONAUT) | {"star"} and none["options"][4] == NONE_OPTIONS["commonality"]
    if photo_a_id == "folder:astronaut.png":
        assert "star" not in names  # two stars in image a: "the star" would be ambiguous
    assert none["cues"] == [] and none["changed_area"] == 0.0
    spots = []
    for k, letter in enumerate(LETTERS[:4]):
        row = by_letter[letter]
        assert (row["answer"], row["task"], row["track"]) == (letter, task, "commonality")
        for key in ("options", "image_a", "source", "generator", "changed_area"):
            assert row[key] == none[key], key
        cue_a, cue_b = row["cues"]
        assert (cue_a["image"], cue_b["image"]) == (0, 1) and cue_a["label"].startswith(names[k] + ":")
        # image b is the E pair's but inside the answer's cue box, where it visibly differs
        b = decode(row["image_b"]["bytes"])
        diff = (b != b_none).any(axis=2)
        assert not (diff & ~box_mask(b.shape, cue_b["bbox"])).any()
        step = np.abs(b.astype(int) - b_none.astype(int)).max(axis=2)
        assert (step >= VISIBLE_STEP).sum() >= MIN_VISIBLE_PIXELS
        assert all(apart(cue_b["bbox"], o.box, 1) for o in photo_b.objects)
        spots.append(cue_b["bbox"])
        # the shared object takes the stand-in's place: no more than a few of its pixels stay (its contact
        # shadow, a darkening of the ground alike for every insert of its size, may stay)
        stand_in = ((b_none != photo_b.pixels).any(axis=2) & box_mask(b.shape, cue_b["bbox"])
                    & ~shadowed(photo_b.pixels, b_none))
        assert (stand_in & ~diff).sum() <= 0.02 * stand_in.sum() + 5  # and feathered edges over it
    assert all(apart(s, t, 1) for i, s in enumerate(spots) for t in spots[i + 1 :])
    # the E pair's image b holds a stand-in at every spot, and is the bare photo elsewhere
    changed = (b_none != photo_b.pixels).any(axis=2)
    held = np.zeros(changed.shape, bool)
    for spot in spots:
        assert changed[box_mask(changed.shape, spot)].sum() >= MIN_VISIBLE_PIXELS
        held |= box_mask(changed.shape, spot)
    assert not (changed & ~held).any()


@pytest.mark.parametrize("task", TASKS)
def test_the_same_seed_gives_the_same_bytes(task, rows, sources, tmp_path):
    seed = rows[task]["A"]["seed"]
    again = write_source(tmp_path, TWINS["full"])  # another source object: its own name index
    assert row_from_seed(task, seed, "B", OPTS, again)[0] == rows[task]["B"]


def best_match(template: np.ndarray, image: np.ndarray, box) -> float:
    """The best normalised correlation of `template`, at 0.6-1.1 times its size, around `box`."""
    x, y, w, h = box
    best = -1.0
    for scale in np.linspace(0.6, 1.1, 26):
        t = cv2.resize(template, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
        pad = max(t.shape) // 2 + 4
        region = image[max(y - pad, 0) : y + h + pad, max(x - pad, 0) : x + w + pad]
        best = max(best, float(cv2.matchTemplate(region, t, cv2.TM_CCOEFF_NORMED).max()))
    return best


def test_instance_puts_image_as_very_object_into_the_written_image_b(rows):
    def grey(row, key):
        return cv2.cvtColor(decode(row[key]["bytes"]), cv2.COLOR_RGB2GRAY)

    by_letter = rows["instance"]
    a, none_b = grey(by_letter["E"], "image_a"), grey(by_letter["E"], "image_b")
    for letter in LETTERS[:4]:
        cue_a, cue_b = by_letter[letter]["cues"]
        x, y, w, h = cue_a["bbox"]
        template = a[y : y + h, x : x + w]
        # there in the answer's image b; the E pair's stand-in (the twin's object) matches worse
        found = best_match(template, grey(by_letter[letter], "image_b"), cue_b["bbox"])
        assert found > max(0.7, best_match(template, none_b, cue_b["bbox"]))


def names_by_box(source) -> dict:
    """(photo id, box as loaded) -> normalised name, for every annotated object."""
    out = {}
    for i in range(len(source)):
        photo = source.load(i)
        out.update({(photo.id, o.box): o.name.strip().lower() for o in photo.objects})
    return out


def candidates_for(task, source, seed=0):
    index = name_index(source)
    photos = Photos(source, index, index_of(source, "folder:astronaut.png"), index_of(source, "folder:coffee.png"))
    return choose_candidates(np.random.default_rng(seed), SHARING[task], photos), index.names[photos.p]


@pytest.mark.parametrize("kind", ["full", "lacking"])
def test_instance_shares_the_object_itself_beside_same_named_decoys(sources, kind):
    names = names_by_box(sources[kind])
    twin = TWINS[kind]
    index = name_index(sources[kind])
    astronaut, twin_index = index_of(sources[kind], "folder:astronaut.png"), index_of(sources[kind], "folder:twin.png")
    assert "star" in index.names[astronaut] and "star" not in index.option_names(SHARING["instance"], astronaut)
    assert ("star" in index.option_names(SHARING["instance"], twin_index)) == (kind == "full")
    cands, p_names = candidates_for("instance", sources[kind])
    assert len(cands) == 4
    for cand in cands:
        (shared_id, shared_box), (stand_in_id, stand_in_box) = cand.cut_from
        assert (shared_id, shared_box) == ("folder:astronaut.png", cand.box_a)
        if cand.name in twin:  # a decoy: the twin's object of the same name
            assert stand_in_id == "folder:twin.png" and names[(stand_in_id, stand_in_box)] == cand.name
        else:  # no other instance anywhere: an unrelated stand-in
            assert stand_in_id not in ("folder:astronaut.png", "folder:coffee.png", "folder:twin.png")
            assert names[(stand_in_id, stand_in_box)] not in p_names
    assert kind == "full" or "wrist ring" in {c.name for c in cands}


def test_category_shares_another_instance_beside_unrelated_stand_ins(sources):
    names = names_by_box(sources["full"])
    cands, p_names = candidates_for("category", sources["full"])
    assert len(cands) == 4
    stand_ins = set()
    for cand in cands:
        (shared_id, shared_box), (stand_in_id, stand_in_box) = cand.cut_from
        assert shared_id == "folder:twin.png" and names[(shared_id, shared_box)] == cand.name
        assert stand_in_id not in ("folder:astronaut.png", "folder:coffee.png")
        assert names[(stand_in_id, stand_in_box)] not in p_names
        stand_ins.add((stand_in_id, stand_in_box))
    assert len(stand_ins) == 4  # each stand-in inserted once


@pytest.mark.parametrize("kind", ["lacking", "tiny"])
def test_category_rejects_names_without_another_usable_instance(sources, kind):
    for seed in range(3):
        with pytest.raises(Rejected) as info:
            row_from_seed("category", seed, "A", OPTS, sources[kind])
        assert info.value.reason == Reason("check", "too_few_candidates")
    # the same photos still make instance rows: only category needs other instances
    made = []
    for seed in range(10):
        try:
            made.append(row_from_seed("instance", seed, "A", OPTS, sources[kind])[0])
            break
        except Rejected:
            continue
    assert made and made[0]["task"] == "instance"


def test_unreadable_photos_are_rejected_with_a_reason(tmp_path):
    (tmp_path / "bad.png").write_bytes(b"\x89PNG truncated")
    (tmp_path / "coffee.png").write_bytes(png(skdata.coffee()))
    (tmp_path / "annotations.jsonl").write_text(json.dumps(
        {"file": "bad.png", "objects": [{"name": n, "box": b} for n, b in ASTRONAUT.items()]}))
    with pytest.raises(Rejected) as info:
        row_from_seed("instance", 0, "A", OPTS, FolderSource(tmp_path, POLICY))
    assert info.value.reason == Reason("skipped", "unreadable")


def test_build_offers_the_photo_commonality_tasks_and_keeps_splits_apart(tmp_path):
    from datasets import load_dataset

    from dicobench.build import build
    from dicobench.kit.errors import UserError

    photos = tmp_path / "photos"
    photos.mkdir()
    write_source(photos, TWINS["full"])
    common = dict(source=f"folder:{photos}", per_task=2, upscale=True, min_long_side=768, num_proc=1, progress=False)
    out = build(tmp_path / "b", tasks="instance,category", **common)
    ds = load_dataset(str(out), "all", split="test")
    assert len(ds) == 4 and all(len(s.split("|")) >= 2 for s in ds["source"])
    # a train split beside it may not reuse any photo of a test row, wherever it appears in `source`
    with pytest.raises(UserError, match="splits must not share"):
        build(out, tasks="instance", split="train", **common)
    # photos without names give only the difference track
    bare = tmp_path / "bare"
    bare.mkdir()
    (bare / "astronaut.png").write_bytes(png(skdata.astronaut()))
    with pytest.raises(UserError, match="not available from this source"):
        build(tmp_path / "c", tasks="category", **{**common, "source": f"folder:{bare}"})


def test_a_reference_editor_blends_every_insert_in(sources, rows, tmp_path):
    """With FLUX.2 Klein (a tiny random one here) every cut-out, shared or stand-in, is blended
    in with its own crop as the reference; an editor without references leaves rows as they were."""
    pytest.importorskip("diffusers")
    from tiny_diffusers import BUILDERS, KLEIN_OUT_LAYERS, Spy

    from dicobench.editors.models import Backends
    from dicobench.editors.photo.diffusers_editor import Flux2KleinInpaintEditor, StableDiffusionInpaintEditor

    seed = rows["instance"]["E"]["seed"]

    spy = Spy(BUILDERS["Flux2KleinInpaintPipeline"](tmp_path))
    sd = BUILDERS["StableDiffusionInpaintPipeline"](tmp_path)
    klein = Flux2KleinInpaintEditor(spy, size=64, steps=2, call_kwargs={"text_encoder_out_layers": KLEIN_OUT_LAYERS})
    row, _ = row_from_seed("instance", seed, "B", OPTS, sources["full"], Backends(editor=klein))
    assert row["generator"].endswith("cut-outs blended in by Flux2KleinInpaintPipeline from reference images")
    # 4 spots x (shared, stand-in)
    assert len(spy.calls) == 8 and all(len(c["image_reference"]) == 1 for c in spy.calls)
    assert row["options"] == rows["instance"]["B"]["options"] and row["image_a"] == rows["instance"]["B"]["image_a"]
    blended = decode(row["image_b"]["bytes"])
    plain = decode(rows["instance"]["B"]["image_b"]["bytes"])
    assert not np.array_equal(blended, plain)
    # as without the editor, the answer's image b differs from E's only inside the answer's cue box
    none, _ = row_from_seed("instance", seed, "E", OPTS, sources["full"], Backends(editor=klein))
    diff = (blended != decode(none["image_b"]["bytes"])).any(axis=2)
    assert diff.any() and not (diff & ~box_mask(diff.shape, row["cues"][1]["bbox"])).any()
    no_refs = StableDiffusionInpaintEditor(sd, size=64, steps=2)
    assert row_from_seed("instance", seed, "B", OPTS, sources["full"],
                         Backends(editor=no_refs))[0] == rows["instance"]["B"]
