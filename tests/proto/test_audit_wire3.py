"""A third audit of the wire (shared/design/PROTOCOL.md sections 1, 2, 4
and 7; proto/PROTOCOL.md sections 1, 2 and 5) for input no other module
sends:

- JSON nested past the parser's own depth (2048): `limit`, as any
  nesting past 16, and the connection goes on;
- an array that is no request but holds a msgid in its second element
  (two, or five and more elements): the error answers that msgid;
- every method's parameters, a listed move's fields and new_game's nested
  entries set to values of the wrong kind (nil, booleans, negative, huge
  and non-integral numbers, NUL bytes, stray bytes, long strings, arrays,
  maps): the contract's code each time, and nothing changes;
- collections of tens of thousands of entries: a prompt answer;
- JSON text that is no JSON (NaN, 1e400, stray and overlong UTF-8) and
  MessagePack map keys that are no strings: bad_request, and it goes on;
- framing: requests a byte a write, thousands pipelined in one write, the
  other encoding's bytes after the first byte chose one;
- clients that vanish mid-message or mid-subscription, hundreds of
  connections at once, clients that never read: the daemon stays up,
  bounded, and serves everyone else at once;
- a watched game to its end and its close, every method on the freed id,
  `history` replayed into a new game.

Groups that need no raw bytes run over MessagePack on the Unix socket and
JSON lines on TCP."""

import json
import os
import random
import socket
import struct
import threading
import time
import unittest

import harness
from harness import carcd, code_of, msgpack

daemon, setUpModule, tearDownModule = harness.module_daemon()


def packb(obj):
    return msgpack.packb(obj, use_bin_type=True)


def vmrss_kib(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


class Wire(unittest.TestCase):
    def assertError(self, resp, code, msgid="any"):
        self.assertIsNotNone(resp, "no response (expected a %s error)" % code)
        self.assertEqual((len(resp), resp[0], resp[3]), (4, 1, None), resp)
        if msgid != "any":
            self.assertEqual(resp[1], msgid, resp)
        self.assertIsInstance(resp[2], dict, resp)
        self.assertEqual(resp[2].get("code"), code, resp)
        self.assertTrue(resp[2].get("message"), resp)

    def assertPing(self, r, mode, msgid):
        if mode == "msgpack":
            r.send_msgpack([0, msgid, "ping", {}])
        else:
            r.send_line('[0, %d, "ping", {}]' % msgid)
        self.assertEqual(r.read_one(mode), [1, msgid, None, {}])

    def games_held(self):
        with daemon["d"].client("unix") as c:
            return c.stats()["games"]


# ---- JSON deeper than the parser goes ---------------------------------------------------------

class JsonPastTheParsersDepth(Wire):
    """proto/PROTOCOL.md section 5: "a JSON line nesting deeper than 16:
    limit; the connection goes on".  jansson refuses nesting past 2048 on
    its own; that is nesting past 16 too, and gets the same answer, not
    bad_request."""

    def test_deep_arrays_and_objects_in_both_forms(self):
        deep = 3000
        lines = ("[" * deep + "]" * deep,
                 '[0, 4, "ping", ' + "[" * deep + "{}" + "]" * deep + "]",
                 "ping " + "[" * deep + "]" * deep,
                 'ping {"a": ' + '{"a": ' * deep + "1" + "}" * deep + "}")
        with daemon["d"].raw("tcp") as r:
            for i, line in enumerate(lines):
                r.send_line(line)
                resp = r.read_one("json")
                self.assertError(resp, "limit")
                self.assertIn("deeper than 16", resp[2]["message"])
                self.assertPing(r, "json", 10 + i)


# ---- msgids of arrays that are no request -------------------------------------------------------

class MsgidOfNoRequest(Wire):
    """Section 2: a response answers the request's msgid; proto/PROTOCOL.md
    section 5: "bad_request (msgid nil unless it was readable)".  An
    array of two, five or more elements with a msgid second is answered
    with it, as one of three or four elements always was, so a client
    waiting on that msgid hears why; a response or a notification sent to
    the server is told that only requests go there."""

    CASES = ([0, 5], [0, 5, "ping", {}, 1], [0, 5, "ping", {}, None, None, None],
             [0, 5, "ping"], [0, 5, None, {}], [0, 5, "ping", 7], [7, 5, "ping", {}])

    def check(self, r, mode, send):
        for env in self.CASES:
            send(env)
            self.assertError(r.read_one(mode), "invalid_params" if env[3:4] == [7] else "bad_request", 5)
        for env in ([2, "event", {"game": 1, "seq": 0, "events": []}], [1, 6, None, {}]):
            send(env)
            resp = r.read_one(mode)
            self.assertError(resp, "bad_request", None if env[0] == 2 else 6)
            self.assertIn("only requests", resp[2]["message"])
        for env in ([0, "5", "ping", {}, 1], [0, -5]):
            send(env)
            self.assertError(r.read_one(mode), "bad_request", None)
        self.assertPing(r, mode, 9)

    def test_msgpack(self):
        with daemon["d"].raw("unix") as r:
            self.check(r, "msgpack", r.send_msgpack)

    def test_json(self):
        with daemon["d"].raw("tcp") as r:
            self.check(r, "json", lambda env: r.send_line(json.dumps(env)))

    def test_msgpack_with_an_extension_inside(self):
        # from_object gives up on the extension type: the msgid is still read
        with daemon["d"].raw("unix") as r:
            r.send(b"\x95\x00\x05\xa4ping\x80\xd4\x01\x00")
            self.assertError(r.read_one("msgpack"), "bad_request", 5)
            r.send(b"\x92\x00\x05")
            self.assertError(r.read_one("msgpack"), "bad_request", 5)
            self.assertPing(r, "msgpack", 9)
