"""Traces read as what the reasoning options say (a careful review of the default build): crumbs
shrunk by the difficulty's trace scale are still separate crumbs, not one brown blot, and no
trace is drawn by an object of which its implied event is false (tyre tracks leading away from a
ship "so it was driven", crumbs beside a dog bone "so someone has been eating it")."""

from __future__ import annotations

import numpy as np
import pytest

from dicobench.editors.scene import traces
from dicobench.kit.scene.difficulty import EXTREME, HARD
from dicobench.kit.scene.model import PlacedObject, Trace
from dicobench.kit.scene.random_scenes import SceneConfig
from dicobench.kit.scene.render import trace_patch
from dicobench.sources.procedural import edited_scenes
from dicobench.tasks import difference_reasoning

ndimage = pytest.importorskip("scipy.ndimage")


def _specks(length: int, seed: int, scale: float) -> tuple[int, float]:
    """How many separate specks a crumbs trace's coverage holds, and the largest one's share of it."""
    alpha = trace_patch(Trace("crumbs", 0, 0, length=length, seed=seed, scale=scale)).alpha
    labels, count = ndimage.label(alpha > 0.15)
    sizes = np.bincount(labels.ravel())[1:]
    return count, float(sizes.max() / sizes.sum())


@pytest.mark.parametrize("scale", [HARD.trace_scale, EXTREME.trace_scale, 0.2])
def test_scaled_crumbs_are_separate_specks(scale):
    # the lengths `traces._place_surface_trace` draws for this scale (its shortest is 20 px)
    lengths = sorted({max(20, round(n * scale)) for n in range(50, 80)})
    for length in lengths:
        counts, largest = zip(*(_specks(length, seed, scale) for seed in range(12)))
        assert min(counts) >= 5, (length, counts)  # scattered crumbs, never one blot
        assert max(largest) <= 0.4, (length, largest)  # no speck holds much of the scatter (a blot: 0.8-0.95)


def _obj(name: str) -> PlacedObject:
    return PlacedObject(uid=1, name=name, colour="red", size=60, cx=100, cy=100)


def test_audited_traces_imply_events_true_of_their_objects():
    def kinds(name: str, version: str) -> set[str]:
        return {k.name for k in traces.kinds_for(_obj(name), version)}

    for name in ("ship", "sailboat", "rocket", "helicopter", "airplane", "sleigh", "stroller", "bicycle"):
        assert "tyre_tracks" not in kinds(name, "audited"), name  # not driven on tyres
    for name in ("car", "bus", "truck", "tractor", "motorcycle"):
        assert "tyre_tracks" in kinds(name, "audited"), name
    assert "crumbs" not in kinds("bone", "audited") and "crumbs" in kinds("bread slice", "audited")
    # the first release's catalogue keeps its kinds (and its rows their draws)
    assert "tyre_tracks" in kinds("ship", "first-release") and "crumbs" in kinds("bone", "first-release")


def test_hard_reasoning_rows_draw_no_trace_whose_event_is_false():
    cfg = SceneConfig.from_difficulty(HARD)
    seen = 0
    for seed in range(6):
        try:
            _, edits, _ = edited_scenes(difference_reasoning.propose, np.random.default_rng(seed), cfg)
        except Exception:  # a seed that gives no row (too few edits, no room for decoys)
            continue
        for edit in edits:
            seen += 1
            assert edit.kind != "tyre_tracks" or edit.subject in traces.DRIVEN, edit.text
            assert edit.kind != "crumbs" or edit.subject not in traces.NOT_EATEN, edit.text
    assert seen >= 8
