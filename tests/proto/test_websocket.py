"""test_websocket.py - carcd's WebSocket listeners, end to end (proto/PROTOCOL.md
section 1, "WebSocket (for browsers)"; section 5 for bad input; section 6 for
options, exit statuses and systemd).

Two clients: python3-websockets (10.4, its asyncio client), an independent
RFC 6455 implementation, and WSRaw, this file's own, which builds each frame by
hand for what a well-behaved library never sends.  The module's daemon listens
on ws:127.0.0.1:PORT with --max-line 1024 beside the harness's tcp and unix
listeners; tests that stop a daemon, set --ws-origin or pass sockets as
systemd does start daemons of their own.
"""

import asyncio
import base64
import collections
import hashlib
import json
import os
import re
import signal
import socket
import struct
import time
import unittest

import msgpack
import websockets
import websockets.exceptions

import harness
from harness import CARCD, PYTHON, carcd, packb
from test_daemon import LAUNCHER, Proc, run_carcd

GUID = b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11"
MAX_LINE = 1024
T = 5.0 * harness.SLOW   # the longest any one answer may take

OP_CONT, OP_TEXT, OP_BIN, OP_CLOSE, OP_PING, OP_PONG = 0, 1, 2, 8, 9, 10
PING = b'[0,1,"ping",{}]'


def accept_of(key):
    """RFC 6455 4.2.2: base64(SHA-1(key + GUID)), computed here, not taken from anyone."""
    return base64.b64encode(hashlib.sha1(key.encode() + GUID).digest()).decode()


def new_key(nbytes=16):
    return base64.b64encode(os.urandom(nbytes)).decode()


