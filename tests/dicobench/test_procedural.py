"""The procedural proposers' early checks give the verdict the row's own checks give."""

import dataclasses

import numpy as np
import pytest

from dicobench.checks import Rejected, check_difference_pixels, check_options
from dicobench.kit.scene.difficulty import HARD
from dicobench.kit.scene.geometry import bounding
from dicobench.kit.scene.random_scenes import SceneConfig, random_scene, with_same_kind
from dicobench.kit.scene.render import render, render_edit
from dicobench.sources.procedural import check_edits_first, cue_dicts, cue_objects, shown
from dicobench.tasks import attribute, entity
from dicobench.tasks.registry import get_task


def _verdict(check):
    try:
        check()
    except Rejected as rej:
        return rej.reason.code
    return None


def test_edits_checked_on_their_boxes_alone_get_the_whole_images_verdict():
    # hard's surfaces at a small canvas: several of these seeds' edits are too faint to see
    cfg = SceneConfig.from_difficulty(dataclasses.replace(HARD, min_canvas=512, max_canvas=560))
    spec = get_task("attribute")
    verdicts = []
    for seed in range(6):
        rng = np.random.default_rng(seed)
        base = random_scene(rng, cfg)
        base = with_same_kind(rng, base, cfg, cue_objects(base, cfg))
        edits = attribute.propose(rng, base, cfg)

        def whole():  # what make_row checks first, on the whole images the proposer renders
            pixels_a = render(base)
            check_options([e.text for e in edits] + [spec.none_option], [e.subject for e in edits], spec.none_option)
            for e in edits:
                image_b = render_edit(pixels_a, e.scene, list(e.dirty))
                check_difference_pixels(pixels_a, image_b, False, cue_dicts(e.cues), within=bounding(e.dirty))

        first = _verdict(lambda: check_edits_first(spec, base, edits))
        assert first == _verdict(whole), seed
        verdicts.append(first)
    assert None in verdicts and "change_not_visible" in verdicts


def test_rows_of_hidden_changes_take_only_changes_that_pass_the_pixel_checks():
    """A look-alike replacement in its own colour may change too few pixels to pass; a swap row
    passes over that object (`shown`) instead of losing the row to `change_not_visible`."""
    cfg = SceneConfig.from_difficulty(dataclasses.replace(HARD, min_canvas=512, max_canvas=560, swaps=1.0))
    spec, rows = get_task("entity"), 0
    for seed in range(8):
        rng = np.random.default_rng(seed)
        base = random_scene(rng, cfg)
        base = with_same_kind(rng, base, cfg, cue_objects(base, cfg))
        edits = entity.swap_rows(rng, base, cfg)
        if edits is not None:
            rows += 1
            assert _verdict(lambda: check_edits_first(spec, base, edits)) is None, seed
            unchanged = dataclasses.replace(edits[0], scene=base)
            assert shown(base, edits[0]) is edits[0] and shown(base, unchanged) is None and shown(base, None) is None
    assert rows >= 3


def test_candidates_are_drawn_afresh_as_their_scenes_render():
    """A row holds one candidate image at a time: each read of `image_b` draws it again, the
    same pixels as the candidate's whole scene rendered, and leaves image a as it was."""
    from dicobench.generate import BuildOptions

    # a small canvas, with as few objects as leave room for the decoys
    opts = BuildOptions(scene=SceneConfig.from_difficulty(dataclasses.replace(HARD, min_canvas=512, max_canvas=560,
                                                                              min_objects=30, max_objects=40,
                                                                              same_kind=10)))
    for task in ("attribute", "commonality_reasoning"):  # a difference and a commonality proposer
        spec = get_task(task)
        for seed in range(20):
            try:
                prop = spec.proposer("procedural")(spec, seed, opts)
            except Rejected:
                continue
            break
        else:
            pytest.fail(f"no {task} proposal in 20 seeds")
        image_a = prop.image_a.copy()
        for cand, scene in zip(prop.candidates, prop.views.scenes):
            first, again = cand.image_b, cand.image_b
            assert first is not again and np.array_equal(first, again)
            assert np.array_equal(first, render(scene))
        assert np.array_equal(prop.image_a, image_a), task


def test_a_commonality_pair_rejected_by_its_first_checks_is_never_drawn(monkeypatch):
    """Most category draws share something in their E pair (`none_pair_shares`): the proposer runs
    `make_row`'s first checks on the scenes, in its order, and draws only the pairs that pass."""
    from dicobench import sources
    from dicobench.generate import BuildOptions
    from dicobench.rows import make_row

    drawn = []
    monkeypatch.setattr(sources.procedural, "render", lambda scene, *a, **k: drawn.append(scene) or render(scene))
    opts = BuildOptions(scene=SceneConfig.from_difficulty(dataclasses.replace(HARD, min_canvas=1200, max_canvas=1250)))
    spec, early, passed = get_task("category"), [], []
    for seed in range(30):
        drawn.clear()
        try:
            prop = spec.proposer("procedural")(spec, seed, opts)
        except Rejected as rej:
            assert drawn == [], seed
            early.append(rej.reason.code)
            continue
        assert len(drawn) == 2
        passed.append(_verdict(lambda: make_row("category", seed, "A", prop, 1)))
    assert "none_pair_shares" in early and None in passed
    assert not {"none_pair_shares", "not_exactly_one_shared"} & set(passed)
