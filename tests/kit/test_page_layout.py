"""The review and study pages fit the screen, in a real browser at 1600x1000 and 1280x720 (window
sizes; the page gets what the browser leaves): every control a person needs is inside the
viewport, nothing is clipped at the panel's edge, each image is fitted to its own pane, a
composite's subfigure labels do not overlap, a one-image page lists no comparison keys, `z` goes
to the cue, and no request fails (the favicon). The screenshots are kept in the test's folder."""

from __future__ import annotations

import pytest
from browser import chromium, wait_for

from dicobench.benchmark import BENCHMARK as DICOBENCH
from dicobench.kit.people.webapp.launch import review, study
from multipanelvqa.benchmark import BENCHMARK as MULTIPANELVQA
from multipanelvqa.build import build as build_multipanelvqa

pytest.importorskip("starlette")

SIZES = [(1600, 1000), (1280, 720)]

# every control shown: where it is, whether it is clipped by a scrolling panel, and whether it is
# one that must be in view without scrolling (the header's, the tools, the decision buttons, the answers)
CONTROLS = """
const must = 'header input, header select, .tools button, .actions button, #options.choose li, #free-text, #begin';
const out = [];
for (const el of document.querySelectorAll('button, input, select, textarea, ' + must)) {
  if (el.offsetParent === null) continue;
  const r = el.getBoundingClientRect(), panel = el.closest('aside');
  const p = panel ? panel.getBoundingClientRect() : {left: 0, right: innerWidth};
  out.push({name: el.id || el.textContent.trim().slice(0, 24), must: el.matches(must),
            inView: r.left >= 0 && r.top >= 0 && r.right <= innerWidth && r.bottom <= innerHeight,
            clipped: r.left < p.left || r.right > p.right});
}
return out;
"""


@pytest.fixture(scope="module")
def composites(tmp_path_factory):
    """Splash and grid layouts of seven and eight subfigures: long position words, close panels."""
    out = tmp_path_factory.mktemp("mpv") / "bench"
    build_multipanelvqa(out, layouts="5,6,139", configs="original", num_proc=1, progress=False)
    return out


def check_fits(driver, page: str) -> None:
    """The page's controls are all reachable, the ones a person needs in view; nothing scrolls sideways."""
    controls = driver.execute_script(CONTROLS)
    assert controls, page
    assert not [c["name"] for c in controls if c["must"] and not c["inView"]], (page, controls)
    assert not [c["name"] for c in controls if c["clipped"]], (page, controls)
    assert driver.execute_script("return document.documentElement.scrollWidth <= innerWidth"), page
    assert driver.execute_script("return [...document.querySelectorAll('aside')]"
                                 ".every(a => a.scrollWidth <= a.clientWidth)"), page


# every shown pane's image fills the pane's width or height, inside it, in its middle
FITTED = """viewer.visiblePanes().every(pane => {
    const p = pane.getBoundingClientRect(), i = pane.querySelector('img.base').getBoundingClientRect();
    const fills = (Math.abs(i.width - p.width) < 2 && i.height <= p.height + 1)
        || (Math.abs(i.height - p.height) < 2 && i.width <= p.width + 1);
    return fills && Math.abs((i.left + i.right) - (p.left + p.right)) < 3
        && Math.abs((i.top + i.bottom) - (p.top + p.bottom)) < 3;
})"""


def image_fits_pane(driver) -> bool:
    """Whether each image is fitted to its own pane, once the page has laid itself out (a frame or two)."""
    from selenium.common import TimeoutException

    try:
        return wait_for(driver, FITTED, timeout=3)
    except TimeoutException:
        return False


def cue_off_centre(driver, box: str) -> list[float]:
    """How far the centre of the box element `box` (a JavaScript expression) is from its pane's centre, px."""
    return driver.execute_script(f"""const box = {box}, pane = box.closest('.pane');
        const b = box.getBoundingClientRect(), p = pane.getBoundingClientRect();
        return [b.left + b.width / 2 - (p.left + p.width / 2), b.top + b.height / 2 - (p.top + p.height / 2)]""")


