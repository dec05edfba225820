from collections import Counter

import pytest

from dicobench.kit.scene.catalogue import by_name
from dicobench.sources.relations import KINDS, RELATIONS, partners, related, statement


def test_every_member_is_a_catalogue_object_and_each_kind_has_eight_pairs():
    assert {n for r in RELATIONS for n in (r.x, r.y)} <= set(by_name())
    counts = Counter(r.kind for r in RELATIONS)
    assert set(counts) == set(KINDS) and min(counts.values()) >= 8
    assert all(r.verb for r in RELATIONS if r.kind in ("supply", "embedding"))


def test_each_pair_is_listed_once_in_either_direction():
    pairs = [frozenset((r.x, r.y)) for r in RELATIONS]
    assert len(set(pairs)) == len(pairs) and all(len(p) == 2 for p in pairs)


def test_lookup_works_both_ways():
    for rel in RELATIONS:
        assert related(rel.x, rel.y) is rel and related(rel.y, rel.x) is rel
        assert rel.y in partners(rel.x) and rel.x in partners(rel.y)
    assert related("key", "dog") is None and related("padlock", "padlock") is None
    assert related("padlock", "key").kind == "combination" and related("phone", "SIM card").kind == "embedding"


@pytest.mark.parametrize("image_of_x", [1, 2])
def test_statements_name_each_object_with_its_image(image_of_x):
    for rel in RELATIONS:
        text = statement(rel, image_of_x)
        assert (f"the {rel.x} in image {image_of_x}".lower() in text.lower()
                and f"the {rel.y} in image {3 - image_of_x}".lower() in text.lower())
        assert text[0].isupper() and text.endswith(".")
    # symmetric kinds always read image 1 first; directed ones keep their direction
    assert statement(related("key", "padlock"), 2) == "The key in image 2 opens the padlock in image 1."
    assert (statement(related("pencil", "ruler"), 2)
            == "The ruler in image 1 and the pencil in image 2 are used together.")
    assert statement(related("battery", "radio"), 2) == "The battery in image 2 powers the radio in image 1."
