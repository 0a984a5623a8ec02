"""browser.py - what the browser tests share: headless Chromium driven over the
Chrome DevTools Protocol, a static HTTP server for the source tree, and a
carcd with a WebSocket listener.

    with WsDaemon() as d, Static() as web, Browser() as b:
        page = b.open(web.url("tests/web/client_test.html"))
        page.eval("Carcd.connect(%s).then(c => c.call('hello'))" % json.dumps(d.ws_url))

Browser starts $CHROMIUM (default /usr/bin/chromium) headless, with a fresh
profile directory and the background networking switched off (without that,
Chromium keeps trying to reach Google's services, which on a closed network
only floods it with connections), reads the DevTools port it picked from the
profile's DevToolsActivePort file, and speaks CDP over one WebSocket
(python3-websockets 10.4, whose client is asyncio-only: the asyncio loop runs
in a thread of its own, and the methods here wait on it).  Each Page is a
target (a tab) attached in flat mode.  Every wait is scaled by harness.SLOW.

Use /usr/bin/python3 (Debian's python3-websockets and python3-msgpack).
"""

import asyncio
import atexit
import base64
import functools
import http.server
import itertools
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

import websockets

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "proto"))
import harness  # noqa: E402  (tests/proto/harness.py: the daemon starter, SLOW, carcd.py)

TOP_SRCDIR = harness.TOP_SRCDIR
SLOW = harness.SLOW
CHROMIUM = os.environ.get("CHROMIUM") or "/usr/bin/chromium"
START_TIMEOUT = 30.0 * SLOW     # Chromium's start, to its DevTools port
CDP_TIMEOUT = 15.0 * SLOW       # one DevTools command that is no page's script

VIEWPORT = (1280, 800)          # every Page's, in CSS pixels (and a screenshot's)
CHROMIUM_FLAGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--disable-default-apps", "--disable-extensions", "--no-default-browser-check",
    "--mute-audio", "--disable-breakpad", "--disable-crash-reporter",
    "--window-size=%d,%d" % VIEWPORT, "--remote-debugging-port=0",
]


class JSError(Exception):
    """A JavaScript exception (or a rejected promise) from Page.eval; its text."""


class CDPError(Exception):
    """A DevTools command that failed: {code, message} of the protocol."""


_browsers = set()   # Browsers to close should a test forget


@atexit.register
def _close_leftovers():
    for b in list(_browsers):
        b.close()


class LoopThread:
    """An asyncio loop in a daemon thread; run(coro, timeout) waits for coro
    there.  The DevTools connection runs in one, and so may a test's own
    asyncio server (test_client.FakeServer)."""

    def __init__(self):
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name="cdp-loop", daemon=True)
        self.thread.start()

    def run(self, coro, timeout):
        fut = asyncio.run_coroutine_threadsafe(coro, self.loop)
        try:
            return fut.result(timeout)
        except TimeoutError:     # concurrent.futures.TimeoutError is TimeoutError from 3.11
            fut.cancel()
            raise

    def stop(self):
        if self.loop.is_running():
            self.loop.call_soon_threadsafe(self.loop.stop)
            self.thread.join(5)
        if not self.loop.is_running():
            self.loop.close()


