"""test_harness.py - tests/web/browser.py itself: what the page tests rely on
(Page.eval, wait_for, click, console, screenshot, goto; Static; WsDaemon)
does what it says, so that a page test that fails fails for its page."""

import asyncio
import json
import os
import struct
import tempfile
import time
import unittest
import urllib.error
import urllib.request

import websockets

import browser
from browser import SLOW, Browser, JSError, Static, WsDaemon
import harness

_module = {}


def setUpModule():
    _module["static"] = Static()
    try:
        _module["browser"] = Browser()
    except BaseException:
        _module.pop("static").close()
        raise


def tearDownModule():
    _module.pop("browser").close()
    _module.pop("static").close()


class HarnessCase(unittest.TestCase):

    def setUp(self):
        self.static = _module["static"]
        self.page = _module["browser"].open(self.static.url("tests/web/client_test.html"))

    def tearDown(self):
        self.page.close()

    def test_eval(self):
        p = self.page
        self.assertEqual(p.eval("1 + 1"), 2)
        self.assertEqual(p.eval("({a: [1, 'x', null, true]})"), {"a": [1, "x", None, True]})
        self.assertIsNone(p.eval("undefined"))
        self.assertEqual(p.eval("new Promise(r => setTimeout(() => r('late'), 200))"), "late")
        with self.assertRaises(JSError) as cm:
            p.eval("(() => { throw new TypeError('thrown here'); })()")
        self.assertIn("TypeError: thrown here", str(cm.exception))
        with self.assertRaises(JSError) as cm:
            p.eval("Promise.reject(new Error('rejected here'))")
        self.assertIn("rejected here", str(cm.exception))
        with self.assertRaises(TimeoutError):
            p.eval("new Promise(() => {})", timeout=0.5)
        self.assertEqual(p.eval("location.href"), self.static.url("tests/web/client_test.html"))

    def test_wait_for(self):
        p = self.page
        p.eval("setTimeout(() => { window.later = {n: 7}; }, 300), 1")
        self.assertEqual(p.wait_for("window.later"), {"n": 7})
        t0 = time.monotonic()
        with self.assertRaises(AssertionError) as cm:
            p.wait_for("window.never === 1", timeout=0.5)
        self.assertIn("window.never === 1", str(cm.exception))
        self.assertGreaterEqual(time.monotonic() - t0, 0.5 * SLOW)

    def test_click(self):
        p = self.page
        p.eval("""document.body.innerHTML =
            '<div style="height: 3000px">tall</div><button id="b" style="width: 80px; height: 30px">b</button>' +
            '<button id="hidden" style="display: none">h</button>';
            window.clicks = [];
            document.getElementById("b").addEventListener("click", (e) =>
                clicks.push({trusted: e.isTrusted, target: e.target.id, x: e.clientX, y: e.clientY}));
            document.addEventListener("mousedown", (e) => clicks.push("down"));
            1""")
        self.assertEqual(p.eval("window.scrollY"), 0)
        p.click("#b")
        got = p.wait_for("clicks.length >= 2 && clicks")
        self.assertEqual(got[0], "down")
        self.assertTrue(got[1]["trusted"])
        self.assertEqual(got[1]["target"], "b")
        self.assertGreater(p.eval("window.scrollY"), 0, "not scrolled into view")
        with self.assertRaises(LookupError):
            p.click("#nothing-like-it")
        with self.assertRaises(LookupError):
            p.click("#hidden")

    def test_console(self):
        p = self.page
        p.eval("console.log('plain', 1, {a: 2, b: 'x'}, [1, 'y']); console.warn('careful'); console.error('bad', 3); 1")
        p.eval("setTimeout(() => { throw new Error('uncaught here'); }, 0); 1")
        p.eval("Promise.reject(new Error('unhandled here')); 1")
        lines = p.wait_for("new Promise(r => setTimeout(() => r(true), 300))") and p.console()
        self.assertEqual(lines[0] if lines else "", 'log: plain 1 {a: 2, b: "x"} [1, "y"]')
        self.assertIn("warning: careful", lines)
        self.assertIn("error: bad 3", lines)
        self.assertTrue(any(line.startswith("exception:") and "uncaught here" in line for line in lines), lines)
        self.assertTrue(any(line.startswith("exception:") and "unhandled here" in line for line in lines), lines)

    def test_screenshot(self):
        self.page.eval("document.body.style.background = 'rgb(10, 200, 30)', 1")
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "shot.png")
            self.page.screenshot(path)
            with open(path, "rb") as f:
                data = f.read()
        self.assertEqual(data[:8], b"\x89PNG\r\n\x1a\n")
        width, height = struct.unpack(">II", data[16:24])
        self.assertEqual((width, height), (1280, 800))

    def test_goto(self):
        p = self.page
        p.goto(self.static.url("tests/web/client_test.html?again"))
        self.assertEqual(p.eval("location.search"), "?again")
        self.assertTrue(p.eval("window.pageReady"))
        p.eval("window.stays = 1")
        p.goto(self.static.url("tests/web/client_test.html?again#here"))     # same document
        self.assertEqual(p.eval("[location.hash, window.stays]"), ["#here", 1])
        with self.assertRaises(RuntimeError) as cm:
            p.goto("http://127.0.0.1:%d/" % harness.free_tcp_port())
        self.assertIn("ERR_CONNECTION_REFUSED", str(cm.exception))


class StaticCase(unittest.TestCase):

    def test_get_only(self):
        static = _module["static"]
        with urllib.request.urlopen(static.url("contrib/web/carcd.js"), timeout=10) as r:
            self.assertEqual(r.status, 200)
            self.assertIn("javascript", r.headers["Content-Type"])
            with open(os.path.join(browser.TOP_SRCDIR, "contrib", "web", "carcd.js"), "rb") as f:
                self.assertEqual(r.read(), f.read())
        for method in ("POST", "PUT", "DELETE", "HEAD"):
            req = urllib.request.Request(static.url("contrib/web/carcd.js"), data=b"x" if method != "HEAD" else None,
                                         method=method)
            with self.assertRaises(urllib.error.HTTPError) as cm:
                urllib.request.urlopen(req, timeout=10)
            self.assertEqual(cm.exception.code, 405, method)
        with self.assertRaises(urllib.error.HTTPError) as cm:
            urllib.request.urlopen(static.url("../../etc/passwd"), timeout=10)
        self.assertEqual(cm.exception.code, 404)


class WsDaemonCase(unittest.TestCase):

    def test_ws_url(self):
        with WsDaemon("--idle-timeout", "30") as d:
            self.assertRegex(d.ws_url, r"^ws://127\.0\.0\.1:\d+/$")
            self.assertNotEqual(d.ws_port, d.port)

            async def ping():
                async with websockets.connect(d.ws_url) as ws:
                    await ws.send('[0, 5, "hello", {}]')
                    return json.loads(await ws.recv())
            reply = asyncio.run(ping())
            self.assertEqual(reply[:3], [1, 5, None])
            self.assertEqual(reply[3]["limits"]["idle_timeout"], 30)
            with d.client("tcp") as c:
                self.assertEqual(c.ping(), {})


if __name__ == "__main__":
    unittest.main()
