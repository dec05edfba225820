"""Headless Chromium through Selenium for the web-app tests (and the README screenshots)."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
SCREENSHOTS = Path(__file__).resolve().parents[1] / "docs" / "images"


def chromium(width: int = 1600, height: int = 1000):
    """A fresh headless browser (its own profile, no background traffic); skip when absent."""
    webdriver = pytest.importorskip("selenium.webdriver")
    from selenium.webdriver.chrome.service import Service

    if not (shutil.which(CHROMIUM) and shutil.which(CHROMEDRIVER)):
        pytest.skip("chromium and chromium-driver are not installed (apt-get install -y chromium chromium-driver)")
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--no-first-run", "--disable-quic", f"--window-size={width},{height}",
                f"--user-data-dir={tempfile.mkdtemp(prefix='chromium-profile-')}"):
        options.add_argument(arg)
    return webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)


def wait_for(driver, script: str, timeout: float = 15):
    """Wait until the JavaScript expression `script` is truthy; return its value."""
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(driver, timeout, poll_frequency=0.05).until(lambda d: d.execute_script(f"return {script}"))


def save_screenshot(driver, folder: Path, name: str) -> None:
    """Into `folder` always; into the README's docs/images too with UPDATE_SCREENSHOTS=1."""
    driver.save_screenshot(str(folder / name))
    keep_image(folder / name)


def keep_image(path: Path) -> None:
    """Copy an image the README shows into docs/images, when UPDATE_SCREENSHOTS=1."""
    if os.environ.get("UPDATE_SCREENSHOTS") == "1":
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        shutil.copy(path, SCREENSHOTS / path.name)
