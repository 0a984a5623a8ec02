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
import random
import select
import socket
import struct
import threading
import time
import unittest

import harness
from harness import carcd, code_of, msgpack, packb, vmrss_kib
from crafted import over_both, register_over_both

daemon, setUpModule, tearDownModule = harness.module_daemon()


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
            self.assertError(r.read_one(mode), "bad_request", 5)   # params 7 too: no valid envelope
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


# ---- parameters of the wrong kind -----------------------------------------------------------------

NOT_AN_INTEGER = (True, False, 1.5, 1e300, "1", "", [], [1], {}, {"a": {"b": []}})
NOT_A_STRING = (True, 7, -1, 1.5, [], ["x"], {}, {"a": 1})


class ParamTypes:
    """Section 2: invalid_params for a parameter missing, of the wrong type
    or out of range; proto/PROTOCOL.md section 2: nil counts as not given,
    an integral float is an integer, a 0 byte makes a string no name the
    server knows.  Each refusal changes neither the game nor the games
    held; the connection goes on."""

    def setUp(self):
        super().setUp()
        g = self.c.new_game(["ann", "bob"], seed=3)
        self.g, self.token, self.admin = g["game"], g["seats"][0]["token"], g["admin_token"]
        self.seat1 = g["seats"][1]["token"]
        self.move = self.c.legal_moves(self.g)["moves"][0]
        self.before = (self.c.state(self.g), self.c.history(self.g))

    def tearDown(self):
        self.assertEqual((self.c.state(self.g), self.c.history(self.g)), self.before)
        self.assertEqual(self.c.ping(), {})
        super().tearDown()

    def expect(self, code, method, params):
        got = code_of(self.c.call, method, params)
        self.assertEqual(got, code, "%s %r" % (method, params))

    def test_game_ids(self):
        for method in ("state", "legal_moves", "score", "history", "subscribe", "unsubscribe"):
            for v in NOT_AN_INTEGER + (None, -1, 0, -0.0, "a\x00b"):
                self.expect("invalid_params", method, {"game": v})
            for v in (2 ** 62, 2 ** 63 - 1, float(2 ** 40)):
                self.expect("no_such_game", method, {"game": v})
        self.expect("invalid_params", "apply_move", {"game": None, "token": self.token, "move": self.move})
        self.expect("invalid_params", "close_game", {"game": "1", "admin_token": self.admin})

    def test_legal_moves_seat(self):
        for v in NOT_AN_INTEGER + (-1, 2, 5, 6, 2 ** 40):
            self.expect("invalid_params", "legal_moves", {"game": self.g, "seat": v})
        for v in (None, 0, 0.0, -0.0, 1.0):
            self.expect(None, "legal_moves", {"game": self.g, "seat": v})

    def test_apply_move_token_seq_and_move(self):
        p = {"game": self.g, "token": self.token, "move": self.move}
        for v in NOT_A_STRING:
            self.expect("invalid_params", "apply_move", dict(p, token=v))
        for v in (None, "", "x", "a\x00b", self.token + "\x00", self.admin):
            self.expect("forbidden", "apply_move", dict(p, token=v))
        self.expect("not_your_turn", "apply_move", dict(p, token=self.seat1))
        for v in NOT_AN_INTEGER:
            self.expect("invalid_params", "apply_move", dict(p, seq=v))
        for v in (-1, 1, 2 ** 40, -2 ** 63, 2 ** 63 - 1):
            self.expect("conflict", "apply_move", dict(p, seq=v))
        for v in (None, "pass", 7, [], True, {}, {"type": None}, {"type": 7}, {"type": ""},
                  {"type": "a\x00b"}, [{"type": "pass"}, 1]):
            self.expect("invalid_params", "apply_move", dict(p, move=v))

    def test_move_fields(self):
        p = {"game": self.g, "token": self.token}
        for field, values in (("x", NOT_AN_INTEGER + (None, 2 ** 40, -2 ** 40)),
                              ("y", NOT_AN_INTEGER + (None, 2 ** 62)),
                              ("rot", NOT_AN_INTEGER + (None, 45, -90, 360, 450, 2 ** 62)),
                              ("tile", NOT_A_STRING + (None, "", "a\x00b", self.move["tile"].lower(),
                                                       self.move["tile"] + "\x00", "x" * 60000)),
                              ("type", NOT_A_STRING + (None, "", "PLACE_TILE", "place_tile\x00"))):
            for v in values:
                self.expect("invalid_params", "apply_move", dict(p, move=dict(self.move, **{field: v})))

    def test_other_methods(self):
        for v in NOT_A_STRING:
            self.expect("invalid_params", "hello", {"client": v})
        for v in (None, "", "a\x00b", "x" * 60000):
            self.expect(None, "hello", {"client": v})
        for v in NOT_AN_INTEGER + (-1, -2 ** 63):
            self.expect("invalid_params", "games", {"after": v})
        for v in NOT_AN_INTEGER + (0, -1, 10001, 2 ** 62):
            self.expect("invalid_params", "games", {"limit": v})
        for v in NOT_A_STRING + (None,):
            self.expect("invalid_params", "close_game", {"game": self.g, "admin_token": v})
        for v in ("", "x", self.admin + "\x00", self.token):
            self.expect("forbidden", "close_game", {"game": self.g, "admin_token": v})
        for method in ("ping", "stats"):
            self.expect(None, method, {"junk": [{"a": None}], "game": "x"})