def no_failed_requests(driver) -> list[dict]:
    return [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_the_dicobench_pages_fit_the_screen(size, build_copy, tmp_path):
    driver = chromium(*size)
    served = review(DICOBENCH.people, build_copy, port=0, reviewer="ann", background=True, announce=lambda line: None)
    try:
        driver.get(served.url)
        wait_for(driver, "document.body.dataset.ready")
        check_fits(driver, "review")
        assert not no_failed_requests(driver)  # the favicon included
        driver.save_screenshot(str(tmp_path / f"review-{size[0]}x{size[1]}.png"))
        # a commonality row whose images differ in shape: each fitted to its own pane
        rows = driver.execute_script("return state.rows.map(r => r.id)")
        for row in [r for r in rows if r.startswith(("instance", "category"))]:
            driver.execute_script(f"show({row!r})")
            wait_for(driver, f"document.body.dataset.row == {row!r}")
            sizes = driver.execute_script("return viewer.sizes")
            if sizes[0][0] / sizes[0][1] != sizes[1][0] / sizes[1][1]:
                break
        else:
            pytest.fail("no row of the build has images of two shapes")
        assert driver.execute_script("return viewer.visiblePanes().length") == 2 and image_fits_pane(driver), sizes
        check_fits(driver, "review, commonality row")
        body = driver.find_element("tag name", "body")
        body.send_keys("c")
        body.send_keys("z")
        assert max(map(abs, cue_off_centre(driver, "document.querySelector('.box')"))) < 2
        assert driver.execute_script("""return [...document.querySelectorAll('.box span')].every(s => {
            const r = s.getBoundingClientRect(), p = s.closest('.pane').getBoundingClientRect();
            return r.left >= p.left - 1 && r.right <= p.right + 1; })""")  # labels kept inside their pane
        driver.save_screenshot(str(tmp_path / f"review-cue-{size[0]}x{size[1]}.png"))
    finally:
        served.stop()
    served = study(DICOBENCH.people, build_copy, time_limit=None, participant="p", n=16, port=0, background=True,
                   announce=lambda line: None)
    try:
        driver.get(served.url)
        check_fits(driver, "study start")
        driver.find_element("id", "begin").click()
        wait_for(driver, "document.body.dataset.position")
        check_fits(driver, "study")
        for _ in range(16):  # every item: a commonality pair of two shapes is fitted per pane too
            assert image_fits_pane(driver)
            position = driver.execute_script("return document.body.dataset.position")
            driver.find_element("tag name", "body").send_keys("a")
            wait_for(driver, f"document.body.dataset.done || document.body.dataset.position != {position!r}")
            if driver.execute_script("return document.body.dataset.done"):
                break
        assert not no_failed_requests(driver)
    finally:
        served.stop()
        driver.quit()


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_the_multipanelvqa_pages_fit_the_screen(size, composites, tmp_path):
    driver = chromium(*size)
    served = review(MULTIPANELVQA.people, composites, port=0, reviewer="ann", background=True,
                    announce=lambda line: None)
    try:
        driver.get(served.url)
        wait_for(driver, "document.body.dataset.ready")
        check_fits(driver, "review")
        assert not driver.execute_script("return [...document.querySelectorAll('.compare-keys')]"
                                         ".some(k => k.offsetParent)")
        body = driver.find_element("tag name", "body")
        body.send_keys("c")
        for _ in range(3):  # three composites: labels of neighbouring subfigures never overlap
            labels = driver.execute_script("""return [...document.querySelectorAll('.box span')].map(s => {
                const r = s.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; })""")
            assert len(labels) >= 7
            overlaps = [(a, b) for i, a in enumerate(labels) for b in labels[i + 1:]
                        if a[0] < b[2] - 0.5 and b[0] < a[2] - 0.5 and a[1] < b[3] - 0.5 and b[1] < a[3] - 0.5]
            assert not overlaps
            row = driver.execute_script("return document.body.dataset.row")
            body.send_keys("j")
            wait_for(driver, f"document.body.dataset.row != {row!r}")
        driver.save_screenshot(str(tmp_path / f"mpv-review-{size[0]}x{size[1]}.png"))
        body.send_keys("z")  # the target subfigure, centred
        target = "document.querySelectorAll('.box')[viewer.boxes.findIndex(b => b.target)]"  # boxes drawn in order
        assert driver.execute_script(f"return {target}.textContent").endswith("(target)")
        assert max(map(abs, cue_off_centre(driver, target))) < 2
        assert not no_failed_requests(driver)
    finally:
        served.stop()
    served = study(MULTIPANELVQA.people, composites, time_limit=None, participant="p", n=6, port=0, background=True,
                   announce=lambda line: None)
    try:
        driver.get(served.url)
        driver.find_element("id", "begin").click()
        wait_for(driver, "document.body.dataset.position")
        check_fits(driver, "study")
        assert not driver.execute_script("return [...document.querySelectorAll('.compare-keys')]"
                                         ".some(k => k.offsetParent)")
        assert image_fits_pane(driver)
        driver.save_screenshot(str(tmp_path / f"mpv-study-{size[0]}x{size[1]}.png"))
        assert not no_failed_requests(driver)
    finally:
        served.stop()
        driver.quit()
