"""Opening a report in headless Chromium, over the DevTools protocol on a pipe (no extra package).

Chromium started with --remote-debugging-pipe reads commands on its fd 3 and answers on fd 4,
one JSON message per NUL-terminated record. We open the page, collect console errors and
uncaught exceptions, check from the DOM that every plot rendered, and take a screenshot.
"""

from __future__ import annotations

import base64
import json
import os
import select
import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any, Dict, List, Optional

CANDIDATES = ("chromium-headless-shell", "chromium", "chromium-browser", "google-chrome", "headless_shell")

# Every report plot: rendered (plotly drew its SVG) and with at least one trace drawn.
PLOTS_JS = """JSON.stringify((() => {
  const divs = [...document.querySelectorAll('.zvm-plot')];
  return {expected: window.zvmsimPlots, found: divs.length,
          plots: divs.map(d => { const g = d.querySelector('.js-plotly-plot');
            return {figure: d.dataset.figure, svg: !!(g && g.querySelector('.main-svg')),
                    traces: g && g.data ? g.data.length : 0,
                    drawn: g ? g.querySelectorAll('.scatterlayer .trace, .barlayer .trace').length : 0}; })};
})())"""


def find_chromium() -> Optional[str]:
    env = os.environ.get("ZVMSIM_CHROMIUM")
    if env:
        return env if Path(env).is_file() else None
    for name in CANDIDATES:
        path = shutil.which(name)
        if path:
            return path
    return None


class Browser:
    def __init__(self, binary: str) -> None:
        self.profile = tempfile.mkdtemp(prefix="zvmsim-chromium-")
        cmd_r, self._cmd_w = os.pipe()
        self._resp_r, resp_w = os.pipe()

        def child_fds() -> None:  # in the child, before exec: the protocol's fds 3 and 4
            # Move both ends above 4 first: either may itself be fd 3 or 4.
            a, b = os.dup(cmd_r), os.dup(resp_w)
            while a <= 4 or b <= 4:
                a, b = (os.dup(a) if a <= 4 else a), (os.dup(b) if b <= 4 else b)
            os.dup2(a, 3)
            os.dup2(b, 4)
            os.set_inheritable(3, True)
            os.set_inheritable(4, True)

        args = [binary, "--headless", "--remote-debugging-pipe", "--no-sandbox", "--disable-gpu",
                "--disable-dev-shm-usage", "--no-first-run", "--hide-scrollbars", f"--user-data-dir={self.profile}",
                "about:blank"]
        self.proc = subprocess.Popen(args, preexec_fn=child_fds, close_fds=False,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(cmd_r)
        os.close(resp_w)
        self._buf = b""
        self._id = 0
        self.events: List[Dict[str, Any]] = []

    def send(self, method: str, params: Optional[Dict[str, Any]] = None, session: Optional[str] = None,
             timeout: float = 60.0) -> Dict[str, Any]:
        self._id += 1
        msg: Dict[str, Any] = {"id": self._id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        os.write(self._cmd_w, json.dumps(msg).encode() + b"\0")
        deadline = time.monotonic() + timeout
        while True:
            m = self._read(deadline)
            if m.get("id") == self._id:
                if "error" in m:
                    raise RuntimeError(f"{method}: {m['error']}")
                return m.get("result", {})
            self.events.append(m)

    def wait_event(self, method: str, timeout: float = 60.0) -> Dict[str, Any]:
        deadline = time.monotonic() + timeout
        for e in self.events:
            if e.get("method") == method:
                return e
        while True:
            m = self._read(deadline)
            self.events.append(m)
            if m.get("method") == method:
                return m

    def _read(self, deadline: float) -> Dict[str, Any]:
        while b"\0" not in self._buf:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("no answer from Chromium")
            ready, _, _ = select.select([self._resp_r], [], [], left)
            if ready:
                chunk = os.read(self._resp_r, 1 << 20)
                if not chunk:
                    raise RuntimeError("Chromium closed the pipe")
                self._buf += chunk
        raw, _, self._buf = self._buf.partition(b"\0")
        return json.loads(raw)

    def close(self) -> None:
        try:
            self.send("Browser.close", timeout=10)
        except Exception:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        os.close(self._cmd_w)
        os.close(self._resp_r)
        shutil.rmtree(self.profile, ignore_errors=True)


def console_errors(events: List[Dict[str, Any]]) -> List[str]:
    out = []
    for e in events:
        p = e.get("params", {})
        if e.get("method") == "Runtime.exceptionThrown":
            out.append(json.dumps(p.get("exceptionDetails", {}))[:500])
        elif e.get("method") == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert"):
            out.append(" ".join(str(a.get("value", a.get("description", ""))) for a in p.get("args", [])))
        elif e.get("method") == "Log.entryAdded" and p.get("entry", {}).get("level") == "error":
            out.append(f"{p['entry'].get('source')}: {p['entry'].get('text')} {p['entry'].get('url', '')}")
    return out


def open_report(binary: str, html_file: Path, screenshot: Path, width: int = 1280) -> Dict[str, Any]:
    """Load the page, wait until every plot rendered (or 60 s), screenshot it whole; returns
    {"plots": DOM check, "errors": console errors, "screenshot": path}."""
    b = Browser(binary)
    try:
        target = b.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = b.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        for domain in ("Runtime", "Log", "Page"):
            b.send(f"{domain}.enable", session=session)
        b.send("Emulation.setDeviceMetricsOverride",
               {"width": width, "height": 900, "deviceScaleFactor": 1, "mobile": False}, session=session)
        b.send("Page.navigate", {"url": html_file.resolve().as_uri()}, session=session)
        b.wait_event("Page.loadEventFired", timeout=120)
        deadline = time.monotonic() + 60
        while True:
            res = b.send("Runtime.evaluate", {"expression": PLOTS_JS, "returnByValue": True}, session=session)
            state = json.loads(res["result"]["value"])
            done = state["plots"] and all(p["svg"] for p in state["plots"])
            if done or time.monotonic() > deadline:
                break
            time.sleep(0.25)
        metrics = b.send("Page.getLayoutMetrics", session=session)
        size = metrics.get("cssContentSize") or metrics["contentSize"]
        height = int(min(size["height"], 16000))
        shot = b.send("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": True,
                                                 "clip": {"x": 0, "y": 0, "width": width, "height": height,
                                                          "scale": 1}}, session=session, timeout=120)
        screenshot.parent.mkdir(parents=True, exist_ok=True)
        screenshot.write_bytes(base64.b64decode(shot["data"]))
        return {"plots": state, "errors": console_errors(b.events), "screenshot": screenshot}
    finally:
        b.close()
