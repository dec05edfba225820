"""Difficulty descriptors: exact on hand-made pairs, recorded per row and summarised in the card."""

import json

import numpy as np

from dicobench import descriptors
from dicobench.descriptors import commonality, difference, shrink, summary
from dicobench.kit.scene.model import PlacedObject, Scene


def _pair(side: int, spot: int, step: int):
    a = np.full((side, side, 3), 100, np.uint8)
    b = a.copy()
    b[10 : 10 + spot, 20 : 20 + spot] = 100 + step
    return a, b


def test_a_small_change_is_visible_at_full_size_and_gone_when_shrunk():
    a, b = _pair(2048, 4, 40)  # 16 px changed by 40 levels
    d = difference(a, b, [{"image": 1, "bbox": [20, 10, 4, 4], "label": "x"}])
    assert d["changed_pixels"] == 16 and d["visible"] == 16 and d["contrast"] == 40
    assert d["cue_share"] == 16 / 2048**2
    # 2x2 boxes keep the full step on 4 pixels; ~4.6 px boxes average it below the threshold
    assert d["visible_at"] == {"448": 0, "1024": 4, "2048": 16}


def test_a_faint_change_is_counted_but_not_visible():
    a, b = _pair(1000, 40, 20)
    d = difference(a, b, [])
    assert d["changed_pixels"] == 1600 and d["visible"] == 0 and d["cue_share"] == 0
    assert shrink(a, 448).shape == (448, 448, 3) and shrink(a, 2048) is a


def test_commonality_counts_decoys_of_the_shared_objects_kind_and_colour():
    from dicobench.kit.scene.render import footprint

    def obj(uid, name, colour, cx):
        return PlacedObject(uid=uid, name=name, colour=colour, size=40, cx=cx, cy=100)

    a = Scene(800, 600, "wood", 0, "neutral", 1,
              (obj(0, "car", "red", 100), obj(1, "bus", "red", 300), obj(2, "mug", "blue", 500)))
    b = Scene(800, 600, "paper", 0, "neutral", 2, (obj(0, "car", "red", 200), obj(1, "truck", "green", 400)))
    cues = [{"image": 0, "bbox": list(footprint(a.objects[0]))}, {"image": 1, "bbox": list(footprint(b.objects[0]))}]
    d = commonality((a, b), cues, footprint)
    assert d["objects"] == 5 and d["same_kind"] == 2 and d["same_colour"] == 1  # bus, truck; bus
    assert d["nearest_kind_colour"] == 0.0  # the red bus
    assert d["shared_size"] == max(footprint(a.objects[0])[2:])
    assert commonality((a, b), [], footprint)["same_kind"] == 0


def test_summary_takes_medians_per_track():
    rows = [{"cue_share": s, "changed_pixels": s, "contrast": 1.0, "visible": s,
             "visible_at": {str(v): s for v in descriptors.VIEW_SIDES}} for s in (1, 5, 9)]
    out = summary(rows + [{}])
    assert out["rows"] == 3 and out["visible_min"] == 1 and out["visible_1024_median"] == 5
    assert "objects_median" not in out  # photo rows have no scene to count
    scened = summary([{**r, "objects": n, "namesakes": k} for r, n, k in zip(rows, (100, 150, 160), (0, 2, 1))])
    assert scened["objects_median"] == 150 and scened["namesake_share"] == 2 / 3
    assert summary([{}]) == {"rows": 0}


def test_clutter_counts_the_objects_and_the_changed_objects_namesakes():
    objs = tuple(PlacedObject(uid=i, name=n, colour="red", size=30, cx=50 * i + 40, cy=40)
                 for i, n in enumerate(["mug", "mug", "mug", "car"]))
    scene = Scene(width=400, height=100, background="wood", variant=0, tint="neutral", texture_seed=0, objects=objs)
    assert descriptors.clutter(scene, "mug") == {"objects": 4, "namesakes": 2}
    assert descriptors.clutter(scene, "car") == {"objects": 4, "namesakes": 0}
    assert descriptors.clutter(scene, "kite")["namesakes"] == 0  # an object that appears


def test_builds_record_descriptors_per_row_and_in_the_card(tmp_path):
    from dicobench import build

    out = build(tmp_path / "b", per_task=2, tasks="attribute,category", num_proc=1, progress=False, difficulty="easy")
    stats = [json.loads(p.read_text()) for p in sorted(out.glob("*/.stats/*.json"))]
    by_task = {s["task"]: s["descriptors"] for s in stats}
    for task, rows in by_task.items():
        assert len(rows) == 2
        for d in rows:
            assert d == {} or ({"visible", "objects", "namesakes"} <= set(d) if task == "attribute"
                               else "shared_size" in d)
    attribute = [d for d in by_task["attribute"] if d]
    assert attribute and all(d["visible"] >= 150 for d in attribute)
    card = (out / "README.md").read_text()
    assert "### Difficulty" in card and "Preset `easy`" in card and "visible @1024" in card
    assert "| namesake |" in card and "| 0% |" in card  # easy scenes name every object once


def test_the_cue_region_gives_the_counts_of_the_whole_image():
    rng = np.random.default_rng(1)
    a = rng.integers(0, 255, (1242, 1988, 3), dtype=np.uint8)
    b = a.copy()
    b[400:431, 700:733] = rng.integers(0, 255, (31, 33, 3), dtype=np.uint8)
    cues = [{"image": 0, "bbox": [698, 399, 37, 34]}, {"image": 1, "bbox": [700, 400, 33, 31]}]
    fast, whole = difference(a, b, cues), difference(a, b, [])
    assert fast["visible_at"] == whole["visible_at"] and fast["visible"] == whole["visible"] > 0
    assert fast["changed_pixels"] == whole["changed_pixels"] and fast["contrast"] == whole["contrast"]
    assert all(descriptors.visible_pixels(descriptors.shrink(a, s), descriptors.shrink(b, s))
               == whole["visible_at"][str(s)]
               for s in descriptors.VIEW_SIDES)


def test_the_card_table_keeps_its_columns_when_some_rows_have_no_scene():
    from dicobench.card import _difficulty_section

    base = {"cue_share": 0.001, "changed_pixels": 10, "contrast": 30.0, "visible": 200,
            "visible_at": {str(s): s for s in descriptors.VIEW_SIDES}}
    stats = {"attribute": [{"descriptors": [dict(base, objects=100, namesakes=1)]}],
             "entity": [{"descriptors": [base]}]}  # e.g. rows written before scenes were described
    table = [line for line in _difficulty_section({"source": "procedural"}, stats)
             if line.startswith("|")][0].splitlines()
    widths = {line.count("|") for line in table}
    assert len(widths) == 1
    assert table[2].endswith("| 100 | 100% | 1 |") and table[3].endswith("| - | - | 1 |")
