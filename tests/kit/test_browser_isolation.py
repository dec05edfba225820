"""In a real browser: no page is ever shown a stale image (a second study participant on the same
port, a row rewritten between two review sessions), and two servers on one host keep their tokens
to themselves (neither clobbers the other's cookie, and no other port receives either)."""

from __future__ import annotations

import http.server
import io
import threading
import urllib.request

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from browser import chromium, wait_for
from PIL import Image

from dicobench.benchmark import BENCHMARK

SPEC = BENCHMARK.people

pytest.importorskip("starlette")

# What the first pane shows, as pixels: drawn on a canvas at full size and summed with weights,
# so that it can be compared with the bytes the server holds, decoded here.
SHOWN = """
const img = document.querySelector('.pane img.base');
if (!img.complete || !img.naturalWidth) return null;
const c = document.createElement('canvas');
c.width = img.naturalWidth; c.height = img.naturalHeight;
const g = c.getContext('2d');
g.drawImage(img, 0, 0);
const d = g.getImageData(0, 0, c.width, c.height).data;
let s = 0;
for (let i = 0; i < d.length; i += 4) s = (s + d[i] + 3 * d[i + 1] + 7 * d[i + 2]) % 1000000007;
return [img.currentSrc, c.width, c.height, s];
"""


def fingerprint(png: bytes) -> list:
    rgb = np.asarray(Image.open(io.BytesIO(png)).convert("RGB"), dtype=np.int64)
    return [rgb.shape[1], rgb.shape[0], int((rgb[..., 0] + 3 * rgb[..., 1] + 7 * rgb[..., 2]).sum() % 1000000007)]


def shown(driver) -> tuple[str, list]:
    src, *rest = wait_for(driver, "(function () {" + SHOWN + "})()")
    return src, rest


def _port(url: str) -> int:
    return int(url.split("//")[1].split("/")[0].rsplit(":", 1)[1])


def _study(build, participant: str, port: int):
    from dicobench.kit.people.webapp.launch import study

    return study(SPEC, build, time_limit=None, participant=participant, n=4, port=port, background=True,
                 announce=lambda line: None)


def test_a_second_participant_on_the_same_port_sees_their_own_images(build_copy):
    driver = chromium()
    server = _study(build_copy, "ann", 0)
    port = _port(server.url)
    try:
        seen = {}
        for participant in ("ann", "bob"):
            if participant == "bob":
                server.stop()
                server = _study(build_copy, "bob", port)  # same origin: the browser's cache is shared
            driver.get(server.url)
            wait_for(driver, "document.body.dataset.ready")
            driver.find_element("id", "begin").click()
            wait_for(driver, "document.body.dataset.position == '1'")
            src, pixels = shown(driver)
            with urllib.request.urlopen(src, timeout=10) as reply:  # what the server serves for it now
                assert pixels == fingerprint(reply.read()), participant
            seen[participant] = pixels
        assert seen["ann"] != seen["bob"]  # their first items differ: the check above could fail
    finally:
        driver.quit()
        server.stop()


def _review(build, port: int, **kwargs):
    from dicobench.kit.people.webapp.launch import review

    return review(SPEC, build, port=port, reviewer="ann", background=True, announce=lambda line: None, **kwargs)


def _rewrite_first_image(build) -> bytes:
    """Give the first attribute row another image under the same id and seed (what `build
    --overwrite` with other scene options does); the new bytes."""
    shard = next((build / "attribute").glob("test-*.parquet"))
    table = pq.read_table(shard)
    images = table.column("image_a").to_pylist()
    images[0] = images[1]
    column = pa.array(images, type=table.schema.field("image_a").type)
    pq.write_table(table.set_column(table.schema.get_field_index("image_a"), "image_a", column), shard,
                   row_group_size=8)
    return images[0]["bytes"]


def test_a_row_rewritten_between_two_review_sessions_shows_its_new_image(build_copy):
    driver = chromium()
    server = _review(build_copy, 0)
    port = _port(server.url)
    try:
        driver.get(server.url)
        wait_for(driver, "document.body.dataset.ready")
        assert driver.execute_script("return document.body.dataset.row") == "attribute-test-s0-00000"
        src, before = shown(driver)
        server.stop()
        new = _rewrite_first_image(build_copy)
        assert fingerprint(new) != before
        server = _review(build_copy, port)
        driver.get(server.url)
        wait_for(driver, "document.body.dataset.ready")
        assert driver.execute_script("return document.body.dataset.row") == "attribute-test-s0-00000"
        assert shown(driver)[1] == fingerprint(new)
    finally:
        driver.quit()
        server.stop()


class CookieJar(http.server.BaseHTTPRequestHandler):
    """Another server on the same host: records the Cookie header of every request it gets."""

    received: list = []

    def do_GET(self):
        self.received.append(self.headers.get("Cookie") or "")
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.end_headers()
        self.wfile.write(b"<html><body>other</body></html>")

    def log_message(self, *args):
        pass


def test_two_servers_on_one_host_keep_their_tokens_apart(build_copy, tmp_path):
    import shutil

    other = tmp_path / "other"
    shutil.copytree(build_copy, other)
    first, second = _review(build_copy, 0, host="0.0.0.0"), _review(other, 0, host="0.0.0.0")
    jar = http.server.ThreadingHTTPServer(("127.0.0.1", 0), CookieJar)
    threading.Thread(target=jar.serve_forever, daemon=True).start()
    driver = chromium()
    try:
        urls = [s.url.replace("0.0.0.0", "127.0.0.1") for s in (first, second)]
        tokens = [u.split("token=")[1] for u in urls]
        driver.get(urls[0])
        wait_for(driver, "document.body.dataset.ready")
        shown(driver)
        tab = driver.current_window_handle
        driver.switch_to.new_window("tab")
        driver.get(urls[1])  # the second server's page sets its cookie
        wait_for(driver, "document.body.dataset.ready")
        driver.switch_to.window(tab)
        driver.find_element("tag name", "body").send_keys("j")  # the first tab goes on: its images still load
        wait_for(driver, "document.body.dataset.row == 'attribute-test-s0-00001'")
        src, pixels = shown(driver)
        assert "token=" not in src  # the image rode on the cookie
        assert driver.execute_script("return performance.getEntriesByType('resource')"
                                     ".filter(e => e.name.includes('/image/') && e.responseStatus >= 400).length") == 0
        driver.get(f"http://127.0.0.1:{jar.server_address[1]}/")  # a third server on the same host
        wait_for(driver, "document.body.textContent == 'other'")
        assert CookieJar.received and not any(t in c for t in tokens for c in CookieJar.received), CookieJar.received
    finally:
        driver.quit()
        jar.shutdown()
        first.stop()
        second.stop()
