"""A headless Chromium driven over the DevTools protocol on a pipe (--remote-debugging-pipe: JSON
messages ended by NUL on file descriptors 3 and 4), for tests that look at a page as a reader
does: an exact viewport per width, scripts evaluated in the page, screenshots. No websocket, no
port, no Playwright (whose pip package downloads a browser of its own).

The flags keep Chromium off the network and out of the way: without the background-networking
ones it opens connections that a sandboxed machine refuses, many at a time."""

from __future__ import annotations

import base64
import json
import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-extensions", "--mute-audio", "--hide-scrollbars=false"]


def find_chromium() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


class BrowserError(RuntimeError):
    pass


class Browser:
    """One Chromium process and one page in it. Use as a context manager."""

    def __init__(self, executable: str, timeout: float = 60.0):
        self.timeout = timeout
        self._profile = tempfile.mkdtemp(prefix="tb-chromium-")
        to_child, self._write = os.pipe()  # the browser reads commands on its fd 3
        self._read, from_child = os.pipe()  # and writes answers and events on its fd 4

        def wire():
            # Out of the way first: either end may itself be 3 or 4.
            read_end, write_end = os.dup(to_child), os.dup(from_child)
            os.dup2(read_end, 3)
            os.dup2(write_end, 4)

        self.process = subprocess.Popen(
            [executable, *FLAGS, f"--user-data-dir={self._profile}", "--remote-debugging-pipe", "about:blank"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            preexec_fn=wire, pass_fds=(3, 4))  # kept open past preexec_fn
        os.close(to_child)
        os.close(from_child)
        self._buffer = b""
        self._next_id = 0
        self._events: list[dict] = []
        self.session = None

    def __enter__(self):
        target = self.call("Target.createTarget", url="about:blank")["targetId"]
        self.session = self.call("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]
        self.call("Page.enable")
        self.call("Runtime.enable")
        return self

    def __exit__(self, *exc):
        try:
            self.call("Browser.close", session=False)
        except (BrowserError, OSError):
            pass
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        for fd in (self._read, self._write):
            try:
                os.close(fd)
            except OSError:
                pass
        shutil.rmtree(self._profile, ignore_errors=True)
        return False

    # -- the protocol ------------------------------------------------------------------------
    def _message(self, deadline: float) -> dict:
        while b"\0" not in self._buffer:
            if time.monotonic() > deadline:
                raise BrowserError("Chromium did not answer in time")
            chunk = os.read(self._read, 1 << 16)
            if not chunk:
                raise BrowserError(f"Chromium closed the pipe (exit status {self.process.poll()})")
            self._buffer += chunk
        raw, self._buffer = self._buffer.split(b"\0", 1)
        return json.loads(raw)

    def call(self, method: str, session: bool = True, **params) -> dict:
        self._next_id += 1
        message = {"id": self._next_id, "method": method, "params": params}
        if session and self.session:
            message["sessionId"] = self.session
        os.write(self._write, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + self.timeout
        while True:
            answer = self._message(deadline)
            if answer.get("id") == self._next_id:
                if "error" in answer:
                    raise BrowserError(f"{method}: {answer['error']}")
                return answer.get("result", {})
            self._events.append(answer)

    def _wait_for(self, event: str) -> None:
        deadline = time.monotonic() + self.timeout
        while True:
            for k, seen in enumerate(self._events):
                if seen.get("method") == event:
                    del self._events[:k + 1]
                    return
            self._events.append(self._message(deadline))

    # -- what the tests use ------------------------------------------------------------------
    def open(self, path: Path, width: int, height: int) -> None:
        """The page at `path` in a viewport of width x height CSS pixels (scale 1), loaded."""
        self.call("Emulation.setDeviceMetricsOverride", width=width, height=height, deviceScaleFactor=1,
                  mobile=False)
        self._events.clear()
        self.call("Page.navigate", url=Path(path).resolve().as_uri())
        self._wait_for("Page.loadEventFired")

    def evaluate(self, expression: str):
        """The value of a JavaScript expression in the page (JSON-able)."""
        result = self.call("Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True)
        if "exceptionDetails" in result:
            raise BrowserError(f"script failed: {result['exceptionDetails']}")
        return result["result"].get("value")

    def screenshot(self, path: Path, height: float | None = None) -> None:
        """The page from its top, `height` CSS pixels of it (default: the viewport), as PNG."""
        params = {"format": "png"}
        if height is not None:
            width = self.evaluate("document.documentElement.clientWidth")
            params.update(clip={"x": 0, "y": 0, "width": width, "height": height, "scale": 1},
                          captureBeyondViewport=True)
        data = self.call("Page.captureScreenshot", **params)["data"]
        Path(path).write_bytes(base64.b64decode(data))