class NewGameTypes:
    """new_game (section 4.1, proto/PROTOCOL.md section 4): every
    parameter and every entry of its lists and maps of the wrong kind is
    invalid_params, and no game is made."""

    def setUp(self):
        super().setUp()
        self.held = self.c.stats()["games_total"]

    def tearDown(self):
        self.assertEqual(self.c.stats()["games_total"], self.held)
        super().tearDown()

    def refused(self, **params):
        params.setdefault("players", ["ann", "bob"])
        got = code_of(self.c.call, "new_game", params)
        self.assertEqual(got, "invalid_params", params)

    def test_parameters(self):
        arrays = ("players", "expansions", "tiles", "start", "bag")
        for v in (True, 7, -1, 1.5, "x", {}, {"a": 1}):
            for name in arrays:
                self.refused(**{name: v})
        for v in (True, 7, "x", [], [["large", True]]):
            self.refused(components=v)
            self.refused(rules=v)
        for v in NOT_AN_INTEGER + (-1, 2 ** 53, 2 ** 63 - 1, -2 ** 63):
            self.refused(seed=v)
        for v in (1, 0, 1.0, "true", "false", [], {}):
            self.refused(auth=v)
        for v in (None, [], {}):
            self.refused(players=v)

    def test_entries(self):
        for v in (None, True, 7, 1.5, [], {}, "", "a\x00b", "a\nb", "x" * 65):
            self.refused(players=["ann", v])
        for v in (None, True, 7, [], {}, "", "BASE", "base\x00"):
            self.refused(expansions=["base", v])
            self.refused(tiles=["BA/C", v])
        for v in (None, True, 0, 5, 1.5, "1", "Wolf", [], {}):
            self.refused(expansions=["base", "hills-sheep"], bag=[1, v])
        start = {"tile": "BA/RCr", "x": 0, "y": 0, "rot": 0}
        for field, values in (("tile", (None, 7, "", "ba/rcr", [])), ("x", (None, "0", 1.5, True, 1001, 2 ** 62)),
                              ("y", (None, -1001, [])), ("rot", (None, 45, 360, "0", 1.5))):
            for v in values:
                self.refused(start=[dict(start, **{field: v})])
        for v in (None, 1, 0, "true", 1.0, [], {}):
            self.refused(components={"large": v})
        for v in (None, 1, True, "", "NORMAL", [], {}):
            self.refused(rules={"tiny_city": v})
        for v in (None, "1", True, -1, 1001, 5.5, 2 ** 63 - 1):
            self.refused(rules={"catapult_target_points": v})
        for v in (None, 1, "true", 1.0):
            self.refused(rules={"farmers": v})
        # (a JSON object key cannot hold \u0000: that line is bad_request)
        for key in ("", "LARGE", "x" * 1000) + (("a\x00b",) if self.ENCODING == "msgpack" else ()):
            self.refused(components={key: True})
            self.refused(rules={key: True})


