"""Headless Chromium for the web console tests: Debian's ``chromium`` driven by Playwright.

``scripts/install-chromium.sh`` installs it where it is missing (``make test`` runs it as the
``browser`` prerequisite; the fixture runs it too); a test skips, saying why, only when it
cannot be installed. Playwright never downloads a browser here: it launches
``/usr/bin/chromium``. A test module imports the fixture ``browser`` by its function's name:
``from tests.browser import chromium_browser  # noqa: F401``.

:func:`screenshot` saves a page as PNG under the test's temporary folder and, when
``SEAWAY_SCREENSHOTS=<dir>`` is set, into that folder too (``docs/console/`` is made so).
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Final

import pytest

CHROMIUM: Final = "/usr/bin/chromium"
INSTALL: Final = Path(__file__).resolve().parent.parent / "scripts" / "install-chromium.sh"
ARGS: Final = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
SCREENSHOTS_ENV: Final = "SEAWAY_SCREENSHOTS"


def chromium() -> str:
    """The path of Chromium, installed first if missing; pytest.skip naming why not."""
    found = shutil.which("chromium") or (CHROMIUM if os.access(CHROMIUM, os.X_OK) else None)
    if found:
        return found
    done = subprocess.run(["bash", str(INSTALL)], capture_output=True, text=True, check=False)
    found = shutil.which("chromium") or (CHROMIUM if os.access(CHROMIUM, os.X_OK) else None)
    if not found:
        pytest.skip(
            "the web console tests need Chromium, and scripts/install-chromium.sh could not "
            f"install it: {(done.stderr or done.stdout).strip()[-400:]}"
        )
    return found


@pytest.fixture(name="browser")
def chromium_browser() -> Iterator[Any]:
    """``browser``: a headless Chromium (Playwright's ``Browser``) for one test. Not shared
    longer: Playwright's sync API keeps an event loop running on the thread while it is
    started, and a later test's ``asyncio.run`` would find it."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.skip("the web console tests need Playwright: pip install -e '.[test]'")
    path = chromium()
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=path, args=ARGS)
        try:
            yield launched
        finally:
            launched.close()


def new_page(browser: Any, *, width: int = 1280, height: int = 900) -> Any:
    """A page in a fresh context (no shared cookies), JavaScript on."""
    context = browser.new_context(viewport={"width": width, "height": height})
    context.set_default_timeout(30_000)
    return context.new_page()


def screenshot(page: Any, folder: Path, name: str) -> Path:
    """Save *page* (its full height) as ``<folder>/screenshots/<name>.png`` and, with
    ``SEAWAY_SCREENSHOTS`` set, as ``$SEAWAY_SCREENSHOTS/<name>.png``; the first path."""
    path = folder / "screenshots" / f"{name}.png"
    path.parent.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(path), full_page=True)
    assert path.stat().st_size > 1000, f"{path} is nearly empty"
    extra = os.environ.get(SCREENSHOTS_ENV)
    if extra:
        Path(extra).mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, Path(extra) / path.name)
    return path


def plotted_points(page: Any) -> list[int]:
    """How many points each plot line of *page* has (``data-points`` of its SVG paths)."""
    return [
        int(n)
        for n in page.eval_on_selector_all(
            "svg.plot path.line", "paths => paths.map(p => p.dataset.points)"
        )
    ]
