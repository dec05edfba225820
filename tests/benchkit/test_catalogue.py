from PIL import ImageFont

from benchkit.scene.catalogue import CURATED, by_name, font_path, load_catalogue


def test_every_curated_object_is_in_the_font_with_a_name_and_category():
    entries = load_catalogue()
    assert len(entries) == len(CURATED) >= 200
    assert len({e.category for e in entries}) >= 12
    for e in entries:
        assert e.name and e.category and "solid" in e.styles
        assert e.name.lower() not in e.synonyms


def test_glyphs_render_from_the_packaged_font():
    font = ImageFont.truetype(str(font_path("solid")), 64)
    for name in ("mug", "key", "padlock", "hammer", "dog", "bicycle"):
        left, top, right, bottom = font.getbbox(chr(by_name()[name].codepoint))
        assert right - left > 20 and bottom - top > 20, name
