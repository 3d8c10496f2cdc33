#!/usr/bin/env python3
"""Opens a `cardctl bench --report` page in headless Chromium and checks it as a person would.

    Scripts/report-browser-check.py REPORT.html --screenshot OUT.png \
        --expect latency-histogram,percentile-curve,sweep,operations,comparison

Starts `chromium --headless=new` with a throwaway profile and the DevTools port chosen by the
browser (read from PROFILE/DevToolsActivePort), attaches to its page target over the Chrome
DevTools Protocol (a websocket: the `websocket-client` package), loads file:///…/REPORT.html
in a 1200 px wide window and then:

  * collects console errors (console.error/assert, uncaught exceptions, Log entries of level
    error) and any request the page makes to something other than a file: or data: URL;
  * counts, for every <svg class="chart">, its drawn elements (rect, circle, path, line,
    polyline, text) and measures its box;
  * takes a full-page screenshot, writes it to OUT.png and decodes it (zlib, pure Python) to
    make sure it is not one colour.

Prints a JSON summary and exits 0 when all is well, 1 when a check failed (console error, no
chart, an empty or zero-size chart, an expected chart kind missing, a network request, a blank
screenshot), 2 when it could not run (no chromium, no websocket module, time-out). Chromium is
always killed (its whole process group), also on errors and on the overall time-out (--timeout,
60 s by default).
"""

import argparse
import json
import os
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import time
import urllib.request
import zlib

CHART_ELEMENTS = ["rect", "circle", "path", "line", "polyline", "text"]

CHARTS_SCRIPT = """
(() => {
  const kinds = %s;
  return Array.from(document.querySelectorAll('svg.chart')).map((svg) => {
    const box = svg.getBoundingClientRect();
    const counts = {};
    let drawn = 0;
    for (const kind of kinds) {
      const found = svg.querySelectorAll(kind).length;
      counts[kind] = found;
      drawn += found;
    }
    return {
      kind: svg.getAttribute('data-chart') || '',
      viewBox: svg.getAttribute('viewBox') || '',
      hasTitle: svg.querySelector(':scope > title') !== null,
      hasDesc: svg.querySelector(':scope > desc') !== null,
      width: box.width,
      height: box.height,
      drawn: drawn,
      counts: counts,
    };
  });
})()
""" % json.dumps(CHART_ELEMENTS)


class CheckTimeout(Exception):
    pass


class Unavailable(Exception):
    """What the check needs is not there (exit 2)."""


class DevTools:
    """A minimal Chrome DevTools Protocol client: commands by id, events kept in order."""

    def __init__(self, socket, deadline):
        self.socket = socket
        self.deadline = deadline
        self.next_id = 0
        self.events = []

    def remaining(self):
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise CheckTimeout("time-out talking to chromium")
        return left

    def receive(self):
        self.socket.settimeout(max(0.1, min(self.remaining(), 5)))
        try:
            return json.loads(self.socket.recv())
        except Exception as error:  # websocket.WebSocketTimeoutException and friends
            if type(error).__name__ == "WebSocketTimeoutException":
                return None
            raise

    def call(self, method, **params):
        self.next_id += 1
        command_id = self.next_id
        self.socket.send(json.dumps({"id": command_id, "method": method, "params": params}))
        while True:
            message = self.receive()
            if message is None:
                continue
            if message.get("id") == command_id:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                return message.get("result", {})
            if "method" in message:
                self.events.append(message)

    def wait_for_event(self, method):
        for event in self.events:
            if event.get("method") == method:
                return event
        while True:
            message = self.receive()
            if message is None:
                continue
            if "method" in message:
                self.events.append(message)
                if message["method"] == method:
                    return message


def find_chromium(explicit):
    if explicit:
        return explicit
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        path = shutil.which(name)
        if path:
            return path
    raise Unavailable("chromium is not installed (Scripts/setup.sh installs it)")


def browser_environment():
    """The environment without umockdev's preload: the Swift tests run under umockdev-wrapper,
    whose emulated /sys and /dev (with the USB readers other tests plug in at the same time)
    are no business of the browser's, and Chromium stops with a failed CHECK on them."""
    environment = dict(os.environ)
    for name in ("LD_PRELOAD", "UMOCKDEV_DIR"):
        environment.pop(name, None)
    return environment


def read_port(profile, browser, deadline):
    port_file = os.path.join(profile, "DevToolsActivePort")
    while time.monotonic() < deadline:
        if browser.poll() is not None:
            tail = ""
            try:
                with open(os.path.join(profile, "chromium.log"), errors="replace") as handle:
                    tail = " | ".join(line.strip() for line in handle.readlines()[-8:])
            except OSError:
                pass
            raise Unavailable(f"chromium exited with status {browser.returncode} before it listened; its log: {tail}")
        try:
            with open(port_file) as handle:
                first = handle.readline().strip()
            if first:
                return int(first)
        except (FileNotFoundError, ValueError):
            pass
        time.sleep(0.1)
    raise CheckTimeout("chromium did not write DevToolsActivePort in time")