class LargeCollections:
    """A request may hold 1 MiB: lists and maps of tens of thousands of
    entries are refused at once with a message that names the limit, and
    never slow the daemon down."""

    def timed(self, code, method, params, words=None):
        t = time.monotonic()
        try:
            self.c.call(method, params)
            got, message = None, ""
        except carcd.Error as e:
            got, message = e.code, e.message
        self.assertLess(time.monotonic() - t, 2.0 * harness.SLOW, method)
        self.assertEqual(got, code, (method, message))
        if words:
            self.assertIn(words, message)

    def test_long_lists_and_maps(self):
        # as many as a request can hold: a JSON line holds 64 KiB
        n = 20000 if self.ENCODING == "msgpack" else 2500
        self.timed("invalid_params", "new_game", {"players": ["a"] * n}, "1 to 6")
        self.timed("invalid_params", "new_game", {"players": ["a"], "tiles": ["BA/C"] * n}, "1 to 320")
        self.timed("invalid_params", "new_game",
                   {"players": ["a"], "start": [{"tile": "BA/RCr", "x": 0, "y": 0, "rot": 0}] * (n // 4)}, "1 to 16")
        self.timed("invalid_params", "new_game",
                   {"players": ["a"], "expansions": ["base", "hills-sheep"], "bag": [1] * n}, "at most 18")
        self.timed("invalid_params", "new_game",
                   {"players": ["a"], "rules": {"r%d" % i: True for i in range(n)}}, "r0")
        self.timed("invalid_params", "new_game",
                   {"players": ["a"], "components": {"c%d" % i: True for i in range(n)}}, "c0")
        g = self.c.new_game(["ann", "bob"])
        many = {"k%d" % i: i for i in range(n)}
        self.timed(None, "state", dict(many, game=g["game"]))
        self.timed("illegal_move", "apply_move",
                   {"game": g["game"], "token": g["seats"][0]["token"], "move": dict(many, type="pass")})
        self.assertEqual(self.c.state(g["game"])["seq"], 0)


# ---- text that is no JSON, keys that are no strings ---------------------------------------------

class NotJson(Wire):
    """Section 1: the line protocol is UTF-8 JSON; a line that is not is
    bad_request and the connection goes on (section 7)."""

    def test_lines(self):
        lines = (b'[0, 1, "state", {"game": NaN}]', b'[0, 1, "state", {"game": Infinity}]',
                 b'[0, 1, "state", {"game": 1e400}]', b'[0, 1, "ping", {"a": "\xff"}]',
                 b'[0, 1, "st\xc0\xafte", {}]', b'[0, 1, "ping", {"a": "\xed\xa0\x80"}]',
                 b'\xef\xbb\xbfping', b'\xffping', b'ping {"a\\u0000": 1}', b'[0, 1, "ping", {}] [0, 2]',
                 b'[0, 1, "ping", {},]', b"[0, 1, 'ping', {}]", b'[0, 1, "ping", {}]\x00',
                 b'ping {} {}', b"ping{}", b"ping\x0b{}")
        with daemon["d"].raw("tcp") as r:
            for i, line in enumerate(lines):
                r.send_line(line)
                self.assertError(r.read_one("json"), "bad_request")
                self.assertPing(r, "json", i)

    def test_values_that_are_json_but_no_integer(self):
        with daemon["d"].raw("tcp") as r:
            for i, value in enumerate(("-0.0", "1e-300", "0.5", "99999999999999999999", "-99999999999999999999",
                                       "1E2000", "[1]")):
                if value == "1E2000":   # past a double: no JSON reader can hold it
                    r.send_line('[0, %d, "state", {"game": %s}]' % (i, value))
                    self.assertError(r.read_one("json"), "bad_request")
                    continue
                r.send_line('[0, %d, "state", {"game": %s}]' % (i, value))
                self.assertError(r.read_one("json"), "invalid_params", i)


class MessagePackKeys(Wire):
    """proto/PROTOCOL.md section 5: a map key that is no string is
    bad_request, answering the msgid; an integral float msgid or type is an
    integer; the connection goes on."""

    def test_keys_and_numbers(self):
        p = packb
        with daemon["d"].raw("unix") as r:
            for key in (b"\x01", b"\xc0", b"\xc3", b"\xcb" + struct.pack(">d", 1.0), b"\x90", b"\x80",
                        b"\xd4\x01\x00"):
                r.send(b"\x94\x00\x05\xa4ping\x81" + key + b"\x01")
                self.assertError(r.read_one("msgpack"), "bad_request", 5)
            r.send(b"\x94\x00\x05\xa5state\x81\xa4game\x81\x01\x01")
            self.assertError(r.read_one("msgpack"), "bad_request", 5)
            for env in (b"\x94\x00\xcb" + struct.pack(">d", 6.0) + b"\xa4ping\x80",
                        b"\x94\xd0\x00\x06\xa4ping\x80", b"\x94\xca" + struct.pack(">f", 0.0) + b"\x06\xa4ping\x80",
                        b"\x94\xcf" + bytes(8) + b"\xcf" + (6).to_bytes(8, "big") + b"\xa4ping\xc0"):
                r.send(env)
                self.assertEqual(r.read_one("msgpack"), [1, 6, None, {}])
            r.send(p([0, 7, "ping", {}]) + b"\x05" + p([0, 8, "ping", {}]))
            self.assertEqual(r.read("msgpack", 3)[0::2], [[1, 7, None, {}], [1, 8, None, {}]])
            self.assertPing(r, "msgpack", 9)


# ---- framing ----------------------------------------------------------------------------------------

class Framing(Wire):
    """Section 1: MessagePack has no framing but its own, lines end in \\n
    or \\r\\n; section 2: responses come in request order.  Requests a
    byte a write are whole requests; thousands in one write are all
    answered, in order; after the first byte the other encoding's bytes
    are only bad input of the encoding chosen."""

    def test_a_byte_a_write(self):
        with daemon["d"].raw("unix") as r:
            for b in packb([0, 1, "state", {"game": 987654321}]) + packb([0, 2, "ping", [{}]]):
                r.send(bytes([b]))
                time.sleep(0.001)
            resp = r.read("msgpack", 2)
            self.assertError(resp[0], "no_such_game", 1)
            self.assertEqual(resp[1], [1, 2, None, {}])
        with daemon["d"].raw("tcp") as r:
            for b in b'[0, 1, "ping", {}]\r\nping\n\r\nstate {"game": 987654321}\r\n':
                r.send(bytes([b]))
            resp = r.read("json", 3)
            self.assertEqual(resp[:2], [[1, 1, None, {}], [1, None, None, {}]])
            self.assertError(resp[2], "no_such_game", None)

    def test_thousands_pipelined_in_one_write(self):
        n = 5000
        with daemon["d"].raw("unix", timeout=60) as r:
            r.send(b"".join(packb([0, i, "ping", {}] if i % 7 else [0, i, "nope", {}]) for i in range(n)))
            out = r.read("msgpack", n, 60 * harness.SLOW)
        self.assertEqual(len(out), n)
        for i, resp in enumerate(out):
            if i % 7:
                self.assertEqual(resp, [1, i, None, {}])
            else:
                self.assertError(resp, "unknown_method", i)
        with daemon["d"].raw("tcp", timeout=60) as r:
            r.send(b"".join(b'[0, %d, "ping", {}]\n' % i for i in range(n)))
            out = r.read("json", n, 60 * harness.SLOW)
        self.assertEqual(out, [[1, i, None, {}] for i in range(n)])

    def test_json_after_messagepack_chose_the_encoding(self):
        # every byte of the line is a positive fixint: an object that is no request
        line = b'[0,2,"ping",{}]\n'
        with daemon["d"].raw("unix") as r:
            r.send(packb([0, 1, "ping", {}]) + line + packb([0, 3, "ping", {}]))
            out = r.read("msgpack", len(line) + 2)
            self.assertEqual((out[0], out[-1]), ([1, 1, None, {}], [1, 3, None, {}]))
            self.assertEqual(len(out), len(line) + 2)
            for resp in out[1:-1]:
                self.assertError(resp, "bad_request", None)

    def test_messagepack_after_json_chose_the_encoding(self):
        with daemon["d"].raw("tcp") as r:
            r.send(b"ping\n" + packb([0, 2, "ping", {}]) + b"\n" + packb([0, 3, "ping", {}]) + b"\nping\n")
            out = r.read("json", 4)
            self.assertEqual((out[0], out[3]), ([1, None, None, {}], [1, None, None, {}]))
            for resp in out[1:3]:
                self.assertError(resp, "bad_request", None)


# ---- connections that misbehave ---------------------------------------------------------------------

def tcp_port():
    return daemon["d"].port


class Connections(Wire):
    """Section 7: no input crashes the server or harms a game; a client
    that vanishes costs its connection only; hundreds of connections are
    served at once; a slow reader never slows the others, and what it
    costs is bounded."""

    def connections(self, c, want, timeout=10.0):
        ok = harness.wait_for(lambda: c.stats()["connections"] == want, timeout * harness.SLOW)
        self.assertTrue(ok, c.stats()["connections"])

    def test_vanishing_mid_message(self):
        request = packb([0, 1, "new_game", {"players": ["ann", "bob"]}])
        with daemon["d"].client("unix") as c:
            held = c.stats()["games_total"]
            for i in range(30):
                with socket.create_connection(("127.0.0.1", tcp_port())) as s:
                    s.sendall(request[:1 + i % (len(request) - 1)])
                with socket.create_connection(("127.0.0.1", tcp_port())) as s:
                    s.sendall(b'new_game {"players": ["ann", ' if i % 2 else b"\xdd\x00\x00")
                s = socket.create_connection(("127.0.0.1", tcp_port()))
                s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                s.sendall(packb([0, 1, "ping", {}]) * 50 + request[:5])
                s.close()   # a reset, with replies unread
            self.connections(c, 1)
            self.assertEqual(c.stats()["games_total"], held)
            self.assertEqual(c.ping(), {})

    def test_watchers_vanishing_mid_game(self):
        with daemon["d"].client("unix") as c:
            g = c.new_game(["ann", "bob"], seed=5)
            game, tokens = g["game"], [s["token"] for s in g["seats"]]
            socks = []
            for i in range(30):
                s = socket.create_connection(("127.0.0.1", tcp_port()))
                s.sendall(packb([0, 1, "subscribe", {"game": game}]) if i % 2 else
                          b'subscribe {"game": %d}\n' % game)
                socks.append(s)
            self.assertTrue(harness.wait_for(lambda: c.games()["games"][-1]["watchers"] == 30, 10 * harness.SLOW))
            rng = random.Random(7)
            n = 0
            while True:
                lm = c.legal_moves(game)
                if lm["phase"] == "over":
                    break
                c.apply_move(game, rng.choice(lm["moves"]), token=tokens[lm["seat"]])
                n += 1
                if n == 5:
                    for s in socks[:10]:
                        s.close()
                elif n == 10:
                    for s in socks[10:20]:
                        s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                        s.sendall(b"\x94\x00")
                        s.close()
            c.close_game(game, g["admin_token"])
            for s in socks[20:]:
                s.close()
            self.connections(c, 1)
            self.assertEqual(code_of(c.state, game), "no_such_game")

    def test_hundreds_at_once(self):
        n = 300
        socks = [socket.create_connection(("127.0.0.1", tcp_port())) for _ in range(n)]
        try:
            for i, s in enumerate(socks):
                s.sendall(packb([0, i, "ping", {}]) if i % 2 else b'[0, %d, "ping", {}]\n' % i)
            for i, s in enumerate(socks):
                s.settimeout(10 * harness.SLOW)
                data = b""
                while not data.endswith(b"\n" if i % 2 == 0 else b"\x80"):
                    chunk = s.recv(100)
                    if not chunk:
                        break
                    data += chunk
                self.assertEqual(msgpack.unpackb(data) if i % 2 else json.loads(data), [1, i, None, {}])
            with daemon["d"].client("unix") as c:
                self.assertEqual(c.stats()["connections"], n + 1)
        finally:
            for s in socks:
                s.close()
        with daemon["d"].client("unix") as c:
            self.connections(c, 1)

    @unittest.skipIf(harness.WRAPPER, "memory figures under valgrind are valgrind's")
    def test_clients_that_never_read(self):
        with daemon["d"].client("unix") as c:
            game = c.new_game(["ann", "bob"])["game"]
        pid = daemon["d"].proc.pid
        rss0 = vmrss_kib(pid)
        burst = (packb([0, 1, "history", {"game": game}]) + packb([0, 2, "hello", {}])) * 2000
        socks = []
        for _ in range(10):
            s = socket.create_connection(("127.0.0.1", tcp_port()))
            s.setblocking(False)
            sent, deadline = 0, time.monotonic() + 1.0
            while time.monotonic() < deadline and sent < 20 * len(burst):
                try:
                    sent += s.send(burst[sent % len(burst):])
                except BlockingIOError:
                    time.sleep(0.01)
            socks.append(s)
        try:
            # each is paused at 1 MiB of replies and 1 MiB of requests read ahead
            self.assertLess(vmrss_kib(pid) - rss0, 10 * 4 * 1024)
            # served meanwhile: a ping left unanswered fails at the client's timeout
            with daemon["d"].client("unix", timeout=10 * harness.SLOW) as c:
                for _ in range(50):
                    c.ping()
                self.assertEqual(c.stats()["connections"], 11)
        finally:
            for s in socks:
                s.close()
        with daemon["d"].client("unix") as c:
            self.connections(c, 1)

    def test_a_flood_does_not_starve_the_others(self):
        """A quiet client is answered while another floods the daemon with
        pings: the flood goes on until the quiet client's 100 pings are
        answered, so a daemon that served the flood first would leave them
        unanswered until the client's timeout.  No clock is read."""
        # The socket blocks: a daemon that stops reading the flood while
        # its replies wait (its back-pressure; for seconds under valgrind)
        # holds the writer in sendall, which a timeout would kill.  The
        # reader waits in select, so that it sees the writer end.
        s = socket.create_connection(("127.0.0.1", tcp_port()))
        chunk, reply = packb([0, 1, "ping", {}]) * 1000, len(packb([1, 1, None, {}]))
        done, sent, got = threading.Event(), [0], [0]

        def flood():
            while not done.is_set():
                s.sendall(chunk)
                sent[0] += 1000

        writer = threading.Thread(target=flood)

        def drain():
            while writer.is_alive() or got[0] < sent[0] * reply:
                if not select.select([s], [], [], 1.0)[0]:
                    continue
                data = s.recv(1 << 20)
                if not data:
                    break
                got[0] += len(data)

        reader = threading.Thread(target=drain)
        writer.start()
        reader.start()
        try:
            with daemon["d"].client("unix", timeout=10 * harness.SLOW) as c:
                for _ in range(100):
                    c.ping()
            flooding = writer.is_alive()
        finally:
            done.set()
            writer.join(30 * harness.SLOW)
            reader.join(30 * harness.SLOW)
            s.close()
        self.assertTrue(flooding)
        self.assertEqual(got[0], sent[0] * reply)


# ---- games that end, close and come back ------------------------------------------------------------

class Lifecycle:
    """Sections 4 and 6: a watcher sees a game to its end and its close;
    a freed id is no_such_game for every method and is never reused;
    history's setup, seed, tiles and moves replay the game in a new one."""

    def test_watched_to_the_end_closed_and_freed(self):
        with daemon["d"].client(self.TRANSPORT, self.ENCODING) as w:
            g = self.c.new_game(["ann", "bob"], seed=11)
            game, tokens = g["game"], [s["token"] for s in g["seats"]]
            self.assertEqual(w.subscribe(game), {"seq": 0})
            record = harness.play_with_client(self.c, game, tokens, random.Random(11))
            seen = []
            while len(seen) < len(record):
                note = w.next_event(10 * harness.SLOW)
                self.assertIsNotNone(note, len(seen))
                seen.append(note)
            self.assertEqual([n["seq"] for n in seen], list(range(1, len(record) + 1)))
            self.assertEqual(seen[-1]["events"][-1]["type"], "game_over")
            self.assertEqual(code_of(self.c.apply_move, game, record[0][1], token=tokens[0]), "game_over")
            self.assertEqual(self.c.close_game(game, g["admin_token"]), {})
            self.assertEqual(w.next_event(10 * harness.SLOW)["events"], [{"type": "game_closed"}])
            for method in ("state", "legal_moves", "score", "history", "subscribe", "unsubscribe"):
                self.assertEqual(code_of(self.c.call, method, {"game": game}), "no_such_game", method)
            self.assertEqual(code_of(self.c.apply_move, game, {"type": "pass"}, token=tokens[0]), "no_such_game")
            self.assertEqual(code_of(self.c.close_game, game, g["admin_token"]), "no_such_game")
            self.assertGreater(self.c.new_game(["ann"])["game"], game)
            self.assertIsNone(w.next_event(0.2))
            self.assertEqual(w.ping(), {})

    def test_history_replayed_into_a_new_game(self):
        g = self.c.new_game(["ann", "bob", "cy"], expansions=["base", "inns-cathedrals"], seed=21)
        game, tokens = g["game"], [s["token"] for s in g["seats"]]
        harness.play_with_client(self.c, game, tokens, random.Random(21))
        h = self.c.history(game)
        setup = h["setup"]
        again = self.c.call("new_game", dict(setup, seed=h["seed"], tiles=h["tiles"]))
        for m in h["moves"]:
            self.assertEqual(self.c.state(again["game"])["seq"], m["seq"] - 1)
            self.c.apply_move(again["game"], m["move"], token=again["seats"][m["seat"]]["token"], seq=m["seq"] - 1)
        h2 = self.c.history(again["game"])
        self.assertEqual((h2["events"], h2["moves"], h2["tiles"]), (h["events"], h["moves"], h["tiles"]))
        self.assertEqual(self.c.score(again["game"]), self.c.score(game))
        # a move of the history sent again to the finished replay changes nothing
        self.assertEqual(code_of(self.c.apply_move, again["game"], h["moves"][-1]["move"],
                                 token=again["seats"][h["moves"][-1]["seat"]]["token"]), "game_over")
        self.assertEqual(self.c.history(again["game"]), h2)


register_over_both(globals(), (ParamTypes, NewGameTypes, LargeCollections, Lifecycle), over_both(daemon))


if __name__ == "__main__":
    unittest.main()