class Browser:
    """A headless Chromium of our own: Browser().open(url) -> Page; close()."""

    def __init__(self, binary=None, extra_flags=()):
        self.binary = binary or CHROMIUM
        self.dir = tempfile.mkdtemp(prefix="carcd-chromium-")
        self.log_path = os.path.join(self.dir, "chromium.log")
        self.proc = None
        self.pages = []
        self._loop = None
        self._ws = None
        self._ids = itertools.count(1)
        self._waiting = {}          # command id -> future of its answer
        self._sessions = {}         # sessionId -> Page
        _browsers.add(self)
        try:
            self._start(list(extra_flags))
        except BaseException:
            self.close()
            raise

    def _start(self, extra_flags):
        if not os.access(self.binary, os.X_OK):
            raise RuntimeError("no Chromium at %s (apt-get install chromium, or set CHROMIUM)" % self.binary)
        profile = os.path.join(self.dir, "profile")
        os.mkdir(profile)
        args = [self.binary] + CHROMIUM_FLAGS + ["--user-data-dir=" + profile] + extra_flags + ["about:blank"]
        self._log = open(self.log_path, "ab")
        # a session of its own, so that close() ends Chromium's helpers too
        self.proc = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=self._log,
                                     stderr=subprocess.STDOUT, start_new_session=True)
        port_file = os.path.join(profile, "DevToolsActivePort")
        deadline = time.monotonic() + START_TIMEOUT
        lines = []
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError("Chromium exited %s at its start:\n%s" % (self.proc.returncode, self.log_tail()))
            try:
                with open(port_file) as f:
                    lines = f.read().split("\n")
            except OSError:
                lines = []
            if len(lines) >= 2 and lines[0].strip().isdigit() and lines[1].strip():
                break
            time.sleep(0.05)
        else:
            raise RuntimeError("Chromium wrote no DevToolsActivePort within %ss:\n%s"
                               % (START_TIMEOUT, self.log_tail()))
        self.port = int(lines[0])
        self.ws_url = "ws://127.0.0.1:%d%s" % (self.port, lines[1].strip())
        self._loop = LoopThread()
        self._loop.run(self._connect(), CDP_TIMEOUT)

    def log_tail(self, n=30):
        try:
            with open(self.log_path, "rb") as f:
                return "\n".join(f.read().decode(errors="replace").splitlines()[-n:])
        except OSError:
            return ""

    # ---- the DevTools connection (runs in the loop's thread) --------------

    async def _connect(self):
        self._ws = await websockets.connect(self.ws_url, max_size=None, ping_interval=None,
                                            close_timeout=1)
        self._reader = asyncio.ensure_future(self._read())

    async def _read(self):
        try:
            async for text in self._ws:
                msg = json.loads(text)
                if "id" in msg:
                    fut = self._waiting.pop(msg["id"], None)
                    if fut and not fut.done():
                        if "error" in msg:
                            fut.set_exception(CDPError("%s: %s" % (msg["error"].get("code"),
                                                                   msg["error"].get("message"))))
                        else:
                            fut.set_result(msg.get("result", {}))
                else:
                    page = self._sessions.get(msg.get("sessionId"))
                    if page:
                        page._event(msg["method"], msg.get("params", {}))
        except websockets.exceptions.ConnectionClosed:
            pass
        finally:
            for fut in self._waiting.values():
                if not fut.done():
                    fut.set_exception(CDPError("the DevTools connection closed"))
            self._waiting.clear()

    async def _send(self, method, params=None, session=None):
        if self._ws is None or self._ws.closed:
            raise CDPError("the DevTools connection is closed (%s)" % method)
        msgid = next(self._ids)
        msg = {"id": msgid, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        fut = asyncio.get_running_loop().create_future()
        self._waiting[msgid] = fut
        await self._ws.send(json.dumps(msg))
        return await fut

    def command(self, method, params=None, session=None, timeout=None):
        """One DevTools command, its result (a dict); raises CDPError."""
        return self._loop.run(self._send(method, params, session),
                              CDP_TIMEOUT if timeout is None else timeout)

    # ---- pages -------------------------------------------------------------

    def open(self, url="about:blank"):
        """A new tab showing url (loaded: its load event has fired)."""
        target = self.command("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = self.command("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        page = Page(self, target, session)
        self._sessions[session] = page
        self.pages.append(page)
        for domain in ("Page", "Runtime", "Log"):
            page.command(domain + ".enable")
        # a viewport of known size, whatever the window around it takes
        page.command("Emulation.setDeviceMetricsOverride", {
            "width": VIEWPORT[0], "height": VIEWPORT[1], "deviceScaleFactor": 1, "mobile": False})
        if url != "about:blank":
            page.goto(url)
        return page

    def close(self):
        """Ends Chromium (and its helpers) and removes its profile; again is harmless."""
        if self._loop is not None:
            if self._ws is not None:
                try:
                    self._loop.run(self._ws.close(), 5)
                except Exception:
                    pass
            self._loop.stop()
            self._loop = None
        if self.proc is not None:
            if self.proc.poll() is None:
                try:
                    os.killpg(self.proc.pid, signal.SIGTERM)
                except ProcessLookupError:
                    pass
                try:
                    self.proc.wait(10 * SLOW)
                except subprocess.TimeoutExpired:
                    try:
                        os.killpg(self.proc.pid, signal.SIGKILL)
                    except ProcessLookupError:
                        pass
                    self.proc.wait()
            else:
                # Chromium itself is gone; helpers left in its session go too
                try:
                    os.killpg(self.proc.pid, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    pass
            self._log.close()
            self.proc = None
        if self.dir:
            shutil.rmtree(self.dir, ignore_errors=True)
            self.dir = None
        _browsers.discard(self)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


class Page:
    """One tab of a Browser."""

    def __init__(self, browser, target, session):
        self.browser, self.target, self.session = browser, target, session
        self._console = []          # what console() returns, in order
        self._lock = threading.Lock()
        self._loaded = threading.Event()

    def command(self, method, params=None, timeout=None):
        return self.browser.command(method, params, self.session, timeout)

    def _event(self, method, params):
        """A DevTools event of this tab (in the loop's thread)."""
        line = None
        if method == "Runtime.consoleAPICalled":
            args = " ".join(_remote_text(a) for a in params.get("args", []))
            line = "%s: %s" % (params.get("type", "log"), args)
        elif method == "Runtime.exceptionThrown":
            line = "exception: %s" % _exception_text(params.get("exceptionDetails", {}))
        elif method == "Log.entryAdded":
            e = params.get("entry", {})
            line = "%s: [%s] %s" % (e.get("level", "info"), e.get("source", "other"), e.get("text", ""))
            if e.get("url"):
                line += " (%s)" % e["url"]
        elif method == "Page.loadEventFired":
            self._loaded.set()
        if line is not None:
            with self._lock:
                self._console.append(line)

    def goto(self, url, timeout=None):
        """Loads url in this tab and waits for its load event; RuntimeError
        when it cannot be loaded (net::ERR_CONNECTION_REFUSED...)."""
        timeout = (30.0 * SLOW) if timeout is None else timeout * SLOW
        self._loaded.clear()
        res = self.command("Page.navigate", {"url": url}, timeout=timeout)
        if res.get("errorText"):
            raise RuntimeError("cannot load %s: %s" % (url, res["errorText"]))
        if "loaderId" not in res:
            return      # a same-document navigation (only the #fragment changed): no load event
        if not self._loaded.wait(timeout):
            raise AssertionError("%s did not finish loading within %ss" % (url, timeout))

    def eval(self, expression, timeout=10):
        """The value of a JavaScript expression in the page (a promise's value
        once it settles), as JSON makes it; a JS exception or rejection raises
        JSError with its text."""
        timeout *= SLOW
        res = self.command("Runtime.evaluate", {
            "expression": expression, "awaitPromise": True, "returnByValue": True,
            "userGesture": True, "replMode": False}, timeout=timeout)
        if "exceptionDetails" in res:
            raise JSError(_exception_text(res["exceptionDetails"]))
        r = res.get("result", {})
        if r.get("type") == "undefined":
            return None
        if "unserializableValue" in r:   # NaN, Infinity, -0, a BigInt
            return r["unserializableValue"]
        return r.get("value")

    def wait_for(self, expression, timeout=10):
        """The first truthy value of expression, evaluated every 50 ms;
        AssertionError naming it when none comes within timeout seconds."""
        deadline = time.monotonic() + timeout * SLOW
        while True:
            value = self.eval(expression, timeout)
            if value:
                return value
            if time.monotonic() >= deadline:
                raise AssertionError("not true within %ss: %s (last value %r)"
                                     % (timeout * SLOW, expression, value))
            time.sleep(0.05)

    def click(self, selector):
        """Scrolls the first element selector matches into view and clicks the
        centre of its box, with real mouse events; LookupError when there is none."""
        box = self.eval("""(() => {
            const el = document.querySelector(%s);
            if (!el) return null;
            el.scrollIntoView({block: "center", inline: "center"});
            const r = el.getBoundingClientRect();
            return {x: r.left + r.width / 2, y: r.top + r.height / 2, w: r.width, h: r.height};
        })()""" % json.dumps(selector))
        if box is None:
            raise LookupError("no element matches %s" % selector)
        if box["w"] <= 0 or box["h"] <= 0:
            raise LookupError("the element %s has no size to click (hidden?)" % selector)
        where = {"x": box["x"], "y": box["y"]}
        self.command("Input.dispatchMouseEvent", dict(where, type="mouseMoved"))
        self.command("Input.dispatchMouseEvent", dict(where, type="mousePressed", button="left", clickCount=1))
        self.command("Input.dispatchMouseEvent", dict(where, type="mouseReleased", button="left", clickCount=1))

    def console(self):
        """What the page logged so far, as "LEVEL: text" lines: console calls
        ("log: ...", "error: ..."), uncaught exceptions and unhandled
        rejections ("exception: ..."), and the browser's own messages about
        the page (a WebSocket or a resource that failed: "error: [network] ...")."""
        with self._lock:
            return list(self._console)

    def screenshot(self, path):
        """A PNG of the tab's viewport at path."""
        data = self.command("Page.captureScreenshot", {"format": "png"})["data"]
        with open(path, "wb") as f:
            f.write(base64.b64decode(data))

    def close(self):
        try:
            self.browser.command("Target.closeTarget", {"targetId": self.target})
        except CDPError:
            pass


def _remote_text(obj):
    """A console argument (a RemoteObject) as text: an object or array from
    its preview ({a: 2, b: "x"}, [1, 2]), an Error its stack."""
    if "value" in obj:
        v = obj["value"]
        return v if isinstance(v, str) else json.dumps(v)
    if "unserializableValue" in obj:
        return obj["unserializableValue"]
    preview = obj.get("preview")
    if preview and obj.get("subtype") not in ("error", "node", "regexp", "date"):
        def prop(p):
            v = p.get("value", p.get("type", ""))
            return json.dumps(v) if p.get("type") == "string" else str(v)
        props = preview.get("properties", [])
        more = ", ..." if preview.get("overflow") else ""
        if obj.get("subtype") == "array":
            return "[%s%s]" % (", ".join(prop(p) for p in props), more)
        return "{%s%s}" % (", ".join("%s: %s" % (p["name"], prop(p)) for p in props), more)
    return obj.get("description") or obj.get("type", "")


def _exception_text(details):
    """An exception's text: the thrown value's description (its stack for an
    Error), else the text CDP gives ("Uncaught ...")."""
    exc = details.get("exception") or {}
    desc = exc.get("description")
    if desc is None and "value" in exc:
        desc = json.dumps(exc["value"])
    return desc if desc else details.get("text", "")


class _StaticHandler(http.server.SimpleHTTPRequestHandler):
    """GET only, nothing written, nothing logged; never cached, so a test that
    changes a file sees it."""

    def do_HEAD(self):
        self.send_error(405, "GET only")

    def do_POST(self):
        self.send_error(405, "GET only")

    do_PUT = do_DELETE = do_PATCH = do_OPTIONS = do_POST

    def end_headers(self):
        self.send_header("Cache-Control", "no-store")
        super().end_headers()

    def log_message(self, fmt, *args):
        pass


class Static:
    """The source tree's top directory over HTTP on 127.0.0.1, in a thread:
    Static().url("contrib/web/index.html")."""

    def __init__(self, root=None):
        self.root = root or TOP_SRCDIR
        handler = functools.partial(_StaticHandler, directory=self.root)
        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        self.origin = "http://127.0.0.1:%d" % self.port
        self.thread = threading.Thread(target=self.server.serve_forever, name="static", daemon=True)
        self.thread.start()

    def url(self, path=""):
        return "http://127.0.0.1:%d/%s" % (self.port, path.lstrip("/"))

    def close(self):
        if self.server is not None:
            self.server.shutdown()
            self.server.server_close()
            self.server = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


class WsDaemon(harness.Daemon):
    """A carcd with a WebSocket listener on a free port of 127.0.0.1 beside
    the harness's tcp and unix ones: .ws_port, .ws_url ("ws://127.0.0.1:PORT/").
    Extra arguments go to carcd as they are (WsDaemon("--idle-timeout", "1"))."""

    def __init__(self, *extra_args, **kw):
        super().__init__("--listen", "ws:127.0.0.1:0", *extra_args, **kw)
        self.ws_port = None
        self.ws_url = None

    def start(self):
        super().start()
        # carcd logs each listener before it serves, and harness's start
        # waited until it answered: the line is there
        deadline = time.monotonic() + harness.START_TIMEOUT
        while True:
            with open(self.log_path, "rb") as f:
                m = re.search(rb"listening on ws:127\.0\.0\.1:(\d+)", f.read())
            if m:
                break
            if time.monotonic() >= deadline:
                self.stop()
                raise harness.DaemonError("carcd logged no ws listener:\n%s" % self.log_tail())
            time.sleep(0.05)
        self.ws_port = int(m.group(1))
        self.ws_url = "ws://127.0.0.1:%d/" % self.ws_port
        return self