def page_socket_url(port, deadline):
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=5) as answer:
                targets = json.load(answer)
            for target in targets:
                if target.get("type") == "page" and target.get("webSocketDebuggerUrl"):
                    return target["webSocketDebuggerUrl"]
        except OSError:
            pass
        time.sleep(0.2)
    raise CheckTimeout("chromium showed no page target in time")


def png_colour_count(png, enough=2):
    """Distinct pixel values in a PNG (8-bit, non-interlaced), counting until `enough`."""
    if png[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    position = 8
    header = None
    compressed = []
    while position < len(png):
        (length,) = struct.unpack(">I", png[position : position + 4])
        kind = png[position + 4 : position + 8]
        data = png[position + 8 : position + 8 + length]
        position += 12 + length
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", data)
        elif kind == b"IDAT":
            compressed.append(data)
        elif kind == b"IEND":
            break
    if header is None:
        raise ValueError("PNG without IHDR")
    width, height, depth, colour_type, _, _, interlace = header
    channels = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}.get(colour_type)
    if depth != 8 or channels is None or interlace != 0:
        raise ValueError(f"PNG kind not handled (depth {depth}, colour type {colour_type}, interlace {interlace})")
    raw = zlib.decompress(b"".join(compressed))
    stride = width * channels
    previous = bytearray(stride)
    seen = set()
    for row_index in range(height):
        start = row_index * (stride + 1)
        kind = raw[start]
        row = bytearray(raw[start + 1 : start + 1 + stride])
        if kind == 1:
            for i in range(channels, stride):
                row[i] = (row[i] + row[i - channels]) & 0xFF
        elif kind == 2:
            for i in range(stride):
                row[i] = (row[i] + previous[i]) & 0xFF
        elif kind == 3:
            for i in range(stride):
                left = row[i - channels] if i >= channels else 0
                row[i] = (row[i] + ((left + previous[i]) >> 1)) & 0xFF
        elif kind == 4:
            for i in range(stride):
                a = row[i - channels] if i >= channels else 0
                b = previous[i]
                c = previous[i - channels] if i >= channels else 0
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                predictor = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                row[i] = (row[i] + predictor) & 0xFF
        first = bytes(row[:channels])
        if bytes(row) != first * width:
            return enough  # two colours in this row
        seen.add(first)
        if len(seen) >= enough:
            return len(seen)
        previous = row
    return len(seen)


def check(arguments):
    deadline = time.monotonic() + arguments.timeout
    report = os.path.abspath(arguments.report)
    if not os.path.isfile(report):
        raise Unavailable(f"no such report: {report}")
    try:
        import websocket  # websocket-client from PyPI
    except ImportError:
        raise Unavailable("the python module websocket (pip package websocket-client) is missing; Scripts/setup.sh installs it")
    chromium = find_chromium(arguments.chromium)
    profile = tempfile.mkdtemp(prefix="cardflow-report-check-")
    log_path = os.path.join(profile, "chromium.log")
    browser = None
    socket = None
    try:
        # A browser that dies at start (a failed CHECK on a loaded machine) gets two more tries;
        # each failure's log is kept in the message.
        failures = []
        port = None
        for _ in range(3):
            with open(log_path, "ab") as log:
                browser = subprocess.Popen(
                    [
                        chromium, "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                        "--remote-debugging-port=0",
                        f"--user-data-dir={profile}", "--no-first-run", "--no-default-browser-check",
                        "--disable-extensions", "--disable-background-networking", "--hide-scrollbars",
                        "--window-size=1200,900", "about:blank",
                    ],
                    stdin=subprocess.DEVNULL, stdout=log, stderr=log, start_new_session=True,
                    env=browser_environment(),
                )
            try:
                port = read_port(profile, browser, deadline)
                break
            except Unavailable as failure:
                failures.append(str(failure))
                stop(browser)
                browser = None
        if port is None:
            raise Unavailable("; ".join(failures))
        socket = websocket.create_connection(
            page_socket_url(port, deadline), timeout=max(1, deadline - time.monotonic()), suppress_origin=True
        )
        tools = DevTools(socket, deadline)
        for domain in ("Runtime", "Log", "Page", "Network"):
            tools.call(f"{domain}.enable")
        tools.call("Emulation.setDeviceMetricsOverride", width=1200, height=900, deviceScaleFactor=1, mobile=False)
        url = "file://" + urllib.request.pathname2url(report)
        navigation = tools.call("Page.navigate", url=url)
        if navigation.get("errorText"):
            raise RuntimeError(f"navigation to {url} failed: {navigation['errorText']}")
        tools.wait_for_event("Page.loadEventFired")
        charts = tools.call("Runtime.evaluate", expression=CHARTS_SCRIPT, returnByValue=True)
        if "exceptionDetails" in charts:
            raise RuntimeError(f"the chart count script failed: {charts['exceptionDetails']}")
        charts = charts["result"].get("value") or []
        metrics = tools.call("Page.getLayoutMetrics")
        content = metrics.get("cssContentSize") or metrics.get("contentSize") or {}
        page_height = int(min(max(content.get("height", 900), 1), 16384))
        shot = tools.call(
            "Page.captureScreenshot", format="png", captureBeyondViewport=True,
            clip={"x": 0, "y": 0, "width": 1200, "height": page_height, "scale": 1},
        )
        import base64

        png = base64.b64decode(shot["data"])
        screenshot = os.path.abspath(arguments.screenshot)
        os.makedirs(os.path.dirname(screenshot), exist_ok=True)
        with open(screenshot, "wb") as handle:
            handle.write(png)
        # Events that arrived with the last answers are in tools.events already.
        return summarise(arguments, url, tools.events, charts, png, screenshot, page_height)
    finally:
        if socket is not None:
            try:
                socket.close()
            except Exception:
                pass
        if browser is not None:
            stop(browser)
        shutil.rmtree(profile, ignore_errors=True)


