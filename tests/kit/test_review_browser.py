"""The review page in a real browser: decide by clicking and by keys, kill the server, restart."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from browser import chromium, save_screenshot, wait_for

from dicobench.kit.people.decisions import decisions_path

pytest.importorskip("starlette")


def start_server(*args: str) -> tuple[subprocess.Popen, str]:
    """`dicobench ARGS --port 0` in its own process; returns it and the URL it printed."""
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    proc = subprocess.Popen([sys.executable, "-m", "dicobench.cli.main", *args, "--port", "0"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env)
    line = proc.stdout.readline()
    assert "serving on " in line, (line, proc.stderr.read() if proc.poll() is not None else "")
    return proc, line.split("serving on ")[1].strip()


def test_review_by_click_and_keys_survives_a_killed_server(small_build, tmp_path):
    build = tmp_path / "bench"
    shutil.copytree(small_build, build)
    proc, url = start_server("review", str(build), "--reviewer", "ann")
    driver = chromium()
    try:
        driver.get(url)
        wait_for(driver, "document.body.dataset.ready")
        body = driver.find_element("tag name", "body")
        seen = []

        def saved(n):
            wait_for(driver, f"document.body.dataset.saved == '{n}' "
                             f"&& document.body.dataset.row != {json.dumps(seen[-1])}")

        # by clicking: reject with a criterion and a note, then accept
        seen.append(body.get_attribute("data-row"))
        driver.find_element("css selector", "#criteria input[data-key=naturalness]").click()
        driver.find_element("id", "note").send_keys("halo around the edit")
        driver.find_element("id", "reject").click()
        saved(1)
        seen.append(body.get_attribute("data-row"))
        driver.find_element("id", "accept").click()
        saved(2)
        # by keys: the comparison tools, then criteria 3 and 4 and reject; accept; a note then accept
        seen.append(body.get_attribute("data-row"))
        for key, mode in (("v", "slider"), ("v", "flicker"), ("f", "flicker"), ("s", "side")):
            body.send_keys(key)
            assert driver.execute_script("return document.getElementById('viewer').dataset.mode") == mode
        body.send_keys("c")
        assert driver.execute_script("return document.querySelectorAll('.box').length") > 0
        body.send_keys("z")  # full resolution (one image pixel per screen pixel), centred on the cue
        assert abs(driver.execute_script("return viewer.scale * viewer.fits[0].s") - 1) < 1e-6
        off = driver.execute_script("""const b = viewer.boxes[0], pane = viewer.panes[b.image];
            const box = pane.querySelector('.box').getBoundingClientRect(), p = pane.getBoundingClientRect();
            return [box.left + box.width / 2 - (p.left + p.width / 2),
                    box.top + box.height / 2 - (p.top + p.height / 2)]""")
        assert max(map(abs, off)) < 2, off
        body.send_keys("0l")
        for key in "34r":
            body.send_keys(key)
        saved(3)
        seen.append(body.get_attribute("data-row"))
        body.send_keys("a")
        saved(4)
        seen.append(body.get_attribute("data-row"))
        body.send_keys("n")
        driver.switch_to.active_element.send_keys("looks fine")
        from selenium.webdriver.common.keys import Keys

        driver.switch_to.active_element.send_keys(Keys.ESCAPE)
        body.send_keys("a")
        saved(5)
        driver.execute_script("document.querySelector('aside').scrollTop = 0")
        save_screenshot(driver, tmp_path, "review.png")
        proc.send_signal(signal.SIGKILL)  # nothing may be lost
        proc.wait(10)

        lines = [json.loads(l) for l in decisions_path(build).read_text().splitlines()]
        assert [l["id"] for l in lines] == seen
        assert [(l["verdict"], l["criteria"], l["note"]) for l in lines] == [
            ("reject", ["naturalness"], "halo around the edit"), ("accept", [], ""),
            ("reject", ["distinguishability", "scale"], ""), ("accept", [], ""), ("accept", [], "looks fine")]
        assert all(l["reviewer"] == "ann" and isinstance(l["seed"], int) for l in lines)

        proc, url = start_server("review", str(build), "--reviewer", "ann")
        driver.get(url)
        wait_for(driver, "document.body.dataset.ready")
        rows = driver.execute_script("return state.rows.map(r => r.id)")
        assert seen == rows[:5]
        assert driver.execute_script("return document.body.dataset.row") == rows[5]  # resumes at the first unreviewed
        assert "reviewed 5/16" in driver.find_element("id", "progress").text
        # a second reviewer on the same server: the page shows both and their agreement
        driver.get(url + "?reviewer=bob")
        wait_for(driver, "document.body.dataset.ready")
        assert driver.execute_script("return document.body.dataset.row") == rows[0]
        driver.find_element("tag name", "body").send_keys("a")
        wait_for(driver, "document.body.dataset.saved == '1'")
        driver.find_element("id", "filter-status").send_keys("rev")  # "reviewers disagree"
        wait_for(driver, f"document.body.dataset.row == {json.dumps(rows[0])}")
        assert "ann / bob: 0% over 1 rows" in driver.find_element("id", "agreement").text
    finally:
        driver.quit()
        proc.kill()
        proc.wait(10)