def _mask(key, data):
    if not data:
        return b""
    k = (key * (len(data) // 4 + 1))[:len(data)]
    return (int.from_bytes(data, "big") ^ int.from_bytes(k, "big")).to_bytes(len(data), "big")


def frame(opcode, payload=b"", fin=True, mask=True, rsv=0):
    """One frame as RFC 6455 5.2 lays it out; rsv is the 3 reserved bits (4: RSV1)."""
    if isinstance(payload, str):
        payload = payload.encode()
    n = len(payload)
    head = bytes([(0x80 if fin else 0) | (rsv << 4) | opcode])
    m = 0x80 if mask else 0
    if n < 126:
        head += bytes([m | n])
    elif n < 1 << 16:
        head += bytes([m | 126]) + struct.pack(">H", n)
    else:
        head += bytes([m | 127]) + struct.pack(">Q", n)
    if not mask:
        return head + payload
    key = os.urandom(4)
    return head + key + _mask(key, payload)


def close_frame(code=None, reason=b""):
    return frame(OP_CLOSE, b"" if code is None else struct.pack(">H", code) + reason)


def upgrade_request(port, path="/", method="GET", version="HTTP/1.1", key=None, headers=None,
                    pad=0):
    """An opening handshake; headers maps a name to its value (None drops a default)."""
    h = {"Host": "127.0.0.1:%d" % port, "Upgrade": "websocket", "Connection": "Upgrade",
         "Sec-WebSocket-Key": key or new_key(), "Sec-WebSocket-Version": "13"}
    for name, value in (headers or {}).items():
        h.pop(name, None)
        if value is not None:
            h[name] = value
    lines = ["%s %s %s" % (method, path, version)] + ["%s: %s" % kv for kv in h.items()]
    if pad:
        lines.append("X-Padding: " + "p" * pad)
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


# an answer to a handshake: status None when it was no HTTP answer
Response = collections.namedtuple("Response", "status reason headers body closed")


class WSRaw(harness.Raw):
    """A WebSocket client of our own, on a bare socket."""

    def __init__(self, port, timeout=T):
        super().__init__("tcp:127.0.0.1:%d" % port, timeout)
        self.port = port
        self.buf = b""

    def _fill(self, deadline):
        """Read more into buf; False at EOF or the deadline."""
        data = None if self.eof else self._recv(deadline - time.monotonic())
        if not data:
            return False
        self.buf += data
        return True

    def _need(self, n, deadline):
        while len(self.buf) < n:
            if not self._fill(deadline):
                return False
        return True

    # ---- the opening handshake ------------------------------------------------------
    def handshake(self, request):
        """Send request, read the answer: a Response.  For a refusal, its body is
        everything up to the close, and .closed whether the daemon closed in time."""
        self.send(request)
        deadline = time.monotonic() + self.timeout
        while b"\r\n\r\n" not in self.buf:
            if not self._fill(deadline):
                return Response(None, "", {}, self.buf, self.eof)
        head, self.buf = self.buf.split(b"\r\n\r\n", 1)
        lines = head.decode("latin-1").split("\r\n")
        m = re.match(r"HTTP/1\.[01] (\d{3}) ?(.*)$", lines[0])
        if not m:
            return Response(None, lines[0], {}, self.buf, self.eof)
        headers = {}
        for line in lines[1:]:
            name, _, value = line.partition(":")
            name = name.strip().lower()
            headers[name] = (headers[name] + ", " if name in headers else "") + value.strip()
        status = int(m.group(1))
        if status == 101:
            return Response(status, m.group(2), headers, b"", False)
        while self._fill(deadline):
            pass
        return Response(status, m.group(2), headers, self.buf, self.eof)

    def upgrade(self, testcase, **kw):
        key = kw.pop("key", None) or new_key()
        resp = self.handshake(upgrade_request(self.port, key=key, **kw))
        testcase.assertEqual(resp.status, 101, resp)
        testcase.assertEqual(resp.headers.get("sec-websocket-accept"), accept_of(key), resp)
        return self

    # ---- frames ---------------------------------------------------------------------
    def read_frame(self, timeout=None):
        """(fin, rsv, opcode, payload), or None at EOF or the timeout.  A server
        never masks (RFC 6455 5.1): a masked frame fails the test."""
        deadline = time.monotonic() + (self.timeout if timeout is None else timeout)
        if not self._need(2, deadline):
            return None
        b0, b1 = self.buf[0], self.buf[1]
        assert not b1 & 0x80, "the server masked a frame: %r" % self.buf[:16]
        off = 2 + {126: 2, 127: 8}.get(b1 & 0x7f, 0)
        if not self._need(off, deadline):
            return None
        n = int.from_bytes(self.buf[2:off], "big") if off > 2 else b1 & 0x7f
        if not self._need(off + n, deadline):
            return None
        payload, self.buf = self.buf[off:off + n], self.buf[off + n:]
        return bool(b0 & 0x80), (b0 >> 4) & 7, b0 & 0x0f, payload

    def read_message(self, timeout=None):
        """(opcode, payload) of the next message or control frame; None if nothing."""
        deadline = time.monotonic() + (self.timeout if timeout is None else timeout)
        parts, first = [], None
        while True:
            f = self.read_frame(deadline - time.monotonic())
            if f is None:
                return None
            fin, rsv, op, payload = f
            assert rsv == 0, "a frame with reserved bits from the server (no extension agreed)"
            if op >= 8:
                assert fin, "a fragmented control frame from the server"
                return op, payload
            first = op if first is None else first
            parts.append(payload)
            if fin:
                return first, b"".join(parts)

    def send_text(self, text):
        return self.send(frame(OP_TEXT, text))

    def send_binary(self, data):
        return self.send(frame(OP_BIN, data))

    def closed_by_peer(self, timeout=None):
        deadline = time.monotonic() + (self.timeout if timeout is None else timeout)
        while not self.eof:
            self.buf = b""
            if not self._fill(deadline) and not self.eof:
                return False
        return True


def close_code(payload):
    """(code, reason) of a close frame's payload; (None, "") for an empty one."""
    if not payload:
        return None, ""
    return struct.unpack(">H", payload[:2])[0], payload[2:].decode("utf-8")


def arun(coro, timeout=60.0 * harness.SLOW):
    return asyncio.run(asyncio.wait_for(coro, timeout))


def lib_connect(port, **kw):
    kw.setdefault("open_timeout", T)
    kw.setdefault("close_timeout", T)
    return websockets.connect("ws://127.0.0.1:%d/" % port, **kw)


async def lib_recv(ws, timeout=T):
    return await asyncio.wait_for(ws.recv(), timeout)


async def lib_silent(ws, timeout=0.3):
    """True when nothing arrives within timeout."""
    try:
        await asyncio.wait_for(ws.recv(), timeout)
        return False
    except asyncio.TimeoutError:
        return True


def start_ws_daemon(*args):
    """A harness.Daemon with a WebSocket listener too (its port in .ws_port)."""
    error = None
    for _ in range(4):   # the free port may be taken before carcd binds it
        port = harness.free_tcp_port()
        d = harness.Daemon("--listen", "ws:127.0.0.1:%d" % port, *args)
        try:
            d.start()
        except harness.DaemonError as e:
            error = e
            continue
        d.ws_port = port   # bound before the tcp listener answered
        return d
    raise error


def players_held(client):
    return [g["players"] for g in client.games()["games"]]


MAIN = {}


def setUpModule():
    MAIN["d"] = start_ws_daemon("--max-line", str(MAX_LINE))


def tearDownModule():
    harness.stop_checked(MAIN.pop("d"))


class WSCase(harness.ReplyAsserts, unittest.TestCase):
    def setUp(self):
        self.d = MAIN["d"]
        self.port = self.d.ws_port

    def tearDown(self):
        self.assertTrue(self.d.alive(), "carcd died:\n" + self.d.log_tail())

    def ws(self):
        return WSRaw(self.port).upgrade(self)

    def read_json(self, w, timeout=None):
        """One reply: a text message, no newline, one JSON array."""
        m = w.read_message(timeout)
        self.assertIsNotNone(m, "no message from the daemon")
        op, payload = m
        self.assertEqual(op, OP_TEXT, "not a text message: %r" % (m,))
        self.assertNotIn(b"\n", payload)
        msg = json.loads(payload.decode("utf-8"))
        self.assertIsInstance(msg, list, payload)
        return msg

    def read_msgpack(self, w, timeout=None):
        """One reply: a binary message holding exactly one MessagePack object."""
        m = w.read_message(timeout)
        self.assertIsNotNone(m, "no message from the daemon")
        op, payload = m
        self.assertEqual(op, OP_BIN, "not a binary message: %r" % (m,))
        return msgpack.unpackb(payload, raw=False, strict_map_key=False)   # ExtraData if more

    def assertClose(self, w, code, what="", answer=True):
        """The next frame is a close with code (nothing before it), then the
        connection ends (once we answer it, if answer).  Returns the reason."""
        m = w.read_message()
        self.assertIsNotNone(m, "no close frame (%s)" % what)
        self.assertEqual(m[0], OP_CLOSE, "%s: %r came before any close frame" % (what, m))
        got, reason = close_code(m[1])
        self.assertEqual(got, code, "%s: close code %s (reason %r), not %s" % (what, got, reason, code))
        if answer:
            w.send(close_frame(code))
        self.assertTrue(w.closed_by_peer(T), "%s: the connection stayed open after the close" % what)
        return reason

    def assertSpeaksWebSocket(self, port):
        with WSRaw(port).upgrade(self) as w:
            self.assertPings(w)
        with WSRaw(port) as w:
            self.assertEqual(w.handshake(PING + b"\n").status, 400)

    def assertPlain(self, port):
        with carcd.Client("tcp:127.0.0.1:%d" % port, encoding="json", timeout=T) as c:
            self.assertEqual(c.ping(), {})
        with WSRaw(port) as w:
            resp = w.handshake(upgrade_request(port))
            self.assertIsNone(resp.status, "a plain listener answered a WebSocket handshake: %r" % (resp,))
            self.assertEqual(resp.body, b"")
            self.assertTrue(resp.closed)

    def assertPings(self, w):
        w.send_text(PING)
        self.assertEqual(self.read_json(w), [1, 1, None, {}])

    def assertStillServing(self):
        with self.ws() as w:
            self.assertPings(w)
        with self.d.client("tcp", "json", timeout=T) as c:
            self.assertEqual(c.ping(), {})


# ---- 1. the opening handshake ---------------------------------------------------------

class Handshake(WSCase):
    def test_101_with_the_right_accept_on_any_path(self):
        for path in ("/", "/carcd", "/any/deep/path?x=1&y=%20"):
            with self.subTest(path=path), WSRaw(self.port) as w:
                key = new_key()
                # a library's offers of a subprotocol and of compression are ignored
                resp = w.handshake(upgrade_request(self.port, path=path, key=key, headers={
                    "Sec-WebSocket-Protocol": "carcd, chat",
                    "Sec-WebSocket-Extensions": "permessage-deflate; client_max_window_bits"}))
                self.assertEqual(resp.status, 101, resp)
                self.assertEqual(resp.headers.get("sec-websocket-accept"), accept_of(key))
                self.assertEqual(resp.headers.get("upgrade", "").lower(), "websocket", resp)
                self.assertIn("upgrade", resp.headers.get("connection", "").lower(), resp)
                self.assertNotIn("sec-websocket-protocol", resp.headers)
                self.assertNotIn("sec-websocket-extensions", resp.headers)
                self.assertPings(w)

    def test_header_names_any_case_and_connection_lists(self):
        for conn in ("Upgrade", "keep-alive, Upgrade", "upgrade"):
            with self.subTest(connection=conn), WSRaw(self.port) as w:
                key = new_key()
                req = ("GET / HTTP/1.1\r\nhost: 127.0.0.1\r\nUPGRADE: websocket\r\n"
                       "connection: %s\r\nsec-websocket-KEY: %s\r\nSEC-WEBSOCKET-VERSION: 13\r\n"
                       "user-agent: test\r\n\r\n" % (conn, key)).encode()
                resp = w.handshake(req)
                self.assertEqual(resp.status, 101, resp)
                self.assertEqual(resp.headers.get("sec-websocket-accept"), accept_of(key))
                self.assertPings(w)

    def test_the_library_connects(self):
        async def go():
            async with lib_connect(self.port) as ws:   # offers permessage-deflate by default
                self.assertEqual(ws.extensions, [], "an extension was agreed")
                self.assertIsNone(ws.subprotocol)
                await ws.send('[0,3,"hello",{"client":"websockets"}]')
                reply = await lib_recv(ws)
                self.assertIsInstance(reply, str)
                msg = json.loads(reply)
                self.assertEqual(msg[:3], [1, 3, None])
                self.assertEqual(msg[3]["server"], "carcd")
                self.assertEqual(msg[3]["limits"]["max_line"], MAX_LINE)
        arun(go())

    def assertRefused(self, request, status, what):
        with WSRaw(self.port) as w:
            resp = w.handshake(request)
            self.assertEqual(resp.status, status, "%s: %r" % (what, resp))
            self.assertTrue(resp.body.strip(), "%s: the answer's body does not say what was wrong" % what)
            self.assertTrue(resp.closed, "%s: the connection stayed open after %s" % (what, status))
            return resp

    def test_400_for_what_is_no_websocket_request(self):
        p = self.port
        cases = [
            ("no Upgrade", upgrade_request(p, headers={"Upgrade": None})),
            ("Upgrade: h2c", upgrade_request(p, headers={"Upgrade": "h2c"})),
            ("no Connection", upgrade_request(p, headers={"Connection": None})),
            ("Connection: keep-alive", upgrade_request(p, headers={"Connection": "keep-alive"})),
            ("no key", upgrade_request(p, headers={"Sec-WebSocket-Key": None})),
            ("no version", upgrade_request(p, headers={"Sec-WebSocket-Version": None})),
            ("key of 15 bytes", upgrade_request(p, key=new_key(15))),
            ("key of 17 bytes", upgrade_request(p, key=new_key(17))),
            ("key not base64", upgrade_request(p, key="!!!!not*base64!!!!!!!==")),
            ("POST", upgrade_request(p, method="POST")),
            ("HTTP/1.0", upgrade_request(p, version="HTTP/1.0")),
            ("a JSON line", PING + b"\n"),
            ("a shorthand line", b"ping\n"),
            ("MessagePack", packb([0, 1, "ping", {}])),
        ]
        for what, req in cases:
            with self.subTest(what):
                self.assertRefused(req, 400, what)

    def test_lf_line_ends_are_taken_too(self):
        """A hand-written client's handshake with bare \\n line ends is answered
        at once, not after the header limit or the client's end."""
        key = new_key()
        with WSRaw(self.port) as w:
            resp = w.handshake(upgrade_request(self.port, key=key).replace(b"\r\n", b"\n"))
            self.assertEqual(resp.status, 101, resp)
            self.assertEqual(resp.headers.get("sec-websocket-accept"), accept_of(key))
            self.assertPings(w)

    def test_426_for_another_version_names_13(self):
        for version in ("8", "14"):
            with self.subTest(version=version):
                resp = self.assertRefused(
                    upgrade_request(self.port, headers={"Sec-WebSocket-Version": version}), 426, version)
                self.assertEqual(resp.headers.get("sec-websocket-version"), "13", resp)

    def test_431_for_a_header_block_over_8192_bytes(self):
        self.assertRefused(upgrade_request(self.port, pad=9000), 431, "9 KB of headers")
        with WSRaw(self.port) as w:   # a large block within the limit is served
            self.assertEqual(w.handshake(upgrade_request(self.port, pad=7000)).status, 101)

    def test_json_lines_on_a_ws_port_play_nothing(self):
        with WSRaw(self.port) as w:
            w.send(b'new_game {"players":["json-on-ws"]}\n[0,2,"ping",{}]\n')
            deadline = time.monotonic() + T
            while w._fill(deadline):
                pass
            self.assertTrue(w.eof, "the connection stayed open")
            self.assertTrue(w.buf.startswith(b"HTTP/1.1 400"), w.buf[:200])
            self.assertNotIn(b'[1,', w.buf)
        with self.d.client("tcp", "json", timeout=T) as c:
            self.assertNotIn(["json-on-ws"], players_held(c))

    def test_plain_listener_still_closes_on_http(self):
        """Section 5, unchanged: a plain listener closes on an HTTP request
        line without a word, a WebSocket upgrade too."""
        self.assertPlain(self.d.port)


# ---- 2. origins -------------------------------------------------------------------------

class Origins(WSCase):
    def test_any_origin_without_ws_origin(self):
        for origin in ("http://evil.example", "null", "https://x.example:8443"):
            with self.subTest(origin=origin), WSRaw(self.port) as w:
                w.upgrade(self, headers={"Origin": origin})

    def test_only_the_listed_origins(self):
        d = start_ws_daemon("--ws-origin", "http://a.example", "--ws-origin", "http://b.example:8080")
        try:
            for origin, status in (("http://a.example", 101), ("http://b.example:8080", 101),
                                   (None, 101), ("http://c.example", 403), ("http://b.example", 403),
                                   ("https://a.example", 403), ("http://a.example:80", 403)):
                with self.subTest(origin=origin), WSRaw(d.ws_port) as w:
                    resp = w.handshake(upgrade_request(d.ws_port, headers={"Origin": origin}))
                    self.assertEqual(resp.status, status, resp)
                    if status == 101:
                        self.assertPings(w)
                    else:
                        self.assertTrue(resp.closed, "the connection stayed open after 403")

            async def lib(origin):
                try:
                    async with lib_connect(d.ws_port, origin=origin) as ws:
                        await ws.send("ping")
                        return json.loads(await lib_recv(ws))
                except websockets.exceptions.InvalidStatusCode as e:
                    return e.status_code
            self.assertEqual(arun(lib("http://b.example:8080")), [1, None, None, {}])
            self.assertEqual(arun(lib("http://c.example")), 403)
        finally:
            self.assertEqual(d.stop(), 0)


# ---- 3. JSON over text messages -----------------------------------------------------

class TextMessages(WSCase):
    def test_random_game_over_the_library(self):
        rng = harness.new_rng(self.id())

        async def go():
            async with lib_connect(self.port) as ws:
                n = 0

                async def call(method, params):
                    nonlocal n
                    n += 1
                    await ws.send(json.dumps([0, n, method, params]))
                    reply = await lib_recv(ws)
                    self.assertIsInstance(reply, str)
                    self.assertNotIn("\n", reply)
                    msg = json.loads(reply)
                    self.assertEqual(msg[:2], [1, n], msg)
                    self.assertIsNone(msg[2], msg)
                    return msg[3]
                g = await call("new_game", {"players": ["ann", "bob", "cy"], "seed": rng.randrange(1 << 40)})
                game, tokens = g["game"], [s["token"] for s in g["seats"]]
                events = []
                for _ in range(3000):
                    lm = await call("legal_moves", {"game": game})
                    if lm["phase"] == "over":
                        break
                    res = await call("apply_move", {"game": game, "token": tokens[lm["seat"]],
                                                    "seq": lm["seq"], "move": rng.choice(lm["moves"])})
                    events += res["events"]
                else:
                    self.fail("the game did not end")
                return events, await call("score", {"game": game}), await call("state", {"game": game})
        events, score, state = arun(go())
        over = [ev for ev in events if ev["type"] == "game_over"]
        self.assertEqual(len(over), 1)
        self.assertTrue(score["final"])
        self.assertTrue(state["over"])
        self.assertEqual(over[0]["scores"], score["scores"])
        self.assertEqual(harness.points_by_seat(events, 3), score["scores"])
        self.assertEqual([s["score"] for s in state["seats"]], score["scores"])

    def test_shorthand_line_ends_and_two_lines_in_a_message(self):
        async def go():
            async with lib_connect(self.port) as ws:
                out = []
                for text, n in (("ping", 1), ("ping {}", 1), ('[0,5,"ping",{}]\n', 1),
                                ('[0,6,"ping",{}]\r\n', 1), ('  ping  \r\n', 1),
                                ('[0,7,"ping",{}]\n[0,8,"ping",{}]', 2),
                                ('[0,9,"ping",{}]\r\nping\n', 2)):
                    await ws.send(text)
                    got = [await lib_recv(ws) for _ in range(n)]
                    self.assertTrue(await lib_silent(ws), "more replies than requests to %r" % text)
                    for reply in got:
                        self.assertIsInstance(reply, str)
                        self.assertNotIn("\n", reply)
                    out.append([json.loads(r) for r in got])
                return out
        ok = lambda i: [1, i, None, {}]   # noqa: E731
        self.assertEqual(arun(go()), [[ok(None)], [ok(None)], [ok(5)], [ok(6)], [ok(None)],
                                      [ok(7), ok(8)], [ok(9), ok(None)]])

    def test_fragmented_text_message(self):
        with self.ws() as w:
            req = b'[0,11,"state",{"game":999999999}]'
            w.send(frame(OP_TEXT, req[:4], fin=False) + frame(OP_CONT, req[4:9], fin=False))
            w.send(frame(OP_PING, b"mid"))   # a control frame inside a fragmented message
            self.assertEqual(w.read_message(), (OP_PONG, b"mid"))
            self.assertIsNone(w.read_message(0.3), "a reply before the message was whole")
            w.send(frame(OP_CONT, req[9:20], fin=False) + frame(OP_CONT, req[20:], fin=True))
            self.assertErrorResponse(self.read_json(w), "no_such_game", 11)
            w.send(frame(OP_TEXT, b"", fin=False) + frame(OP_CONT, PING, fin=True))
            self.assertEqual(self.read_json(w), [1, 1, None, {}])

    def test_over_max_line_is_limit_and_goes_on(self):
        async def go():
            async with lib_connect(self.port) as ws:
                await ws.send('[0,12,"ping",{"pad":"%s"}]' % ("x" * (2 * MAX_LINE)))
                big = json.loads(await lib_recv(ws))
                self.assertTrue(await lib_silent(ws))
                await ws.send('[0,13,"ping",{"pad":"%s"}]' % ("x" * (MAX_LINE - 100)))
                return big, json.loads(await lib_recv(ws))
        big, small = arun(go())
        self.assertErrorResponse(big, "limit")
        self.assertEqual(small, [1, 13, None, {}])

    def test_bad_json_and_bad_utf8_are_bad_request_and_go_on(self):
        with self.ws() as w:
            for bad in (b'[0,14,"ping"', b"{not json}", b"42", b'[0,15,"ping",{"a":"\xff\xfe"}]',
                        b'ping {"a":"\xc3"}', b"\xed\xa0\x80"):
                with self.subTest(bad=bad):
                    w.send_text(bad)
                    self.assertErrorResponse(self.read_json(w), "bad_request")
                    self.assertPings(w)


# ---- 4. MessagePack over binary messages ------------------------------------------------

class BinaryMessages(WSCase):
    def test_requests_split_and_joined(self):
        with self.ws() as w:
            w.send_binary(packb([0, 21, "ping", {}]))
            self.assertEqual(self.read_msgpack(w), [1, 21, None, {}])
            req = packb([0, 22, "new_game", {"players": ["ann", "bob"], "seed": 5}])
            w.send_binary(req[:7])
            self.assertIsNone(w.read_message(0.3), "a reply to half a request")
            w.send_binary(req[7:])
            g = self.read_msgpack(w)
            self.assertEqual(g[:3], [1, 22, None])
            game = g[3]["game"]
            w.send_binary(packb([0, 23, "state", {"game": game}]) + packb([0, 24, "score", {"game": game}]))
            st, sc = self.read_msgpack(w), self.read_msgpack(w)
            self.assertEqual(st[:3], [1, 23, None])
            self.assertEqual(st[3], g[3]["state"])
            self.assertEqual(sc[:3], [1, 24, None])
            self.assertEqual(sc[3]["scores"], [0, 0])
            # one request whose bytes straddle two messages, each also holding a whole one
            a, b, c = packb([0, 25, "ping", {}]), packb([0, 26, "ping", {}]), packb([0, 27, "ping", {}])
            w.send_binary(a + b[:3])
            w.send_binary(b[3:] + c)
            self.assertEqual([self.read_msgpack(w) for _ in range(3)],
                             [[1, i, None, {}] for i in (25, 26, 27)])

    def test_library_binary(self):
        async def go():
            async with lib_connect(self.port) as ws:
                await ws.send(packb([0, 31, "tiles", {"rot": 90}]))
                reply = await lib_recv(ws)
                self.assertIsInstance(reply, bytes)
                return msgpack.unpackb(reply, raw=False)
        msg = arun(go())
        self.assertEqual(msg[:3], [1, 31, None])
        self.assertEqual(msg[3]["rot"], 90)

    def test_declared_length_over_the_limit_is_limit_then_1009(self):
        with self.ws() as w:
            w.send_binary(packb([0, 32, "ping", {}]))
            self.assertEqual(self.read_msgpack(w), [1, 32, None, {}])
            w.send_binary(b"\x94\x00\x21\xdb\x7f\xff\xff\xff")   # a str32 of 2 GiB declared
            self.assertErrorResponse(self.read_msgpack(w), "limit")
            self.assertClose(w, 1009, "a 2 GiB string")
        self.assertStillServing()

    def test_byte_c1_is_bad_request_then_1007(self):
        with self.ws() as w:
            w.send_binary(b"\xc1")
            self.assertErrorResponse(self.read_msgpack(w), "bad_request")
            self.assertClose(w, 1007, "byte 0xc1")
        self.assertStillServing()

    def test_an_object_left_unfinished_is_bad_request_then_1007(self):
        """Section 1: a MessagePack object left unfinished by the close gets
        bad_request and 1007, as on a plain socket (section 5)."""
        with self.ws() as w:
            w.send_binary(packb([0, 3, "ping", {}]) + b"\x94\x00\x01")
            w.send(close_frame(1000))
            self.assertEqual(self.read_msgpack(w), [1, 3, None, {}])
            self.assertErrorResponse(self.read_msgpack(w), "bad_request")
            self.assertClose(w, 1007, "an unfinished object")


# ---- 5. subscriptions --------------------------------------------------------------------

class Subscriptions(WSCase):
    def test_events_reach_ws_watchers_of_both_kinds(self):
        with self.d.client("tcp", "json", timeout=T) as player, self.ws() as wb:
            g = player.new_game(["ann", "bob"])
            game, token = g["game"], g["seats"][0]["token"]
            wb.send_binary(packb([0, 41, "subscribe", {"game": game}]))
            self.assertEqual(self.read_msgpack(wb), [1, 41, None, {"seq": 0}])

            async def go():
                async with lib_connect(self.port) as ws:
                    await ws.send(json.dumps([0, 42, "subscribe", {"game": game}]))
                    self.assertEqual(json.loads(await lib_recv(ws)), [1, 42, None, {"seq": 0}])
                    results = []
                    for _ in range(2):
                        lm = player.legal_moves(game)
                        results.append(player.apply_move(game, lm["moves"][0], token=token, seq=lm["seq"]))
                    notes = [await lib_recv(ws), await lib_recv(ws)]
                    for n in notes:
                        self.assertIsInstance(n, str)
                        self.assertNotIn("\n", n)
                    return results, [json.loads(n) for n in notes]
            results, notes = arun(go())
            want = [[2, "event", {"game": game, "seq": i + 1, "events": r["events"]}]
                    for i, r in enumerate(results)]
            self.assertEqual(notes, want)
            self.assertEqual([self.read_msgpack(wb), self.read_msgpack(wb)], want)


# ---- 6. one encoding per connection ----------------------------------------------------

class MixedEncodings(WSCase):
    def test_text_then_binary_is_1003(self):
        with self.ws() as w:
            self.assertPings(w)
            w.send_binary(packb([0, 51, "ping", {}]))
            self.assertClose(w, 1003, "binary after text")

    def test_binary_then_text_is_1003(self):
        with self.ws() as w:
            w.send_binary(packb([0, 52, "ping", {}]))
            self.assertEqual(self.read_msgpack(w), [1, 52, None, {}])
            w.send_text(PING)
            self.assertClose(w, 1003, "text after binary")


# ---- 7. control frames -------------------------------------------------------------------

class ControlFrames(WSCase):
    def test_ping_pong(self):
        with self.ws() as w:
            for payload in (b"", b"carcd?", bytes(range(125))):
                w.send(frame(OP_PING, payload))
                self.assertEqual(w.read_message(), (OP_PONG, payload))
            w.send(frame(OP_PONG, b"unasked"))
            self.assertIsNone(w.read_message(0.3), "an answer to a pong")
            self.assertPings(w)

    def test_close_after_the_replies(self):
        with self.ws() as w:
            w.send(frame(OP_TEXT, PING) + frame(OP_TEXT, b'[0,61,"state",{"game":987654321}]')
                   + close_frame(1000, b"bye"))
            self.assertEqual(self.read_json(w), [1, 1, None, {}])
            self.assertErrorResponse(self.read_json(w), "no_such_game", 61)
            self.assertClose(w, 1000, "a close after two requests", answer=False)

    def test_close_codes_echoed(self):
        for code, want in ((None, 1000), (1000, 1000), (1001, 1001), (4000, 4000)):
            with self.subTest(code=code), self.ws() as w:
                w.send(close_frame(code))
                self.assertClose(w, want, "close %s" % code, answer=False)

    def test_a_close_reason_not_utf8_is_1007(self):
        with self.ws() as w:
            w.send(close_frame(1000, b"\xff\xfe"))
            self.assertClose(w, 1007, "a close reason of bad UTF-8", answer=False)

    def test_library_close(self):
        async def go():
            ws = await lib_connect(self.port)
            await ws.send("ping")
            reply = await lib_recv(ws)
            await ws.close(1000, "done")
            return reply, ws.close_code
        reply, code = arun(go())
        self.assertEqual(json.loads(reply), [1, None, None, {}])
        self.assertEqual(code, 1000)


# ---- 8. frames that break RFC 6455 -------------------------------------------------------

class ProtocolErrors(WSCase):
    CASES = [
        ("unmasked", frame(OP_TEXT, PING, mask=False)),
        ("RSV1", frame(OP_TEXT, PING, rsv=4)),
        ("RSV3", frame(OP_BIN, packb([0, 1, "ping", {}]), rsv=1)),
        ("opcode 3", frame(3, PING)),
        ("opcode 0xb", frame(0xb, b"")),
        ("ping of 126 bytes", frame(OP_PING, b"x" * 126)),
        ("close of 126 bytes", frame(OP_CLOSE, struct.pack(">H", 1000) + b"x" * 124)),
        ("fragmented ping", frame(OP_PING, b"abc", fin=False)),
        ("continuation first", frame(OP_CONT, PING)),
        ("text inside text", frame(OP_TEXT, PING[:5], fin=False) + frame(OP_TEXT, PING[5:])),
        ("binary inside text", frame(OP_TEXT, PING[:5], fin=False) + frame(OP_BIN, PING[5:])),
        ("64-bit length, top bit set",
         bytes([0x81, 0x80 | 127]) + b"\x80" + bytes(7) + os.urandom(4) + PING),
    ]

    def test_each_gets_1002_with_a_reason_and_no_reply(self):
        for what, data in self.CASES:
            with self.subTest(what), self.ws() as w:
                w.send(data)
                reason = self.assertClose(w, 1002, what)
                self.assertRegex(reason, r"[A-Za-z]{3}", "%s: a close 1002 without a reason in words" % what)
        self.assertStillServing()

    def test_after_a_good_request(self):
        """A request received whole before the bad frame is answered, as
        before a client's close and a closing MessagePack error: "no reply"
        is for the frame that breaks the protocol."""
        with self.ws() as w:
            w.send(frame(OP_TEXT, PING) + frame(OP_TEXT, PING, mask=False))
            self.assertEqual(self.read_json(w), [1, 1, None, {}])
            self.assertClose(w, 1002, "unmasked after a request")


# ---- 9, 10. stopping; connections cut short ------------------------------------------------

class Lifecycle(WSCase):
    def test_sigterm_closes_with_1001(self):
        d = start_ws_daemon()
        try:
            with WSRaw(d.ws_port).upgrade(self) as w, WSRaw(d.ws_port).upgrade(self) as wb:
                self.assertPings(w)
                wb.send_binary(packb([0, 71, "ping", {}]))
                self.assertEqual(self.read_msgpack(wb), [1, 71, None, {}])
                d.proc.send_signal(signal.SIGTERM)
                for c in (w, wb):
                    self.assertClose(c, 1001, "SIGTERM")
        finally:
            self.assertEqual(d.stop(), 0, d.log_tail())

    def test_idle_connection_gets_a_close_frame(self):
        """Section 1: an idle WebSocket gets close code 1000 with a reason (a
        page sees no reason for a socket that is just dropped), then ends."""
        d = start_ws_daemon("--idle-timeout", "1")
        try:
            with WSRaw(d.ws_port).upgrade(self) as w:
                self.assertPings(w)
                started = time.monotonic()
                reason = self.assertClose(w, 1000, "idle", answer=False)
                self.assertGreater(time.monotonic() - started, 0.5)
                self.assertIn("idle", reason)
            # one that never reads its close frame is cut off all the same
            with WSRaw(d.ws_port).upgrade(self) as w:
                self.assertTrue(w.closed_by_peer(10 * harness.SLOW), "an idle connection stayed open")
            self.assertTrue(d.alive())
        finally:
            self.assertEqual(d.stop(), 0, d.log_tail())

    @staticmethod
    def cuts(tag):
        """(what, bytes) of messages cut short; the first three would make a
        game of one player named tag-1, tag-2, tag-3 if they were played."""
        line = 'new_game {"players":["%s-%d"]}\n'
        return [("a fragment holding a line, no FIN", frame(OP_TEXT, line % (tag, 1), fin=False)),
                ("a text frame cut short", frame(OP_TEXT, line % (tag, 2))[:20]),
                ("a binary frame cut short",
                 frame(OP_BIN, packb([0, 1, "new_game", {"players": [tag + "-3"]}]))[:-3]),
                ("half a frame header", frame(OP_TEXT, b"x")[:1]),
                ("half a handshake", None)]

    def cut(self, data, reset):
        w = WSRaw(self.port)
        if data is None:
            w.send(upgrade_request(self.port)[:30])
        else:
            w.upgrade(self)
            w.send(data)
        time.sleep(0.1)
        if reset:
            w.sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        w.close()

    def test_connections_cut_inside_a_message_leave_the_daemon_serving(self):
        for reset in (False, True):
            for what, data in self.cuts("cut-%s" % reset):
                with self.subTest(what, reset=reset):
                    self.cut(data, reset)
        time.sleep(0.2)
        self.assertStillServing()

    def test_a_message_cut_short_loses_what_is_no_whole_line(self):
        """Section 1: "Lines are served as their newlines arrive, so a
        connection that ends inside a text message loses only what of it was
        not yet a whole line (and a binary message, the MessagePack object it
        cut)"."""
        cuts = self.cuts("lost")[:3]
        for what, data in cuts:
            self.cut(data, False)
        time.sleep(0.3)
        with self.d.client("tcp", "json", timeout=T) as c:
            held = players_held(c)
        self.assertIn(["lost-1"], held, "a whole line in an unfinished message is served")
        for (what, _), name in zip(cuts[1:], ("lost-2", "lost-3")):
            self.assertNotIn([name], held, "%s: new_game was played, it never arrived whole" % what)


# ---- 11, 12. systemd and the command line ------------------------------------------------

def listening_socket():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    s.listen(16)
    return s, s.getsockname()[1]


class Systemd(WSCase):
    """Sockets passed as systemd passes them: LISTEN_FDNAMES names them, colon-separated."""

    def served(self, names, check):
        socks = [listening_socket() for _ in names.split(":")]
        fds = [s.fileno() for s, _ in socks]
        d = Proc(None, pass_fds=fds, argv=[PYTHON, "-c", LAUNCHER, ",".join(map(str, fds)), "-", CARCD],
                 env=dict(os.environ, LISTEN_FDNAMES=names))
        try:
            for s, _ in socks:
                s.close()
            d.wait_log(r"ready")
            for (_, port), name in zip(socks, names.split(":")):
                check[name](port)
            self.assertEqual(d.stop(), 0, d.text())
        finally:
            d.close()

    def test_fd_named_ws(self):
        self.served("ws", {"ws": self.assertSpeaksWebSocket})

    def test_fd_named_otherwise_is_plain(self):
        self.served("other", {"other": self.assertPlain})

    def test_names_one_per_fd(self):
        self.served("carcd:ws:ws", {"ws": self.assertSpeaksWebSocket, "carcd": self.assertPlain})


class CommandLine(WSCase):
    def test_port_0_is_logged_and_served(self):
        d = Proc(["--listen", "ws:127.0.0.1:0"])
        try:
            port = int(d.wait_log(r"info: listening on ws:127\.0\.0\.1:(\d+)").group(1))
            self.assertNotEqual(port, 0)
            d.wait_log(r"ready")
            self.assertNotIn("listening on tcp:", d.text(), "a default listener beside --listen ws:")
            self.assertSpeaksWebSocket(port)
            self.assertEqual(d.stop(), 0, d.text())
        finally:
            d.close()

    def test_bad_ws_addresses_exit_1_with_a_message(self):
        busy, busy_port = listening_socket()
        try:
            for spec in ("ws:127.0.0.1:99999", "ws:127.0.0.1:-1", "ws:127.0.0.1:http", "ws:127.0.0.1",
                         "ws:", "ws::7878", "ws:[127.0.0.1]:0", "ws:[::1]", "ws:127.0.0.1:%d" % busy_port):
                with self.subTest(spec=spec):
                    status, err = run_carcd("--listen", spec)
                    self.assertEqual(status, 1, (spec, err))
                    self.assertIn("error: ", err)
                    self.assertNotIn("listening on", err)
        finally:
            busy.close()

    def test_ws_origin_option(self):
        """Section 6: --ws-origin is repeatable up to 64 (a 65th, or one with
        no value, is a bad value: exit 2); without a ws listener, a warning."""
        origins = sum((["--ws-origin", "http://o%d.example" % i] for i in range(65)), [])
        for args in (origins, ["--ws-origin"]):
            status, err = run_carcd("--listen", "ws:127.0.0.1:0", *args)
            self.assertEqual(status, 2, err)
            self.assertTrue(err.startswith("carcd: "), err)
        d = Proc(["--listen", "ws:127.0.0.1:0"] + origins[:128])
        try:
            port = int(d.wait_log(r"listening on ws:127\.0\.0\.1:(\d+)").group(1))
            d.wait_log(r"ready")
            for origin, status in (("http://o63.example", 101), ("http://o0.example", 101),
                                   ("http://o64.example", 403)):
                with WSRaw(port) as w:
                    resp = w.handshake(upgrade_request(port, headers={"Origin": origin}))
                    self.assertEqual(resp.status, status, (origin, resp))
        finally:
            d.close()
        # shapes a browser never sends would refuse every page: refused at start
        for bad in ("http://a.example/", "HTTP://a.example", "http://A.example", "a.example",
                    "http://", "://a.example", "http://a.example/path", "http://a example"):
            with self.subTest(origin=bad):
                status, err = run_carcd("--listen", "ws:127.0.0.1:0", "--ws-origin", bad)
                self.assertEqual(status, 2, err)
                self.assertIn("--ws-origin `%s`" % bad, err)
        d = Proc(["--listen", "ws:127.0.0.1:0", "--ws-origin", "null", "--log-level", "debug"])
        try:
            port = int(d.wait_log(r"listening on ws:127\.0\.0\.1:(\d+)").group(1))
            d.wait_log(r"ready")
            for origin, status in (("null", 101), ("http://x.example\x01", 403)):
                with WSRaw(port) as w:
                    resp = w.handshake(upgrade_request(port, headers={"Origin": origin}))
                    self.assertEqual(resp.status, status, (origin, resp))
            # the log names the page refused, its control bytes as ?
            d.wait_log(r"refused, 403: .*\(Origin: http://x\.example\?\)")
        finally:
            d.close()
        d = Proc(["--listen", "tcp:127.0.0.1:0", "--ws-origin", "http://a.example"])
        try:
            d.wait_log(r"ready")
            self.assertRegex(d.text(), r"(?i)warn: .*origin", "no warning about --ws-origin")
        finally:
            d.close()

if __name__ == "__main__":
    unittest.main()