def stop(browser):
    """Ends chromium and every process it started (its own process group)."""
    if browser.poll() is None:
        try:
            os.killpg(browser.pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
        try:
            browser.wait(timeout=5)
        except subprocess.TimeoutExpired:
            try:
                os.killpg(browser.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            browser.wait(timeout=5)
    # Helpers (zygote, GPU, renderers) share the group; make sure none is left.
    try:
        os.killpg(browser.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def console_errors(events):
    errors = []
    for event in events:
        method, params = event.get("method"), event.get("params", {})
        if method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
            text = " ".join(str(argument.get("value", argument.get("description", ""))) for argument in params.get("args", []))
            errors.append(f"console.{params.get('type')}: {text}")
        elif method == "Runtime.exceptionThrown":
            details = params.get("exceptionDetails", {})
            description = details.get("exception", {}).get("description") or details.get("text", "")
            errors.append(f"exception: {description}")
        elif method == "Log.entryAdded" and params.get("entry", {}).get("level") == "error":
            entry = params["entry"]
            errors.append(f"log ({entry.get('source')}): {entry.get('text')} {entry.get('url', '')}".strip())
    return errors


def network_requests(events, page_url):
    requests = []
    for event in events:
        if event.get("method") == "Network.requestWillBeSent":
            url = event.get("params", {}).get("request", {}).get("url", "")
            if url != page_url and not url.startswith(("data:", "about:", "file:")):
                requests.append(url)
    return requests


def summarise(arguments, url, events, charts, png, screenshot, page_height):
    expected = [kind for kind in (arguments.expect or "").split(",") if kind]
    kinds = [chart["kind"] for chart in charts]
    problems = []
    errors = console_errors(events)
    problems += errors
    requests = network_requests(events, url)
    problems += [f"the page requested {request}" for request in requests]
    if not charts:
        problems.append("no svg.chart on the page")
    for index, chart in enumerate(charts):
        name = f"chart {index + 1} ({chart['kind'] or 'no data-chart'})"
        if chart["drawn"] == 0:
            problems.append(f"{name} draws nothing")
        if chart["width"] <= 0 or chart["height"] <= 0:
            problems.append(f"{name} has zero size ({chart['width']}×{chart['height']})")
        if not chart["viewBox"]:
            problems.append(f"{name} has no viewBox")
    for kind in expected:
        if kind not in kinds:
            problems.append(f"no {kind} chart")
    try:
        colours = png_colour_count(png)
    except ValueError as error:
        colours = 0
        problems.append(f"screenshot not decodable: {error}")
    if colours < 2:
        problems.append("the screenshot is a single colour")
    summary = {
        "report": os.path.abspath(arguments.report),
        "ok": not problems,
        "problems": problems,
        "consoleErrors": errors,
        "networkRequests": requests,
        "charts": charts,
        "chartKinds": sorted(set(kinds)),
        "screenshot": {"path": screenshot, "bytes": len(png), "width": 1200, "height": page_height,
                       "moreThanOneColour": colours >= 2},
    }
    print(json.dumps(summary, indent=2, sort_keys=True))
    return 0 if not problems else 1


def main():
    parser = argparse.ArgumentParser(description="Checks a bench HTML report in headless Chromium.")
    parser.add_argument("report", help="the HTML report")
    parser.add_argument("--screenshot", required=True, help="where to write the full-page PNG")
    parser.add_argument("--expect", default="", help="comma-separated data-chart kinds that must be present")
    parser.add_argument("--timeout", type=float, default=60, help="overall seconds (default 60)")
    parser.add_argument("--chromium", help="the browser binary (default: chromium on PATH)")
    arguments = parser.parse_args()

    def on_alarm(signum, frame):
        raise CheckTimeout(f"no result within {arguments.timeout:.0f} s")

    signal.signal(signal.SIGALRM, on_alarm)
    signal.alarm(int(arguments.timeout) + 5)
    try:
        return check(arguments)
    except (Unavailable, CheckTimeout) as error:
        print(json.dumps({"ok": False, "problems": [str(error)]}), file=sys.stdout)
        print(f"report-browser-check: {error}", file=sys.stderr)
        return 2
    except Exception as error:
        print(json.dumps({"ok": False, "problems": [f"{type(error).__name__}: {error}"]}), file=sys.stdout)
        print(f"report-browser-check: {type(error).__name__}: {error}", file=sys.stderr)
        return 1
    finally:
        signal.alarm(0)


if __name__ == "__main__":
    sys.exit(main())
