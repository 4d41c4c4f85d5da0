"""Published pages in the installed headless Chromium, driven by Playwright.

The site's tests and its documentation screenshots (``perf/site_screenshots.py``) need a real
browser: a page that throws in its script, logs an error or misses an asset must fail, and
what a reader sees must be checked on the rendered DOM. Playwright launches the Chromium
that is installed (Debian's ``chromium``; it downloads none) and reports, for every page,
console errors and warnings, uncaught exceptions and failed loads, and the address of every
request it made, so a test can tell that a page loaded nothing from outside the site.
"""

from __future__ import annotations

import dataclasses
import os
import pathlib
import shutil
from typing import Any

from playwright.sync_api import ConsoleMessage, Error, Request, sync_playwright

#: Resolve no host name: a page that reaches for the network fails loudly, offline.
FLAGS = ("--disable-gpu", "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1")
CANDIDATES = ("chromium", "chromium-browser", "google-chrome")
#: How Chromium names a load the page cancelled itself.
CANCELLED = "net::ERR_ABORTED"


def find_chromium() -> str | None:
    """The Chromium executable on ``PATH`` (``ICONBENCH_CHROMIUM`` overrides), or None."""
    if explicit := os.environ.get("ICONBENCH_CHROMIUM"):
        return explicit
    return next((found for name in CANDIDATES if (found := shutil.which(name))), None)


@dataclasses.dataclass(frozen=True)
class Problem:
    """Something a page reported: a console error/warning, an exception, a failed load."""

    kind: str
    text: str
    url: str

    def __str__(self) -> str:
        return f"{self.kind}: {self.text} ({self.url})"


@dataclasses.dataclass(frozen=True)
class PageLoad:
    """One page after its load event: what it reported and what a script evaluated there."""

    url: str
    problems: tuple[Problem, ...]
    value: Any
    requests: tuple[str, ...] = ()


class Browser:
    """One page of a headless Chromium at ``width`` x ``height``; use as a context manager."""

    def __init__(self, executable: str | None = None, *, width: int = 1280, height: int = 900):
        found = executable or find_chromium()
        if found is None:
            raise RuntimeError(
                "no chromium on PATH; install it (Debian: apt-get install -y chromium) "
                "or set ICONBENCH_CHROMIUM"
            )
        self._playwright = sync_playwright().start()
        try:
            self._browser = self._playwright.chromium.launch(
                executable_path=found, args=list(FLAGS)
            )
        except Error:
            self._playwright.stop()
            raise
        self._page = self._browser.new_page(viewport={"width": width, "height": height})
        self._problems: list[Problem] = []
        self._requests: list[str] = []
        self._page.on("console", self._console)
        self._page.on("pageerror", lambda error: self._problems.append(
            Problem("exception", str(error), self._page.url)))  # fmt: skip
        self._page.on("requestfailed", self._failed)
        self._page.on("request", self._request)

    def __enter__(self) -> Browser:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def close(self) -> None:
        """Stop the browser."""
        self._browser.close()
        self._playwright.stop()

    def _console(self, message: ConsoleMessage) -> None:
        if message.type in {"error", "warning", "assert"}:
            where = message.location.get("url", "") if message.location else ""
            self._problems.append(Problem(f"console.{message.type}", message.text, where))

    def _failed(self, request: Request) -> None:
        # a load the page itself cancelled (it moved on to another page) is no problem
        if request.failure != CANCELLED:
            self._problems.append(Problem("request.failed", request.failure or "", request.url))

    def _request(self, request: Request) -> None:
        self._requests.append(request.url)

    def open(self, url: str, script: str = "null", *, timeout: float = 30) -> PageLoad:
        """Load ``url``, wait for its load event, evaluate ``script`` (JSON-serialisable)."""
        self._problems.clear()
        self._requests.clear()
        self._page.goto(url, wait_until="load", timeout=timeout * 1000)
        value = self._page.evaluate(script)
        return PageLoad(url, self.problems(), value, self.requests())

    def evaluate(self, script: str) -> Any:
        """Evaluate ``script`` on the open page (e.g. after clicking a table header)."""
        return self._page.evaluate(script)

    def problems(self) -> tuple[Problem, ...]:
        """Problems reported since the last :meth:`open`."""
        return tuple(self._problems)

    def requests(self) -> tuple[str, ...]:
        """The address of every request the page made since the last :meth:`open`."""
        return tuple(self._requests)

    def resize(self, width: int, height: int = 900) -> None:
        """Give the page a viewport of ``width`` x ``height`` (a phone's, a desktop's)."""
        self._page.set_viewport_size({"width": width, "height": height})

    def screenshot(self, path: pathlib.Path, *, full_page: bool = True) -> pathlib.Path:
        """Write a PNG of the open page (the whole page when ``full_page``)."""
        self._page.screenshot(path=path, full_page=full_page)
        return path
