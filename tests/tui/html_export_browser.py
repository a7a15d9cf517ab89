"""A real headless Chromium for the HTML viewer tests, driven by Playwright (sync API).

The browser is Debian's ``/usr/bin/chromium`` (never a downloaded one), started with a fresh
profile and no background networking. Every page opened through ``Viewer.open`` has all
requests but its own ``file://`` document blocked and recorded, and its console errors and
uncaught exceptions collected, so a test can assert that none happened.
"""

from __future__ import annotations

import importlib.util
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]  # fmt: skip


def skip_reason() -> str | None:
    if importlib.util.find_spec("playwright") is None:
        return "playwright is not installed (pip install playwright; it is in the test extra)"
    if not Path(CHROMIUM).exists():
        return "chromium is not installed (apt-get install chromium)"
    return None


@dataclass
class Opened:
    page: Any
    url: str
    blocked: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    def assert_clean(self) -> None:
        assert self.blocked == [], f"the page tried to load {self.blocked}"
        assert self.errors == [], f"console errors: {self.errors}"


class Viewer:
    def __init__(self, context: Any) -> None:
        self.context = context

    def open(self, path: Path, query: str = "") -> Opened:
        page = self.context.new_page()
        url = path.resolve().as_uri()
        opened = Opened(page, url)

        def route(request_route: Any) -> None:
            requested = request_route.request.url
            if requested.split("#")[0] == url.split("#")[0]:
                request_route.continue_()
            else:  # recorded by the "request" listener below
                request_route.abort()

        page.route("**/*", route)
        page.on("console", lambda message: opened.errors.append(message.text) if message.type == "error" else None)
        page.on("pageerror", lambda error: opened.errors.append(f"uncaught: {error}"))
        page.on("request", lambda request: None if request.url.startswith(("data:", url.split("#")[0])) else
                opened.blocked.append(request.url))  # fmt: skip
        page.goto(url + query)
        page.wait_for_selector("body[data-ready='1']")
        return opened


@contextmanager
def chromium(profile: Path) -> Iterator[Viewer]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        context = playwright.chromium.launch_persistent_context(
            str(profile), executable_path=CHROMIUM, args=ARGS, headless=True, viewport={"width": 1280, "height": 900},
            service_workers="block",
        )  # fmt: skip
        try:
            yield Viewer(context)
        finally:
            context.close()


needs_browser = pytest.mark.skipif(skip_reason() is not None, reason=skip_reason() or "")
