"""Opening published pages in headless Chromium through the DevTools protocol.

The site's tests and its documentation screenshots need a real browser: a page that throws
in its script, logs an error or misses an asset must fail, and what a reader sees must be
checked on the rendered DOM. Chromium's ``--remote-debugging-pipe`` speaks the DevTools
protocol over two inherited file descriptors (3: commands in, 4: events out, JSON
messages ended by a NUL byte), so no port is opened and no websocket client is needed:
``Runtime.consoleAPICalled``, ``Runtime.exceptionThrown`` and ``Log.entryAdded`` (failed
loads) are collected for every page.
"""

from __future__ import annotations

import base64
import contextlib
import dataclasses
import fcntl
import json
import os
import pathlib
import select
import shutil
import subprocess
import tempfile
import time
from typing import Any

from iconbench.errors import IconbenchError

#: Flags for a quiet, offline, disposable browser (no sync, updates or background traffic).
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-default-apps",
    "--disable-extensions",
    "--remote-debugging-pipe",
    # resolve no host name: a page that reaches for the network fails loudly, offline
    "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
)
CANDIDATES = ("chromium", "chromium-browser", "google-chrome")


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


class Browser:
    """A headless Chromium driven over ``--remote-debugging-pipe``; use as a context manager."""

    def __init__(self, executable: str | None = None, *, width: int = 1280, height: int = 900):
        found = executable or find_chromium()
        if found is None:
            raise IconbenchError(
                "no chromium on PATH; install it (Debian: apt-get install -y chromium) "
                "or set ICONBENCH_CHROMIUM"
            )
        self._profile = tempfile.TemporaryDirectory(prefix="iconbench-chromium-")
        to_browser_read, self._to_browser = os.pipe()
        self._from_browser, from_browser_write = os.pipe()

        def wire_pipes() -> None:  # in the child: fd 3 reads commands, fd 4 writes replies
            # move both ends above 4 first, so that neither is overwritten by the other
            commands = fcntl.fcntl(to_browser_read, fcntl.F_DUPFD, 10)
            replies = fcntl.fcntl(from_browser_write, fcntl.F_DUPFD, 10)
            os.dup2(commands, 3)
            os.dup2(replies, 4)

        self._process = subprocess.Popen(
            [found, *FLAGS, f"--user-data-dir={self._profile.name}", "about:blank"],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            preexec_fn=wire_pipes,  # noqa: PLW1509 - single-threaded caller, dup2 only
            pass_fds=(3, 4),
        )
        os.close(to_browser_read)
        os.close(from_browser_write)
        self._buffer = b""
        self._next_id = 0
        self._events: list[dict[str, Any]] = []
        self.width, self.height = width, height
        target = self._call("Target.createTarget", {"url": "about:blank"})["targetId"]
        self._session = self._call("Target.attachToTarget", {"targetId": target, "flatten": True})[
            "sessionId"
        ]
        for domain in ("Page.enable", "Runtime.enable", "Log.enable"):
            self._call(domain, session=True)
        self._call(
            "Emulation.setDeviceMetricsOverride",
            {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False},
            session=True,
        )

    def __enter__(self) -> Browser:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def close(self) -> None:
        """Stop the browser and remove its profile."""
        with contextlib.suppress(IconbenchError, OSError):
            self._call("Browser.close", timeout=5)
        try:
            self._process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait()
        for fd in (self._to_browser, self._from_browser):
            with contextlib.suppress(OSError):
                os.close(fd)
        self._profile.cleanup()

    def _send(self, message: dict[str, Any]) -> None:
        data = json.dumps(message).encode() + b"\0"
        while data:
            data = data[os.write(self._to_browser, data) :]

    def _receive(self, deadline: float) -> dict[str, Any]:
        while b"\0" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self._from_browser], [], [], left)[0]:
                raise IconbenchError("chromium did not answer in time")
            chunk = os.read(self._from_browser, 1 << 20)
            if not chunk:
                raise IconbenchError("chromium closed its DevTools pipe (it crashed or exited)")
            self._buffer += chunk
        message, _, self._buffer = self._buffer.partition(b"\0")
        return json.loads(message)

    def _call(
        self,
        method: str,
        params: dict[str, Any] | None = None,
        *,
        session: bool = False,
        timeout: float = 30,
    ) -> dict[str, Any]:
        self._next_id += 1
        message: dict[str, Any] = {"id": self._next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = self._session
        self._send(message)
        deadline = time.monotonic() + timeout
        while True:
            reply = self._receive(deadline)
            if reply.get("id") == self._next_id:
                if "error" in reply:
                    raise IconbenchError(f"chromium: {method}: {reply['error'].get('message')}")
                return reply.get("result", {})
            if "method" in reply:
                self._events.append(reply)

    def _wait_for(self, method: str, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while not any(e["method"] == method for e in self._events):
            message = self._receive(deadline)
            if "method" in message:
                self._events.append(message)

    def open(self, url: str, script: str = "null", *, timeout: float = 30) -> PageLoad:
        """Load ``url``, wait for its load event, evaluate ``script`` (JSON-serialisable)."""
        self._events.clear()
        reply = self._call("Page.navigate", {"url": url}, session=True, timeout=timeout)
        if reply.get("errorText"):
            raise IconbenchError(f"chromium could not open {url}: {reply['errorText']}")
        self._wait_for("Page.loadEventFired", timeout)
        value = self._call(
            "Runtime.evaluate",
            {"expression": script, "returnByValue": True, "awaitPromise": True},
            session=True,
        )
        if "exceptionDetails" in value:
            details = value["exceptionDetails"]
            raise IconbenchError(f"script on {url} failed: {details.get('text')} {details}")
        # events that arrived while evaluating count too
        return PageLoad(url, tuple(self._problems()), value.get("result", {}).get("value"))

    def evaluate(self, script: str) -> Any:
        """Evaluate ``script`` on the open page (e.g. after clicking a table header)."""
        value = self._call(
            "Runtime.evaluate",
            {"expression": script, "returnByValue": True, "awaitPromise": True},
            session=True,
        )
        return value.get("result", {}).get("value")

    def problems(self) -> tuple[Problem, ...]:
        """Problems reported since the last :meth:`open`."""
        return tuple(self._problems())

    def _problems(self) -> list[Problem]:
        found = []
        for event in self._events:
            params = event.get("params", {})
            if event["method"] == "Runtime.consoleAPICalled" and params.get("type") in {
                "error",
                "warning",
                "assert",
            }:
                text = " ".join(
                    str(a.get("value", a.get("description", ""))) for a in params["args"]
                )
                frames = (params.get("stackTrace") or {}).get("callFrames") or [{}]
                found.append(Problem(f"console.{params['type']}", text, frames[0].get("url", "")))
            elif event["method"] == "Runtime.exceptionThrown":
                details = params.get("exceptionDetails", {})
                text = (details.get("exception") or {}).get("description") or details.get("text")
                found.append(Problem("exception", str(text), details.get("url", "")))
            elif event["method"] == "Log.entryAdded":
                entry = params.get("entry", {})
                if entry.get("level") in {"error", "warning"}:
                    found.append(
                        Problem(
                            f"log.{entry['level']}", entry.get("text", ""), entry.get("url", "")
                        )
                    )
        return found

    def screenshot(self, path: pathlib.Path, *, full_page: bool = True) -> pathlib.Path:
        """Write a PNG of the open page (the whole page when ``full_page``)."""
        params: dict[str, Any] = {"format": "png", "captureBeyondViewport": full_page}
        if full_page:
            size = self.evaluate(
                "[document.documentElement.scrollWidth, document.documentElement.scrollHeight]"
            )
            params["clip"] = {"x": 0, "y": 0, "width": size[0], "height": size[1], "scale": 1}
        data = self._call("Page.captureScreenshot", params, session=True)["data"]
        path.write_bytes(base64.b64decode(data))
        return path
