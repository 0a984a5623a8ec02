"""The wire contract (shared/design/PROTOCOL.md), statement by statement,
where the other modules leave a statement unpinned: msgids, params forms,
the limits at their exact boundaries, what becomes of the connection after
each kind of bad input, hello's lists, new_game's defaults, the seed
commitment, placements and feature ports, figure ids, the checks of
apply_move, subscriptions, paging of `games`, close_game and stats."""

import json
import time
import unittest

import msgpack

import harness
from harness import carcd, code_of, packb

daemon, setUpModule, tearDownModule = harness.module_daemon()

MIB = 1 << 20
PORTS = ("N", "E", "S", "W", "NL", "NR", "EL", "ER", "SL", "SR", "WL", "WR", "cloister", "tower", "I", "II")
METHODS = {"hello", "new_game", "state", "legal_moves", "apply_move", "score", "history", "games",
           "close_game", "subscribe", "unsubscribe", "stats", "ping"}
# methods carcd has beyond the contract (proto/PROTOCOL.md section 4)
OWN_METHODS = {"tiles"}
ERROR_CODES = {"bad_request", "unknown_method", "invalid_params", "no_such_game", "forbidden",
               "not_your_turn", "illegal_move", "conflict", "game_over", "limit", "internal"}
# section 4.1: expansion names and the reference tile sets they mean
EXPANSIONS = {"base": "basic:1", "river": "river/1:1", "river2": "river/2:1", "mini": "gq11",
              "inns-cathedrals": "inns-and-cathedrals:1", "traders-builders": "traders-and-builders:1",
              "princess-dragon": "princess-and-dragon:1", "tower": "tower:1", "abbey-mayor": "abbey-and-mayor:1",
              "count": "count", "king-robber": "king-and-robber:1", "cathars": "siege/cathars",
              "cult": "cult/6", "catapult": "catapult", "hills-sheep": "hills-and-sheep:1"}
COMPONENTS = ("large", "wagon", "mayor", "builder", "pig", "barn", "shepherd", "abbey", "tower", "king",
              "robber", "goods", "fairy", "dragon", "count", "catapult")
# rules/RULES.md section 6: every option, its values and its default
RULES = {
    "farm_scoring": (["per-city-4", "per-farm-3", "per-farm-4"], "per-city-4"),
    "farmers": ([True, False], True),
    "tiny_city": (["normal", "2-per-tile-1"], "normal"),
    "fairy_placement": (["on-tile", "next-follower"], "on-tile"),
    "princess": (["may", "must"], "may"),
    "dragon_move": (["before-scoring", "after-scoring"], "before-scoring"),
    "wagon_move": (["connected", "adjacent-tiles"], "connected"),
    "barn_placement": (["no-second-barn", "second-barn-ok"], "no-second-barn"),
    "escape": (["each-city", "one-per-turn"], "each-city"),
    "escape_cloister": (["siege-tile", "any-tile"], "siege-tile"),
    "coc_tiles": (["strict", "outer-features"], "strict"),
    "coc_final": (["any-quarter", "market-only"], "any-quarter"),
    "tower_exchange": (["choice", "automatic"], "choice"),
    "hill_tiebreak": (["at-least-one", "count"], "at-least-one"),
    "gq11_pig_herd": (["pig", "nothing"], "pig"),
    "abbey_final_round": ([False, True], False),
    "volcano_lake_extra_turn": ([True, False], True),
    "catapult_target_points": (int, 5),
    "catapult_catch_points": (int, 5),
    "unplaceable_tile": (["discard", "reshuffle"], "discard"),
}


def nested(depth, leaf):
    """A ping request nesting `depth` deep (the envelope is 1, params 2)
    around `leaf`."""
    v = leaf
    for _ in range(depth - 2):
        v = [v]
    return [0, 3, "ping", {"a": v}]


class Case(unittest.TestCase):
    def setUp(self):
        self.c = daemon["d"].client("unix")
        self.rng = harness.new_rng(self.id())

    def tearDown(self):
        self.c.close()

    def assertCode(self, code, fn, *args, **kw):
        with self.assertRaises(carcd.Error, msg="%s %r %r" % (fn.__name__, args, kw)) as cm:
            fn(*args, **kw)
        self.assertEqual(cm.exception.code, code, str(cm.exception))
        self.assertTrue(cm.exception.message)
        return cm.exception

    def assertError(self, resp, code, msgid):
        self.assertIsInstance(resp, list, resp)
        self.assertEqual(len(resp), 4, resp)
        self.assertEqual((resp[0], resp[1], resp[3]), (1, msgid, None), resp)
        self.assertIsInstance(resp[2], dict, resp)
        self.assertEqual(resp[2]["code"], code, resp)
        self.assertLessEqual(set(resp[2]), {"code", "message", "data"}, resp)
        self.assertIsInstance(resp[2]["message"], str, resp)


# ---- section 1 and 2: transport and envelope ---------------------------------------------

class Envelope(Case):
    def test_first_byte_array16_and_array32_pick_messagepack(self):
        for data in (b"\xdc\x00\x04\x00\x05\xa4ping\x80",                 # array16 of 4
                     b"\xdd\x00\x00\x00\x04\x00\x06\xa4ping\x80"):        # array32 of 4
            with daemon["d"].raw("unix") as r:
                r.send(data)
                self.assertEqual(r.read_one("msgpack"), [1, data[-7], None, {}])
                r.send_msgpack([0, 7, "ping", {}])                      # and it stays MessagePack
                self.assertEqual(r.read_one("msgpack"), [1, 7, None, {}])

    def test_other_first_bytes_pick_the_line_protocol(self):
        for first in (b" ", b"\n", b"["):
            with daemon["d"].raw("tcp") as r:
                r.send(first + (b'0, 4, "ping", {}]\n' if first == b"[" else b'[0, 4, "ping", {}]\n'))
                self.assertEqual(r.read_one("json"), [1, 4, None, {}])

    def test_msgid_range_and_echo(self):
        for msgid in (0, 1, 0x7fffffff, 0xffffffff):
            with daemon["d"].raw("unix") as r:
                r.send_msgpack([0, msgid, "ping", {}])
                self.assertEqual(r.read_one("msgpack"), [1, msgid, None, {}])
                # an error answers the msgid too
                r.send_msgpack([0, msgid, "no_such_method", {}])
                self.assertError(r.read_one("msgpack"), "unknown_method", msgid)
                r.send_msgpack([0, msgid, "state", {"game": "x"}])
                self.assertError(r.read_one("msgpack"), "invalid_params", msgid)
            with daemon["d"].raw("tcp") as r:
                r.send_line('[0, %d, "ping", {}]' % msgid)
                self.assertEqual(r.read_one("json"), [1, msgid, None, {}])
                r.send_line('[0, %d, "state", {"game": 987654321}]' % msgid)
                self.assertError(r.read_one("json"), "no_such_game", msgid)

    def test_msgid_out_of_range_is_bad_request_and_the_connection_goes_on(self):
        with daemon["d"].raw("unix") as r:
            for msgid in (1 << 32, -1, 2 ** 63, 1.5, True, "7", [7]):
                r.send_msgpack([0, msgid, "ping", {}])
                self.assertError(r.read_one("msgpack"), "bad_request", None)
            r.send_msgpack([0, 9, "ping", {}])
            self.assertEqual(r.read_one("msgpack"), [1, 9, None, {}])
        with daemon["d"].raw("tcp") as r:
            for msgid in ("4294967296", "-1", "1e20", "true", '"7"'):
                r.send_line('[0, %s, "ping", {}]' % msgid)
                self.assertError(r.read_one("json"), "bad_request", None)
            r.send_line('[0, 9, "ping", {}]')
            self.assertEqual(r.read_one("json"), [1, 9, None, {}])

    def test_nil_msgid(self):
        with daemon["d"].raw("unix") as r:
            r.send_msgpack([0, None, "ping", {}])
            self.assertEqual(r.read_one("msgpack"), [1, None, None, {}])
            r.send_msgpack([0, None, "no_such_method", {}])
            self.assertError(r.read_one("msgpack"), "unknown_method", None)
        with daemon["d"].raw("tcp") as r:
            for line in ('[0, null, "ping", {}]', "ping", "ping {}", "  ping  ", "ping\t{}", 'ping [{}]'):
                r.send_line(line)
                self.assertEqual(r.read_one("json"), [1, None, None, {}], line)
            r.send_line('state {"game": 987654321}')
            self.assertError(r.read_one("json"), "no_such_game", None)
            r.send_line('state')
            self.assertError(r.read_one("json"), "invalid_params", None)

    def test_only_requests_go_to_the_server(self):
        # section 2: a client sends requests [0, ...]; a response or a
        # notification sent to the server is no request: bad_request, and
        # the connection goes on
        with daemon["d"].raw("unix") as r:
            for env in ([1, 5, "ping", {}], [2, 5, "ping", {}], [1, 5, None, {}], [2, "event", {}]):
                r.send_msgpack(env)
                resp = r.read_one("msgpack")
                self.assertEqual((resp[0], resp[3], resp[2]["code"]), (1, None, "bad_request"), (env, resp))
            r.send_msgpack([0, 6, "ping", {}])
            self.assertEqual(r.read_one("msgpack"), [1, 6, None, {}])
        with daemon["d"].raw("tcp") as r:
            for line in ('[1, 5, "ping", {}]', '[2, 5, "ping", {}]'):
                r.send_line(line)
                resp = r.read_one("json")
                self.assertEqual((resp[0], resp[3], resp[2]["code"]), (1, None, "bad_request"), (line, resp))
            r.send_line("ping")
            self.assertEqual(r.read_one("json"), [1, None, None, {}])

    def test_bin_is_read_as_a_string(self):
        # section 2: MessagePack `bin` is accepted wherever a string is: the
        # method, parameter values, map keys
        with daemon["d"].raw("unix") as r:
            r.send_msgpack([0, 1, b"ping", {}])
            self.assertEqual(r.read_one("msgpack"), [1, 1, None, {}])
            r.send_msgpack([0, 2, "new_game", {b"players": [b"ann", "bob"], "expansions": [b"base"]}])
            resp = r.read_one("msgpack")
            self.assertIsNone(resp[2], resp)
            self.assertEqual([s["name"] for s in resp[3]["seats"]], ["ann", "bob"])
            game = resp[3]["game"]
            r.send_msgpack([0, 3, "close_game", {"game": game, "admin_token": resp[3]["admin_token"].encode()}])
            self.assertEqual(r.read_one("msgpack"), [1, 3, None, {}])

    def test_stray_bytes_in_replies_become_replacement_characters(self):
        # section 2: strings in replies are UTF-8; bytes a MessagePack client
        # put in a string that are not UTF-8 (surrogates, overlong forms,
        # past U+10FFFF, lone bytes) come back as U+FFFD where a message
        # quotes them
        for bad in (b"\xed\xa0\x80", b"\xed\xbf\xbf", b"\xc0\x80", b"\xc1\xbf", b"\xe0\x80\x80",
                    b"\xf0\x80\x80\x80", b"\xf4\x90\x80\x80", b"\xf5\x80\x80\x80", b"\xff", b"\x80"):
            with self.subTest(bytes=bad), daemon["d"].raw("unix") as r:
                # strings packed as MessagePack str holding these very bytes
                r.send(msgpack.packb([0, 1, b"new_game", {b"players": [b"ann"], b"expansions": [b"x" + bad + b"y"]}],
                                     use_bin_type=False))
                resp = r.read_one("msgpack")    # decoding the reply as UTF-8 fails on a stray byte
                self.assertEqual(resp[2]["code"], "invalid_params", resp)
                self.assertIn("x\ufffd", resp[2]["message"])
                self.assertIn("\ufffdy", resp[2]["message"])
        with daemon["d"].raw("unix") as r:      # valid UTF-8 is kept as it is
            for good in ("\u00e9", "\u0800", "\ud7ff", "\ue000", "\U00010000", "\U0010ffff"):
                r.send_msgpack([0, 1, "new_game", {"players": ["ann"], "expansions": ["x" + good + "y"]}])
                resp = r.read_one("msgpack")
                self.assertIn("x" + good + "y", resp[2]["message"])

    def test_lines_that_are_no_request(self):
        # section 2: a line is a JSON array, `method {params}` or a bare
        # `method` (a name starting with a letter); a line holding any other
        # JSON value is bad_request, and so is a method name run into its
        # params; the connection goes on
        with daemon["d"].raw("tcp") as r:
            for line in ("null", "true", "false", "42", '"ping"', "{}", "ping{}", "ping[{}]", 'state{"game": 1}',
                         "_ping", "_ping {}", "_", "__hello", "1ping", "p-ing"):
                r.send_line(line)
                resp = r.read_one("json")
                self.assertEqual((resp[0], resp[1], resp[3], resp[2]["code"]), (1, None, None, "bad_request"),
                                 (line, resp))
            for line in ("nullx", "true_ping"):    # names that begin like a literal are names
                r.send_line(line)
                self.assertEqual(r.read_one("json")[2]["code"], "unknown_method", line)
            r.send_line("ping {}")
            self.assertEqual(r.read_one("json"), [1, None, None, {}])

    def test_parameters_are_matched_by_their_whole_name(self):
        # section 2: parameters the method does not know are ignored, and
        # a longer name is another name: `games` is not `game`
        g = self.c.new_game(["ann"])
        for params in ({"games": g["game"]}, {"gamex": g["game"]}, {"game ": g["game"]}):
            self.assertEqual(code_of(self.c.call, "state", params), "invalid_params", params)
        self.assertEqual(self.c.call("state", {"games": 987654321, "game": g["game"]})["game"], g["game"])
        self.assertEqual(code_of(self.c.call, "new_game", {"playersx": ["ann"]}), "invalid_params")

    def test_params_as_an_array_holding_one_map(self):
        g = self.c.new_game(["ann"])
        with daemon["d"].raw("unix") as r:
            r.send_msgpack([0, 1, "state", [{"game": g["game"]}]])
            resp = r.read_one("msgpack")
            self.assertEqual(resp[:3], [1, 1, None])
            self.assertEqual(resp[3], g["state"])
            for params in ([], None):   # no params at all
                r.send_msgpack([0, 2, "ping", params])
                self.assertEqual(r.read_one("msgpack"), [1, 2, None, {}])
        with daemon["d"].raw("tcp") as r:
            r.send_line(json.dumps([0, 3, "state", [{"game": g["game"]}]]))
            self.assertEqual(r.read_one("json"), [1, 3, None, g["state"]])
            r.send_line("state " + json.dumps([{"game": g["game"]}]))
            self.assertEqual(r.read_one("json"), [1, None, None, g["state"]])

    def test_responses_have_exactly_one_of_error_and_result(self):
        g = self.c.new_game(["ann", "bob"])
        requests = [("ping", {}), ("hello", {}), ("stats", {}), ("games", {}), ("state", {"game": g["game"]}),
                    ("legal_moves", {"game": g["game"]}), ("score", {"game": g["game"]}),
                    ("history", {"game": g["game"]}), ("subscribe", {"game": g["game"]}),
                    ("unsubscribe", {"game": g["game"]}),
                    ("apply_move", {"game": g["game"], "move": {"type": "pass"}}),
                    ("close_game", {"game": g["game"], "admin_token": "0" * 32}),
                    ("nope", {}), ("state", {})]
        for encoding in ("msgpack", "json"):
            with daemon["d"].raw("unix") as r:
                for i, (method, params) in enumerate(requests):
                    if encoding == "msgpack":
                        r.send_msgpack([0, i, method, params])
                    else:
                        r.send_line(json.dumps([0, i, method, params]))
                    resp = r.read_one(encoding)
                    self.assertEqual((len(resp), resp[0], resp[1]), (4, 1, i), resp)
                    self.assertTrue((resp[2] is None) != (resp[3] is None), resp)
                    if resp[2] is not None:
                        self.assertIn(resp[2]["code"], ERROR_CODES)
                        self.assertLessEqual(set(resp[2]), {"code", "message", "data"})
                    else:
                        self.assertIsInstance(resp[3], dict)


# ---- section 7: the limits, at their boundaries, with small configured ones -------------

class Limits(unittest.TestCase):
    MAX_REQUEST = 1000
    MAX_LINE = 200
    MAX_GAMES = 50

    @classmethod
    def setUpClass(cls):
        cls.d = harness.Daemon("--max-request", str(cls.MAX_REQUEST), "--max-line", str(cls.MAX_LINE),
                               "--max-games", str(cls.MAX_GAMES)).start()

    @classmethod
    def tearDownClass(cls):
        alive = cls.d.alive()
        status = cls.d.stop()
        assert alive and status == 0, "carcd died or did not exit 0 (%s)" % status

    def tearDown(self):
        with self.d.client("unix") as c:
            self.assertEqual(c.ping(), {})

    def request_of_size(self, n, msgid=1):
        for pad in range(n, 0, -1):
            m = packb([0, msgid, "ping", {"p": "x" * pad}])
            if len(m) == n:
                return m
            if len(m) < n:
                break
        raise AssertionError("no request of %d bytes" % n)

    def assertLimitThenClose(self, r):
        resp = r.read_one("msgpack", timeout=3)
        self.assertIsNotNone(resp, "no answer")
        self.assertEqual((resp[0], resp[1], resp[3]), (1, None, None), resp)
        self.assertEqual(resp[2]["code"], "limit", resp)
        self.assertTrue(r.closed_by_peer(3), "the connection stayed open after `limit`")

    def test_configured_limits_in_hello(self):
        with self.d.client("unix") as c:
            lim = c.hello()["limits"]
        self.assertEqual((lim["max_request"], lim["max_line"], lim["max_depth"], lim["max_games"]),
                         (self.MAX_REQUEST, self.MAX_LINE, 16, self.MAX_GAMES))

    def test_request_size_boundary(self):
        for n in (self.MAX_REQUEST - 1, self.MAX_REQUEST):
            with self.d.raw("unix") as r:
                r.send(self.request_of_size(n) + packb([0, 2, "ping", {}]))
                self.assertEqual(r.read("msgpack", 2), [[1, 1, None, {}], [1, 2, None, {}]])
        with self.d.raw("unix") as r:
            r.send(self.request_of_size(self.MAX_REQUEST + 1))
            self.assertLimitThenClose(r)

    def test_declared_length_is_judged_before_its_bytes(self):
        head = b"\x94\x00\x07\xa4ping\x81\xa1p\xda"     # ... {"p": <str16 of L bytes>}
        fits = self.MAX_REQUEST - len(head) - 2          # the whole request would be exactly the limit
        with self.d.raw("unix") as r:
            r.send(head + fits.to_bytes(2, "big"))
            self.assertEqual(r.read("msgpack", 1, timeout=0.3), [], "answered before the bytes came")
            r.send(b"x" * fits)
            self.assertEqual(r.read_one("msgpack"), [1, 7, None, {}])
        for declared in (fits + 1, 0xffff):
            with self.d.raw("unix") as r:
                r.send(head + declared.to_bytes(2, "big"))   # and none of the bytes
                self.assertLimitThenClose(r)
        for header in (b"\xdc\xff\xff", b"\x94\x00\x07\xa4ping\xde\x02\x00"):   # 65535 members; 512 pairs
            with self.d.raw("tcp") as r:
                r.send(header)
                self.assertLimitThenClose(r)

    def test_messagepack_depth_boundary(self):
        for leaf in (None, 1, []):
            with self.d.raw("unix") as r:
                r.send_msgpack(nested(16, leaf) if leaf != [] else nested(15, []))
                self.assertEqual(r.read_one("msgpack"), [1, 3, None, {}])
                r.send_msgpack([0, 4, "ping", {}])
                self.assertEqual(r.read_one("msgpack"), [1, 4, None, {}])
        for request in (nested(17, None), nested(16, [])):
            with self.d.raw("unix") as r:
                r.send_msgpack(request)
                self.assertLimitThenClose(r)

    def test_json_depth_over_the_limit_goes_on(self):
        with self.d.client("unix") as c:
            c.new_game(["ann"])
        with self.d.raw("tcp") as r:
            r.send_line(json.dumps(nested(15, [])))       # 16 deep: answered
            self.assertEqual(r.read_one("json"), [1, 3, None, {}])
            for request in (nested(16, []), nested(17, None), nested(40, 1)):
                r.send_line(json.dumps(request))
                resp = r.read_one("json")
                self.assertEqual((resp[0], resp[3], resp[2]["code"]), (1, None, "limit"), resp)
            r.send_line('[0, 5, "ping", {}]')
            self.assertEqual(r.read_one("json"), [1, 5, None, {}])

    def test_json_line_length_boundary(self):
        def line_of(n):
            text = "ping " + json.dumps({"p": "x" * (n - 14)})
            self.assertEqual(len(text), n)
            return text.encode()
        with self.d.raw("tcp") as r:
            for end in (b"\n", b"\r\n"):
                r.send(line_of(self.MAX_LINE) + end)
                self.assertEqual(r.read_one("json"), [1, None, None, {}])
            r.send(line_of(self.MAX_LINE + 1) + b"\n")
            resp = r.read_one("json")
            self.assertEqual((resp[0], resp[1], resp[3], resp[2]["code"]), (1, None, None, "limit"), resp)
            # a much longer line: one `limit`, the rest of it skipped, then the next line is served
            r.send(b'[0, 1, "ping", {"p": "' + b"]\r[0,2,\"ping\",{}]" * 200 + b'"}]\n' + b'[0, 3, "ping", {}]\n')
            got = r.read("json", 2)
            self.assertEqual(len(got), 2, got)
            self.assertEqual(got[0][2]["code"], "limit")
            self.assertEqual(got[1], [1, 3, None, {}])
            self.assertEqual(r.read("json", 1, timeout=0.2), [])
        self.assertTrue(self.d.alive())

    def test_a_line_too_long_is_refused_before_its_end(self):
        # a line over the limit (the limit, then at most \r before \n) is
        # answered `limit` as soon as that many bytes came, without waiting
        # for its newline; the rest of it is skipped
        with self.d.raw("tcp") as r:
            r.send(b"ping " + b" " * (self.MAX_LINE - 5) + b"\r")    # may still end in \r\n
            self.assertEqual(r.read("json", 1, timeout=0.3), [], "answered before the line was over the limit")
            r.send(b" ")
            resp = r.read_one("json", timeout=3)
            self.assertIsNotNone(resp, "no answer to a line over the limit")
            self.assertEqual((resp[0], resp[1], resp[3], resp[2]["code"]), (1, None, None, "limit"), resp)
            r.send(b"the rest of it\n" + b"ping\n")
            self.assertEqual(r.read_one("json"), [1, None, None, {}])

    def test_last_line_without_newline_at_the_limit(self):
        # section 7: a last line without newline is answered as a line, so
        # it has the line limit too
        for n, want in ((self.MAX_LINE, None), (self.MAX_LINE + 1, "limit")):
            with self.d.raw("tcp") as r:
                r.send(b"ping" + b" " * (n - 4))
                r.shutdown_write()
                resp = r.read_one("json", timeout=3)
                self.assertIsNotNone(resp, n)
                self.assertEqual(resp[2] and resp[2]["code"], want, (n, resp))


class DefaultLimits(Case):
    def test_defaults_are_those_of_the_contract(self):
        lim = self.c.hello()["limits"]
        self.assertEqual(lim, {"max_request": MIB, "max_line": 64 * 1024, "max_depth": 16, "max_games": 100000,
                               "idle_timeout": 600, "game_timeout": 0})

    def test_a_request_of_one_mib_is_served(self):
        with daemon["d"].raw("unix", timeout=10) as r:
            base = len(packb([0, 1, "ping", {"p": ""}]))
            for pad in range(MIB - base, MIB - base - 8, -1):
                req = packb([0, 1, "ping", {"p": "x" * pad}])
                if len(req) == MIB:
                    break
            self.assertEqual(len(req), MIB)
            r.send(req)
            self.assertEqual(r.read_one("msgpack"), [1, 1, None, {}])

    def test_a_json_line_of_64_kib_is_served(self):
        with daemon["d"].raw("tcp") as r:
            text = "ping " + json.dumps({"p": "x" * (64 * 1024 - 14)})
            self.assertEqual(len(text), 64 * 1024)
            r.send(text.encode() + b"\r\n")
            self.assertEqual(r.read_one("json"), [1, None, None, {}])
            r.send(text.encode() + b"x\n")
            self.assertEqual(r.read_one("json")[2]["code"], "limit")
            r.send_line("ping")
            self.assertEqual(r.read_one("json"), [1, None, None, {}])


# ---- section 4: hello ------------------------------------------------------------------

class Hello(Case):
    def test_hello_lists(self):
        for encoding in ("msgpack", "json"):
            with daemon["d"].client("tcp", encoding) as c:
                h = c.hello("contract tests")
            self.assertEqual(h["server"], "carcd")
            self.assertIs(type(h["protocol"]), int)
            self.assertEqual(h["protocol"], 1)
            self.assertRegex(h["version"], r"^\d+\.\d+")
            self.assertEqual(set(h["methods"]), METHODS | OWN_METHODS)
            self.assertEqual(len(h["methods"]), len(METHODS | OWN_METHODS))
            self.assertEqual({e["name"]: e["tileset"] for e in h["expansions"]}, EXPANSIONS)
            self.assertEqual(len(h["expansions"]), len(EXPANSIONS))
            self.assertEqual(sorted(e["name"] for e in h["components"]), sorted(COMPONENTS))
            for e in h["expansions"] + h["components"]:
                self.assertIs(type(e["available"]), bool)
            self.assertIs(next(e for e in h["expansions"] if e["name"] == "base")["available"], True)

    def test_every_rule_option_with_its_values_and_default(self):
        rules = self.c.hello()["rules"]
        self.assertEqual(sorted(r["key"] for r in rules), sorted(RULES))
        for r in rules:
            values, default = RULES[r["key"]]
            self.assertEqual(r["default"], default, r)
            self.assertIs(type(r["default"]), type(default), r)
            if values is int:
                self.assertEqual(r["type"], "integer", r)
                self.assertLessEqual(r["min"], default)
                self.assertGreaterEqual(r["max"], default)
            else:
                self.assertEqual(r["type"], "boolean" if isinstance(default, bool) else "enum", r)
                self.assertEqual(sorted(map(str, r["values"])), sorted(map(str, values)), r)
                self.assertEqual(r["values"][0], default, r)   # the default first, booleans too
                for v in r["values"]:
                    self.assertIs(type(v), type(default), r)

    def test_every_listed_value_is_accepted_and_others_refused(self):
        for r in self.c.hello()["rules"]:
            values = r["values"] if "values" in r else [r["min"], r["max"]]
            for v in values:
                g = self.c.new_game(["ann"], rules={r["key"]: v})
                self.assertEqual(self.c.history(g["game"])["setup"]["rules"][r["key"]], v)
            bad = [r["max"] + 1, r["min"] - 1, "5"] if "values" not in r else (
                ["yes", 1, None] if r["type"] == "boolean" else ["no-such-value", True, 1])
            for v in bad:
                if v is None:
                    continue
                self.assertCode("invalid_params", self.c.new_game, ["ann"], rules={r["key"]: v})


# ---- section 4.1: new_game ---------------------------------------------------------------

class NewGame(Case):
    def test_defaults(self):
        g = self.c.new_game(["ann", "bob"])
        setup = self.c.history(g["game"])["setup"]
        self.assertEqual(setup["expansions"], ["base"])
        self.assertEqual(setup["players"], ["ann", "bob"])
        self.assertIs(setup["auth"], True)
        self.assertEqual(setup["rules"], {k: d for k, (_, d) in RULES.items()})
        for seat in g["state"]["seats"]:
            self.assertEqual(seat["supply"], {"follower": 7})
        self.assertEqual([(t["tile"], t["x"], t["y"], t["rot"]) for t in g["state"]["board"]],
                         [("BA/RCr", 0, 0, 0)])
        self.assertEqual((g["state"]["seat"], g["state"]["seq"]), (0, 0))

    def test_components_default_to_those_of_the_expansions(self):
        ic = self.c.new_game(["ann"], expansions=["base", "inns-cathedrals"])
        self.assertEqual(ic["state"]["seats"][0]["supply"].get("large"), 1)
        without = self.c.new_game(["ann"], expansions=["base", "inns-cathedrals"], components={"large": False})
        self.assertNotIn("large", without["state"]["seats"][0]["supply"])
        base_large = self.c.new_game(["ann"], components={"large": True})
        self.assertEqual(base_large["state"]["seats"][0]["supply"].get("large"), 1)
        # history's setup holds what the game was made with: the switch
        self.assertEqual(self.c.history(without["game"])["setup"]["components"], {"large": False})
        self.assertEqual(self.c.history(ic["game"])["setup"]["components"], {})
        self.assertEqual(self.c.history(base_large["game"])["setup"]["components"], {"large": True})
        self.assertCode("invalid_params", self.c.new_game, ["ann"], components={"large": "yes"})

    def test_unknown_expansion_component_or_rule_option(self):
        for kw in ({"expansions": ["base", "Base"]}, {"expansions": ["river3"]},
                   {"components": {"unicorn": True}}, {"components": {"Large": True}},
                   {"rules": {"farm_scoring ": "per-city-4"}}, {"rules": {"Farmers": False}}):
            self.assertCode("invalid_params", self.c.new_game, ["ann"], **kw)

    def test_tiles_of_a_set_not_in_expansions(self):
        self.assertCode("invalid_params", self.c.new_game, ["ann"], tiles=["BA/C", "IC/CCCC"])
        self.assertCode("invalid_params", self.c.new_game, ["ann"], tiles=["RI/s"])
        g = self.c.new_game(["ann"], expansions=["base", "inns-cathedrals"], tiles=["IC/CCCC", "BA/C"])
        self.assertEqual((g["state"]["tile"]["id"], g["state"]["tiles_left"]), ("IC/CCCC", 1))

    def test_bag_and_tiles_secret_until_the_end(self):
        bag = [3, "wolf", 2, 4]
        tiles = ["BA/RFr", "BA/C", "BA/RFr"]
        g = self.c.new_game(["ann"], auth=False, expansions=["base", "hills-sheep"], bag=bag, tiles=tiles)
        with daemon["d"].client("tcp", "json") as other:
            for text in (json.dumps(other.state(g["game"])), json.dumps(other.history(g["game"]))):
                self.assertNotIn('"bag"', text)
                self.assertNotIn('"wolf"', text)
                self.assertNotIn('"tiles"', text)
                self.assertNotIn('"BA/C"', text)
            self.assertEqual(other.state(g["game"])["tiles_left"], 2)
            harness.play_random_game(lambda lm, m: self.c.apply_move(g["game"], m),
                                     lambda: self.c.legal_moves(g["game"]), self.rng)
            h = other.history(g["game"])
            self.assertEqual((h["setup"]["bag"], h["setup"]["tiles"], h["tiles"]), (bag, tiles, tiles))

    def test_tile_order_with_a_tile_put_back(self):
        # section 4 history: `tiles` is the supply in the order it was dealt;
        # a tile put under the supply (`reshuffled`) and drawn again is one
        # tile of it, not two, and the order replays the game
        kw = dict(auth=False, start=[{"tile": "BA/Cccc+", "x": 0, "y": 0, "rot": 0}], seed=3,
                  rules={"unplaceable_tile": "reshuffle"})
        tiles = ["BA/L", "BA/Cccc+", "BA/Cccc+"]     # a cloister cannot touch the all-city start tile
        g = self.c.new_game(["ann"], tiles=tiles, **kw)
        harness.play_random_game(lambda lm, m: self.c.apply_move(g["game"], m),
                                 lambda: self.c.legal_moves(g["game"]), self.rng)
        h = self.c.history(g["game"])
        self.assertIn({"type": "tile_discarded", "tile": "BA/L", "why": "reshuffled", "seq": 0}, h["events"])
        self.assertEqual(h["tiles"], tiles)
        again = self.c.new_game(["ann"], tiles=h["tiles"], **kw)
        for move in harness.history_moves(h):
            self.c.apply_move(again["game"], move)
        self.assertEqual(harness.history_events(self.c.history(again["game"])), harness.history_events(h))

    def test_players_one_to_six(self):
        for n in range(1, 7):
            g = self.c.new_game(["p%d" % i for i in range(n)])
            self.assertEqual([s["seat"] for s in g["seats"]], list(range(n)))
            self.assertEqual(len({s["token"] for s in g["seats"]} | {g["admin_token"]}), n + 1)
        for players in ([], ["p"] * 7):
            self.assertCode("invalid_params", self.c.new_game, players)


    def test_player_names(self):
        # section 4.1: a name is 1-64 bytes of UTF-8 without control characters
        for name in ("x" * 64, "\u00e9" * 32, "\u20ac" * 21 + "x", "a b", "\U0001f600" * 16):
            g = self.c.new_game([name])
            self.assertEqual(g["seats"][0]["name"], name)
        for name in ("x" * 65, "\u00e9" * 32 + "x", "", "a\x7fb", "a\x00b", "a\nb", "\x1f", "\t",
                     "a\u0085b", "\u0080", "\u009f"):   # C1 controls are control characters too
            self.assertCode("invalid_params", self.c.new_game, [name])
        self.assertEqual(self.c.new_game(["a\u00a0b"])["seats"][0]["name"], "a\u00a0b")   # no control
        # a format character is no control character either: taken (viewers isolate it)
        self.assertEqual(self.c.new_game(["a\u202eb"])["seats"][0]["name"], "a\u202eb")
        self.assertCode("invalid_params", self.c.new_game, ["ann", 5])
        # and a name that is not UTF-8 at all is refused, not kept as U+FFFD
        for bad in (b"\xed\xa0\x80", b"\xc0\x80", b"\xe0\x80\x80", b"\xf4\x90\x80\x80", b"\xf5\x80\x80\x80", b"\xff"):
            with self.subTest(bytes=bad), daemon["d"].raw("unix") as r:
                r.send(msgpack.packb([0, 1, b"new_game", {b"players": [b"a" + bad]}], use_bin_type=False))
                resp = r.read_one("msgpack")
                self.assertEqual(resp[2]["code"], "invalid_params", resp)

    def test_no_expansion_at_all(self):
        # section 4.1: an empty `expansions` is invalid_params
        e = self.assertCode("invalid_params", self.c.new_game, ["ann"], expansions=[])
        self.assertIn("expansions", e.message)

    def test_expansions_and_components_not_available_yet(self):
        # section 4.1: an expansion listed by hello as not available is
        # invalid_params "not available yet"; so is `true` for a component
        # none of the available expansions brings
        h = self.c.hello()
        later = [e["name"] for e in h["expansions"] if not e["available"]]
        self.assertTrue(later)
        for name in later:
            e = self.assertCode("invalid_params", self.c.new_game, ["ann"], expansions=["base", name])
            self.assertIn("not available yet", e.message)
        for comp in (c["name"] for c in h["components"] if not c["available"]):
            e = self.assertCode("invalid_params", self.c.new_game, ["ann"], components={comp: True})
            self.assertIn("not available yet", e.message)
            self.c.new_game(["ann"], components={comp: False})    # switching it off is no request for it

    def test_start_tiles_at_their_limits(self):
        # section 4.1: at most 16 start tiles, x and y within +-1000
        def start(*xy):
            return [{"tile": "BA/RCr", "x": x, "y": y, "rot": 0} for x, y in xy]
        for xy in ((1000, -1000), (-1000, 1000)):
            g = self.c.new_game(["ann"], start=start(xy))
            self.assertEqual([(t["x"], t["y"]) for t in g["state"]["board"]], [xy])
        for xy in ((1001, 0), (0, -1001), (-1001, 0), (0, 1001)):
            self.assertCode("invalid_params", self.c.new_game, ["ann"], start=start(xy))
        sixteen = [(3 * i, 0) for i in range(16)]
        g = self.c.new_game(["ann"], start=start(*sixteen))
        self.assertEqual(len(g["state"]["board"]), 16)
        self.assertCode("invalid_params", self.c.new_game, ["ann"], start=start(*sixteen, (100, 100)))

    def test_a_board_of_320_tiles(self):
        # section 4.1: the board holds 320 tiles, the supply given as
        # `tiles` with the start tiles and, with the abbey, an abbey a seat
        supply = ["BA/L", "BA/RRRR"] * 160
        self.c.new_game(["ann"], tiles=supply[:319])
        e = self.assertCode("invalid_params", self.c.new_game, ["ann"], tiles=supply)
        self.assertIn("larger than the engine's limits", e.message)
        self.assertCode("invalid_params", self.c.new_game, ["ann"], tiles=supply[:319],
                        start=[{"tile": "BA/RCr", "x": 0, "y": 0, "rot": 0}, {"tile": "BA/RCr", "x": 5, "y": 0, "rot": 0}])
        am = ["base", "abbey-mayor"]
        for seats in (1, 2, 6):
            players = ["p%d" % i for i in range(seats)]
            self.c.new_game(players, expansions=am, tiles=supply[:319 - seats])
            self.assertCode("invalid_params", self.c.new_game, players, expansions=am, tiles=supply[:320 - seats])
            # without abbeys in play the room is the supply's again
            self.c.new_game(players, expansions=am, components={"abbey": False}, tiles=supply[:319])

    def test_bag_limits(self):
        # section 4.1: `bag` needs hills-sheep, and holds at most as many of
        # each token as the bag: 4, 5, 5, 2 sheep, 2 wolves
        hs = ["base", "hills-sheep"]
        full = [1] * 4 + [2] * 5 + [3] * 5 + [4] * 2 + ["wolf"] * 2
        self.c.new_game(["ann"], expansions=hs, bag=full)
        for extra in (1, 2, 3, 4, "wolf"):
            self.assertCode("invalid_params", self.c.new_game, ["ann"], expansions=hs, bag=full + [extra])
            one_more = [t for t in full if t == extra] + [extra]
            self.assertCode("invalid_params", self.c.new_game, ["ann"], expansions=hs, bag=one_more)
        for bag in ([0], [5], ["sheep"], [None]):
            self.assertCode("invalid_params", self.c.new_game, ["ann"], expansions=hs, bag=bag)
        self.assertCode("invalid_params", self.c.new_game, ["ann"], bag=[1])
        self.assertCode("invalid_params", self.c.new_game, ["ann"], expansions=["base", "king-robber"], bag=["wolf"])


class SeedCommitment(Case):
    def play_out(self, g):
        harness.play_random_game(lambda lm, m: self.c.apply_move(g["game"], m),
                                 lambda: self.c.legal_moves(g["game"]), self.rng)

    def test_sha256_of_seed_colon_salt(self):
        for seed in (0, 1, 2 ** 53 - 1, None):
            kw = {} if seed is None else {"seed": seed}
            g = self.c.new_game(["ann"], auth=False, tiles=["BA/C", "BA/L"], **kw)
            commitment = g["state"]["seed_sha256"]
            self.assertRegex(commitment, r"^[0-9a-f]{64}$")
            st = self.c.state(g["game"])
            h = self.c.history(g["game"])
            for where in (st, h, h["setup"]):
                self.assertNotIn("seed", where)
                self.assertNotIn("salt", where)
            self.assertEqual(st["seed_sha256"], commitment)
            self.play_out(g)
            st, h = self.c.state(g["game"]), self.c.history(g["game"])
            self.assertIs(st["over"], True)
            self.assertEqual(st["seed_sha256"], commitment, "the commitment changed at the end")
            self.assertEqual((st["seed"], st["salt"]), (h["seed"], h["salt"]))
            self.assertRegex(h["salt"], r"^[0-9a-f]{32}$")
            self.assertIs(type(h["seed"]), int)
            if seed is not None:
                self.assertEqual(h["seed"], seed)
            self.assertTrue(0 <= h["seed"] <= 2 ** 53 - 1)
            self.assertEqual(harness.seed_commitment(h["seed"], h["salt"]), commitment)

    def test_seed_out_of_range(self):
        for seed in (-1, 2 ** 53, 2 ** 64 - 1, 0.5, "1", True):
            self.assertCode("invalid_params", self.c.new_game, ["ann"], seed=seed)


# ---- section 3 and 5: moves ---------------------------------------------------------------

class Moves(Case):
    def test_one_placement_per_rotation_even_where_they_look_alike(self):
        g = self.c.new_game(["ann"], tiles=["BA/RRRR"])
        lm = self.c.legal_moves(g["game"])
        self.assertEqual(sorted((m["x"], m["y"], m["rot"]) for m in lm["moves"]),
                         sorted((x, 0, r) for x in (-1, 1) for r in (0, 90, 180, 270)))
        g = self.c.new_game(["ann"], tiles=["BA/Cccc+"])
        lm = self.c.legal_moves(g["game"])
        self.assertEqual(sorted((m["x"], m["y"], m["rot"]) for m in lm["moves"]),
                         [(0, -1, r) for r in (0, 90, 180, 270)])
        for m in lm["moves"]:
            self.assertEqual(m, {"type": "place_tile", "tile": "BA/Cccc+", "x": 0, "y": -1, "rot": m["rot"]})

    # BA/RCr: road W-E, city N, a field on EL WR (by the city), a field on ER SL SR WL.
    # Placed east of the start tile; at rot 180 every port is turned half round.
    FEATURES = {0: {"N": ("city", "N"), "E": ("road", "E"), "W": ("road", "E"),
                    "EL": ("field", "EL"), "WR": ("field", "EL"),
                    "ER": ("field", "ER"), "SL": ("field", "ER"), "SR": ("field", "ER"), "WL": ("field", "ER")},
                180: {"S": ("city", "S"), "E": ("road", "E"), "W": ("road", "E"),
                      "WL": ("field", "ER"), "ER": ("field", "ER"),
                      "WR": ("field", "NL"), "NL": ("field", "NL"), "NR": ("field", "NL"), "EL": ("field", "NL")}}

    def placed(self, rot):
        g = self.c.new_game(["ann"], tiles=["BA/RCr", "BA/L"], auth=False)
        self.c.apply_move(g["game"], {"type": "place_tile", "tile": "BA/RCr", "x": 1, "y": 0, "rot": rot})
        return g

    def test_deploy_at_any_port_of_the_feature(self):
        for rot, features in self.FEATURES.items():
            lm = self.c.legal_moves(self.placed(rot)["game"])
            listed = sorted((m["at"], m["kind"]) for m in lm["moves"] if m["type"] == "deploy")
            self.assertEqual(listed, sorted({(at, "follower") for _, at in features.values()}), rot)
            for port, (kind, first) in features.items():
                # every port of the feature on this tile, in canonical order
                ports = sorted((p for p, (k, f) in features.items() if f == first), key=PORTS.index)
                g = self.placed(rot)
                res = self.c.apply_move(g["game"], {"type": "deploy", "kind": "follower", "x": 1, "y": 0, "at": port})
                dep = [e for e in res["events"] if e["type"] == "deployed"]
                self.assertEqual(dep, [{"type": "deployed", "seat": 0, "figure": "0.follower.1", "kind": "follower",
                                        "x": 1, "y": 0, "at": first, "ports": ports, "feature": kind}], (rot, port))
                figs = [f for t in self.c.state(g["game"])["board"] for f in t["figures"]]
                if figs:   # (the figure may have scored at once)
                    self.assertEqual(figs, [{"id": "0.follower.1", "kind": "follower", "at": first, "ports": ports,
                                             "feature": kind}])
            # a port the tile has no feature at, and ports that are no ports
            for port in ("cloister", "tower", "I", "II"):
                g = self.placed(rot)
                self.assertCode("illegal_move", self.c.apply_move, g["game"],
                                {"type": "deploy", "kind": "follower", "x": 1, "y": 0, "at": port})
            for port in ("n", "north", "", "NE"):
                g = self.placed(rot)
                self.assertCode("invalid_params", self.c.apply_move, g["game"],
                                {"type": "deploy", "kind": "follower", "x": 1, "y": 0, "at": port})

    def random_games(self, n, **kw):
        for i in range(n):
            g = self.c.new_game(["a", "b", "c"][: 1 + i % 3], auth=False, seed=500 + i, **kw)
            yield g, harness.play_random_game(lambda lm, m: self.c.apply_move(g["game"], m),
                                              lambda: self.c.legal_moves(g["game"]), self.rng)

    def test_figure_ids_take_the_lowest_free_n(self):
        deploys = 0
        for g, record in self.random_games(4):
            out = {}   # (seat, kind) -> ns on the board
            for ev in harness.all_events(record):
                if ev["type"] == "deployed":
                    on = out.setdefault((ev["seat"], ev["kind"]), set())
                    n = min(set(range(1, len(on) + 2)) - on)
                    self.assertEqual(ev["figure"], "%d.%s.%d" % (ev["seat"], ev["kind"], n), ev)
                    on.add(n)
                    deploys += 1
                elif ev["type"] == "returned":
                    seat, kind, n = ev["figure"].split(".")
                    self.assertEqual(int(seat), ev["seat"])
                    out[(ev["seat"], kind)].remove(int(n))
        self.assertGreater(deploys, 20)

    def test_no_decision_is_only_a_pass(self):
        for expansions in (["base"], ["base", "abbey-mayor", "cathars"]):
            for g, record in self.random_games(2, expansions=expansions):
                for lm, _, res in record:
                    self.assertNotEqual(lm["moves"], [{"type": "pass"}], lm)
                    self.assertEqual(len({json.dumps(m, sort_keys=True) for m in lm["moves"]}), len(lm["moves"]))
                self.assertEqual(record[-1][2]["over"], True)
                lm = self.c.legal_moves(g["game"])
                self.assertEqual((lm["phase"], lm["seat"], lm["moves"]), ("over", None, []))
                for seat in range(len(g["seats"])):
                    self.assertEqual(self.c.legal_moves(g["game"], seat=seat)["moves"], [])

    def test_legal_moves_seat(self):
        g = self.c.new_game(["ann", "bob", "cid"])
        lm = self.c.legal_moves(g["game"])
        self.assertEqual((lm["seat"], lm["phase"]), (0, "tile"))
        self.assertEqual(self.c.legal_moves(g["game"], seat=0), lm)
        for seat in (1, 2):
            other = self.c.legal_moves(g["game"], seat=seat)
            self.assertEqual(other, dict(lm, moves=[]))   # same seat (the one due), phase and seq
        for seat in (3, 6, -1, "0", 0.5):
            self.assertCode("invalid_params", self.c.legal_moves, g["game"], seat=seat)
        # the two messages PROTOCOL.md gives: a seat this game lacks, a seat no game has
        self.assertEqual(self.assertCode("invalid_params", self.c.legal_moves, g["game"], seat=3).message,
                         "game %d has seats 0 to 2" % g["game"])
        self.assertEqual(self.assertCode("invalid_params", self.c.legal_moves, g["game"], seat=6).message,
                         "parameter `seat` must be from 0 to 5")


# ---- section 4: apply_move's checks -----------------------------------------------------------

class ApplyMove(Case):
    def test_stale_seq_is_conflict_and_changes_nothing(self):
        g = self.c.new_game(["ann", "bob"])
        game, t0 = g["game"], g["seats"][0]["token"]
        lm0 = self.c.legal_moves(game)
        res = self.c.apply_move(game, lm0["moves"][0], token=t0, seq=0)
        self.assertEqual(res["seq"], 1)
        lm1 = self.c.legal_moves(game)
        before = self.c.state(game)
        for seq in (0, 2, 1000, -1, 2 ** 40):
            e = self.assertCode("conflict", self.c.apply_move, game, lm1["moves"][-1], token=t0, seq=seq)
            self.assertIn("1", e.message)
        self.assertEqual(self.c.state(game), before)
        self.assertEqual(self.c.apply_move(game, lm1["moves"][-1], token=t0, seq=1)["seq"], 2)
        # a game without auth checks seq all the same
        h = self.c.new_game(["ann"], auth=False)
        self.assertCode("conflict", self.c.apply_move, h["game"], self.c.legal_moves(h["game"])["moves"][0], seq=5)

    def test_a_move_sent_again_is_conflict(self):
        """A client that resends a move it is not sure arrived gets conflict
        for the same move, whether the move kept the turn (place_tile) or
        ended it (pass); then the other seat plays on unharmed."""
        g = self.c.new_game(["ann", "bob"], tiles=["BA/Rr", "BA/Rr"])
        game, t0, t1 = g["game"], g["seats"][0]["token"], g["seats"][1]["token"]
        place = self.c.legal_moves(game)["moves"][0]
        self.assertEqual(self.c.apply_move(game, place, token=t0, seq=0)["seat"], 0)
        self.assertCode("conflict", self.c.apply_move, game, place, token=t0, seq=0)
        pass_ = {"type": "pass"}
        self.assertEqual(self.c.apply_move(game, pass_, token=t0, seq=1)["seat"], 1)
        before = self.c.state(game)
        e = self.assertCode("conflict", self.c.apply_move, game, pass_, token=t0, seq=1)
        self.assertIn("at seq 2", e.message)
        self.assertCode("not_your_turn", self.c.apply_move, game, pass_, token=t0, seq=2)
        self.assertEqual(self.c.state(game), before)
        lm = self.c.legal_moves(game)
        self.assertEqual(self.c.apply_move(game, lm["moves"][0], token=t1, seq=2)["seq"], 3)

    def test_checks_in_order(self):
        """no_such_game, game_over, a token of the game (forbidden), seq
        (conflict), the seat due (not_your_turn), a malformed move
        (invalid_params), an illegal one."""
        g = self.c.new_game(["ann", "bob"], tiles=["BA/C"])
        game, t0, t1 = g["game"], g["seats"][0]["token"], g["seats"][1]["token"]
        bogus = {"type": "teleport"}
        self.assertCode("no_such_game", self.c.apply_move, 987654321, bogus, token="x", seq=99)
        self.assertCode("forbidden", self.c.apply_move, game, bogus, token="0" * 32, seq=99)
        self.assertCode("forbidden", self.c.apply_move, game, bogus, seq=99)
        self.assertCode("conflict", self.c.apply_move, game, bogus, token=t1, seq=99)
        self.assertCode("conflict", self.c.apply_move, game, bogus, token=t0, seq=99)
        self.assertCode("not_your_turn", self.c.apply_move, game, bogus, token=t1, seq=0)
        self.assertCode("not_your_turn", self.c.apply_move, game, bogus, token=t1)
        self.assertCode("invalid_params", self.c.apply_move, game, bogus, token=t0, seq=0)
        self.assertCode("illegal_move", self.c.apply_move, game, {"type": "pass"}, token=t0, seq=0)
        self.assertEqual(self.c.state(game)["seq"], 0)
        harness.play_with_client(self.c, game, [t0, t1], self.rng)
        seq = self.c.state(game)["seq"]
        for token in (t0, t1, "0" * 32, None):
            for s in (None, 0, seq):
                self.assertCode("game_over", self.c.apply_move, game, bogus, token=token, seq=s)
                self.assertCode("game_over", self.c.apply_move, game, {"type": "pass"}, token=token, seq=s)
        self.assertEqual(self.c.state(game)["seq"], seq)

    def test_tokens_of_another_game_and_admin_tokens(self):
        a = self.c.new_game(["ann", "bob"])
        b = self.c.new_game(["ann", "bob"])
        move = self.c.legal_moves(a["game"])["moves"][0]
        for token in (b["seats"][0]["token"], b["seats"][1]["token"], a["admin_token"], b["admin_token"], "",
                      a["seats"][0]["token"][:-1], a["seats"][0]["token"] + "0"):
            self.assertCode("forbidden", self.c.apply_move, a["game"], move, token=token)
        self.assertCode("not_your_turn", self.c.apply_move, a["game"], move, token=a["seats"][1]["token"])
        self.assertCode("invalid_params", self.c.apply_move, a["game"], move, token=7)
        self.assertEqual(self.c.state(a["game"])["seq"], 0)

    def test_malformed_moves_change_nothing(self):
        # section 3 and 5: `rot` is 0, 90, 180 or 270; a coordinate past the
        # board's range is out of range, never read as another place; a
        # figure id names a figure exactly.  Each is invalid_params (the move
        # is malformed) and changes nothing.
        g = self.c.new_game(["ann", "bob"])
        token = g["seats"][0]["token"]
        move = self.c.legal_moves(g["game"])["moves"][0]
        bad = [dict(move, rot=move["rot"] + 360), dict(move, rot=360), dict(move, rot=-90), dict(move, rot=450)]
        for k in ("x", "y"):
            bad += [dict(move, **{k: move[k] + 65536}), dict(move, **{k: move[k] - 65536}),
                    dict(move, **{k: move[k] + 2 ** 32})]
        bad += [{"type": "escape", "figure": f} for f in ("0.follower.1x", "0.follower.1 ", "0.follower.01x",
                                                            "0.follower", "9.follower.1")]
        for m in bad:
            self.assertEqual(code_of(self.c.apply_move, g["game"], m, token=token), "invalid_params", m)
        self.assertEqual(self.c.state(g["game"])["seq"], 0)
        # a well-formed escape is judged by the rules: not open in a base game
        self.assertEqual(code_of(self.c.apply_move, g["game"], {"type": "escape", "figure": "0.follower.1"},
                                 token=token), "illegal_move")
        self.assertEqual(self.c.apply_move(g["game"], move, token=token)["seq"], 1)


# ---- section 4: subscribe / unsubscribe --------------------------------------------------------

class Subscriptions(Case):
    def test_pipelined_subscribe_then_every_move_in_order(self):
        g = self.c.new_game(["ann", "bob"], auth=False)
        game = g["game"]
        for _ in range(3):
            lm = self.c.legal_moves(game)
            self.c.apply_move(game, lm["moves"][0])
        with daemon["d"].raw("tcp") as r:
            # subscribe and a move of its own, sent at once: the two responses in
            # order, then the notification of the move
            lm = self.c.legal_moves(game)
            r.send_line(json.dumps([0, 1, "subscribe", {"game": game}]) + "\n" +
                        json.dumps([0, 2, "apply_move", {"game": game, "move": lm["moves"][0], "seq": lm["seq"]}]))
            got = r.read("json", 3)
            self.assertEqual(len(got), 3, got)
            self.assertEqual(got[0], [1, 1, None, {"seq": lm["seq"]}])
            self.assertEqual(got[1][:3], [1, 2, None])
            first = got[1][3]
            self.assertEqual(first["seq"], lm["seq"] + 1)
            self.assertEqual(got[2], [2, "event", {"game": game, "seq": lm["seq"] + 1, "events": first["events"]}])
        with daemon["d"].client("tcp", "json") as w:
            self.assertEqual(w.subscribe(game), {"seq": lm["seq"] + 1})
            # moves by someone else reach it as well, one notification each, no gaps
            results = []
            for _ in range(5):
                lm = self.c.legal_moves(game)
                results.append(self.c.apply_move(game, lm["moves"][-1], seq=lm["seq"]))
            notes = [w.next_event(timeout=5) for _ in results]
            self.assertEqual(notes, [{"game": game, "seq": r["seq"], "events": r["events"]} for r in results])
            self.assertEqual([n["seq"] for n in notes], list(range(lm["seq"] - 3, lm["seq"] + 2)))
            self.assertEqual(w.unsubscribe(game), {"seq": results[-1]["seq"]})
            lm = self.c.legal_moves(game)
            self.c.apply_move(game, lm["moves"][0])
            self.assertEqual(w.ping(), {})
            self.assertEqual(list(w.events), [])

    def test_subscribing_twice_is_one_subscription(self):
        g = self.c.new_game(["ann"], auth=False)
        with daemon["d"].client("unix") as w:
            self.assertEqual(w.subscribe(g["game"]), {"seq": 0})
            self.assertEqual(w.subscribe(g["game"]), {"seq": 0})
            summary = {s["game"]: s for s in self.c.games()["games"]}[g["game"]]
            self.assertEqual(summary["watchers"], 1)
            lm = self.c.legal_moves(g["game"])
            self.c.apply_move(g["game"], lm["moves"][0])
            self.assertEqual(w.next_event(timeout=5)["seq"], 1)
            self.assertEqual(w.ping(), {})
            self.assertEqual(list(w.events), [], "two notifications for one move")
            self.assertEqual(w.unsubscribe(g["game"]), {"seq": 1})
            self.assertEqual(w.unsubscribe(g["game"]), {"seq": 1})   # harmless too
            summary = {s["game"]: s for s in self.c.games()["games"]}[g["game"]]
            self.assertEqual(summary["watchers"], 0)

    def test_games_counts_the_watchers(self):
        # section 4 `games`: `watchers` is the number of connections
        # subscribed to the game
        g = self.c.new_game(["ann"])
        watchers = [daemon["d"].client("unix") for _ in range(3)]
        try:
            for n, w in enumerate(watchers, 1):
                w.subscribe(g["game"])
                summary = {s["game"]: s for s in self.c.games()["games"]}[g["game"]]
                self.assertEqual(summary["watchers"], n)
            watchers[0].unsubscribe(g["game"])
            summary = {s["game"]: s for s in self.c.games()["games"]}[g["game"]]
            self.assertEqual(summary["watchers"], 2)
        finally:
            for w in watchers:
                w.close()

    def test_the_last_move_and_game_over_reach_the_watcher(self):
        g = self.c.new_game(["ann"], auth=False, tiles=["BA/C"])
        with daemon["d"].client("unix") as w:
            w.subscribe(g["game"])
            record = harness.play_random_game(lambda lm, m: self.c.apply_move(g["game"], m),
                                              lambda: self.c.legal_moves(g["game"]), self.rng)
            notes = [w.next_event(timeout=5) for _ in record]
            self.assertEqual([n["events"] for n in notes], [res["events"] for _, _, res in record])
            self.assertEqual(notes[-1]["events"][-1]["type"], "game_over")
            self.assertEqual(w.subscribe(g["game"]), {"seq": record[-1][2]["seq"]})   # a finished game too


# ---- section 4: games, close_game, stats ---------------------------------------------------------

class OwnDaemon(unittest.TestCase):
    """Tests that count what the server holds get a daemon of their own."""

    def setUp(self):
        self.d = harness.Daemon().start()
        self.c = self.d.client("unix")

    def tearDown(self):
        self.c.close()
        alive = self.d.alive()
        self.assertEqual(self.d.stop(), 0)
        self.assertTrue(alive)

    def test_games_paging(self):
        made = [self.c.new_game(["p%d" % i]) for i in range(7)]
        ids = [g["game"] for g in made]
        self.assertEqual(ids, sorted(ids))
        self.c.close_game(ids[2], made[2]["admin_token"])
        held = ids[:2] + ids[3:]
        every = self.c.games()
        self.assertEqual(([s["game"] for s in every["games"]], every["more"]), (held, False))
        for s, g in zip(every["games"], made[:2] + made[3:]):
            self.assertEqual(s, {"game": g["game"], "players": [g["seats"][0]["name"]], "seq": 0, "phase": "tile",
                                 "seat": 0, "over": False, "auth": True, "watchers": 0})
        for limit in (1, 2, 3, 6, 7):
            pages, after = [], 0
            while True:
                page = self.c.call("games", {"after": after, "limit": limit})
                got = [s["game"] for s in page["games"]]
                self.assertLessEqual(len(got), limit)
                pages += got
                if not page["more"]:
                    break
                self.assertEqual(len(got), limit)
                after = got[-1]
            self.assertEqual(pages, held, limit)
        self.assertEqual(self.c.call("games", {"after": ids[1], "limit": 2}),
                         {"games": every["games"][2:4], "more": True})
        self.assertEqual(self.c.call("games", {"after": ids[-1]}), {"games": [], "more": False})
        self.assertEqual(self.c.call("games", {"after": 10 ** 12}), {"games": [], "more": False})
        for params in ({"limit": 0}, {"limit": 10001}, {"limit": -1}, {"after": -1}, {"after": "1"},
                       {"limit": 1.5}):
            self.assertEqual(code_of(self.c.call, "games", params), "invalid_params", params)

    def test_close_game_with_a_wrong_admin_token(self):
        g = self.c.new_game(["ann", "bob"])
        other = self.c.new_game(["ann"])
        game = g["game"]
        with self.d.client("tcp", "json") as w:
            w.subscribe(game)
            for token in ("0" * 32, other["admin_token"], g["seats"][0]["token"], g["seats"][1]["token"],
                          g["admin_token"][:-1], g["admin_token"] + "0", ""):
                self.assertEqual(code_of(self.c.close_game, game, token), "forbidden", token)
            self.assertEqual(code_of(self.c.call, "close_game", {"game": game}), "invalid_params")
            self.assertEqual(code_of(self.c.close_game, 987654321, g["admin_token"]), "no_such_game")
            self.assertEqual(w.ping(), {})
            self.assertEqual(list(w.events), [], "watchers heard of a refused close")
            st = self.c.state(game)
            self.assertEqual((st["seq"], st["over"]), (0, False))
            self.assertEqual(self.c.close_game(game, g["admin_token"]), {})
            self.assertEqual(w.next_event(timeout=5), {"game": game, "seq": 0, "events": [{"type": "game_closed"}]})
        self.assertEqual(code_of(self.c.state, game), "no_such_game")
        self.assertEqual(code_of(self.c.close_game, game, g["admin_token"]), "no_such_game")
        self.assertEqual(self.c.state(other["game"])["seq"], 0)
        g2 = self.c.new_game(["ann"])
        self.assertGreater(g2["game"], other["game"], "an id used again")

    def test_stats_count_exactly(self):
        # the connections of the check that the daemon is up may still be
        # closing (on a loaded machine, a TCP close can reach it late)
        self.assertTrue(harness.wait_for(lambda: self.c.stats()["connections"] == 1, 5))
        s0 = self.c.stats()
        self.assertEqual(set(s0) >= {"uptime", "connections", "games", "requests", "errors", "memory"}, True, s0)
        self.assertIs(type(s0["uptime"]), float)
        self.assertEqual(s0["connections"], 1)
        self.assertEqual(s0["games"], 0)
        self.assertEqual(set(s0["errors"]), ERROR_CODES)
        self.assertEqual(set(s0["errors"].values()), {0})
        for key in ("rss", "games", "per_game"):
            self.assertIs(type(s0["memory"][key]), int)
        self.assertGreater(s0["memory"]["rss"], 0)
        extra = [self.d.client("tcp", "json") for _ in range(3)]
        try:
            for x in extra:
                x.ping()
            games = [self.c.new_game(["ann", "bob"]) for _ in range(4)]
            self.c.close_game(games[0]["game"], games[0]["admin_token"])
            expected = {"no_such_game": 2, "invalid_params": 1, "unknown_method": 1, "forbidden": 1,
                        "not_your_turn": 1, "conflict": 1, "illegal_move": 1}
            g = games[1]
            move = self.c.legal_moves(g["game"])["moves"][0]
            code_of(self.c.state, 987654321)
            code_of(self.c.history, 987654321)
            code_of(self.c.call, "state", {"game": "x"})
            code_of(self.c.call, "nope")
            code_of(self.c.apply_move, g["game"], move, token="0" * 32)
            code_of(self.c.apply_move, g["game"], move, token=g["seats"][1]["token"])
            code_of(self.c.apply_move, g["game"], move, token=g["seats"][0]["token"], seq=3)
            code_of(self.c.apply_move, g["game"], {"type": "pass"}, token=g["seats"][0]["token"])
            r = self.d.raw("unix")
            extra.append(r)
            r.send_msgpack([0, 1, "ping", 5, 6])
            r.read_one("msgpack")
            expected["bad_request"] = 1
            s1 = self.c.stats()
            self.assertEqual(s1["connections"], 5)
            self.assertEqual(s1["games"], 3)
            self.assertEqual(s1["games_total"], 4)
            self.assertEqual({k: v for k, v in s1["errors"].items() if v}, expected)
            # requests: those served since s0 over this connection and the others
            self.assertEqual(s1["requests"] - s0["requests"], 3 + 4 + 1 + 1 + 8 + 1)
            self.assertGreater(s1["uptime"], s0["uptime"])
            self.assertGreater(s1["memory"]["games"], s0["memory"]["games"])
        finally:
            for x in extra:
                x.close()
        deadline = time.monotonic() + 5
        while self.c.stats()["connections"] != 1 and time.monotonic() < deadline:
            time.sleep(0.02)
        self.assertEqual(self.c.stats()["connections"], 1)


class Depth(unittest.TestCase):
    """Section 7 "nesting depth at most 16", and section 1: both encodings
    carry the same messages, so they count depth alike (arrays and maps,
    the envelope being 1; scalars are no level)."""

    def test_depth_16_is_served_in_both_encodings_and_17_refused(self):
        with daemon["d"].raw("unix") as r:
            r.send(packb(nested(16, 1)))
            self.assertEqual(r.read_one("msgpack"), [1, 3, None, {}])
        with daemon["d"].raw("unix") as r:
            r.send_line(json.dumps(nested(16, 1)))
            self.assertEqual(r.read_one("json"), [1, 3, None, {}])
            r.send_line(json.dumps(nested(17, 1)))
            self.assertEqual(r.read_one("json")[2]["code"], "limit")
            r.send_line(json.dumps([0, 4, "ping", {}]))    # the line protocol goes on
            self.assertEqual(r.read_one("json"), [1, 4, None, {}])

    def test_shorthand_and_array_form_judged_alike(self):
        for depth in (16, 17):
            with self.subTest(depth=depth):
                request = nested(depth, 1)
                with daemon["d"].raw("tcp") as r:
                    r.send_line("ping " + json.dumps(request[3]))
                    a = r.read_one("json")
                    r.send_line(json.dumps([0, None, "ping", request[3]]))
                    b = r.read_one("json")
                self.assertEqual(a, b)
                self.assertEqual(a[2] is None, depth == 16, a)


class ZeroBytesInStrings(unittest.TestCase):
    """A string may hold a 0 byte (MessagePack, or JSON's \\u0000); it is no
    name, id or token the protocol knows, so it gets the answer any unknown
    string gets (section 2: invalid_params for an unknown expansion or rule
    option, forbidden for a token of no seat) and never passes for the part
    before the 0 byte."""

    def setUp(self):
        self.c = daemon["d"].client("unix", "msgpack")
        self.j = daemon["d"].client("tcp", "json")

    def tearDown(self):
        self.c.close()
        self.j.close()

    def test_unknown_names(self):
        for c in (self.c, self.j):
            for kw in ({"rules": {"farmers\x00junk": False}}, {"rules": {"farm_scoring": "per-farm-3\x00junk"}},
                       {"expansions": ["base\x00junk"]}, {"tiles": ["BA/C\x00junk"]}):
                if c is self.j and "farmers\x00junk" in kw.get("rules", {}):
                    # JSON object keys cannot hold \\u0000 (jansson): a bad JSON line
                    self.assertEqual(code_of(c.new_game, ["ann"], **kw), "bad_request")
                    continue
                with self.subTest(encoding=c is self.c and "msgpack" or "json", params=kw):
                    with self.assertRaises(carcd.Error) as cm:
                        c.new_game(["ann"], **kw)
                    self.assertEqual(cm.exception.code, "invalid_params")
                    self.assertIsInstance(cm.exception.message, str)   # readable though it quotes the string

    def test_tokens_and_move_types(self):
        for c in (self.c, self.j):
            g = c.new_game(["ann", "bob"])
            lm = c.legal_moves(g["game"])
            self.assertEqual(code_of(c.apply_move, g["game"], lm["moves"][0],
                                     token=g["seats"][0]["token"] + "\x00junk"), "forbidden")
            move = dict(lm["moves"][0], type=lm["moves"][0]["type"] + "\x00junk")
            self.assertEqual(code_of(c.apply_move, g["game"], move, token=g["seats"][0]["token"]),
                             "invalid_params")
            self.assertEqual(code_of(c.close_game, g["game"], g["admin_token"] + "\x00junk"), "forbidden")
            self.assertEqual(c.state(g["game"])["seq"], 0)
            self.assertEqual(code_of(c.call, "ping\x00junk", {}), "unknown_method")


class FeaturePorts(unittest.TestCase):
    """Section 3: "Where the server names a feature it gives its kind ...,
    `at` = its first port in canonical order, and `ports` = all its ports on
    that tile"."""

    def test_a_named_feature_has_its_ports(self):
        with daemon["d"].client("unix") as c:
            g = c.new_game(["ann"], tiles=["BA/RCr", "BA/L"], auth=False)
            c.apply_move(g["game"], {"type": "place_tile", "tile": "BA/RCr", "x": 1, "y": 0, "rot": 0})
            res = c.apply_move(g["game"], {"type": "deploy", "kind": "follower", "x": 1, "y": 0, "at": "WR"})
            dep = [e for e in res["events"] if e["type"] == "deployed"][0]
            self.assertEqual((dep["feature"], dep["at"], dep["ports"]), ("field", "EL", ["EL", "WR"]))
            fig = [f for t in c.state(g["game"])["board"] for f in t["figures"]][0]
            self.assertEqual((fig["at"], fig["ports"]), ("EL", ["EL", "WR"]))
            res = c.apply_move(g["game"], {"type": "place_tile", "tile": "BA/L", "x": 1, "y": 1, "rot": 0})
            res = c.apply_move(g["game"], {"type": "deploy", "kind": "follower", "x": 1, "y": 1, "at": "cloister"})
            named = [e for e in res["events"] if "ports" in e]
            self.assertTrue(named)
            for e in named:
                with self.subTest(event=e):
                    if e["at"] is None:   # a score with no place
                        self.assertIsNone(e["ports"])
                    else:
                        self.assertIn(e["at"], e["ports"])
                        self.assertEqual(e["ports"], sorted(e["ports"], key=PORTS.index))


class SubscriptionsOfClosedGames(unittest.TestCase):
    """A connection may watch up to 1024 games (proto/PROTOCOL.md); a game
    closed since no longer counts, so a connection that watched 1024 games,
    all closed, may watch more."""

    def test_closed_games_free_their_places(self):
        with harness.Daemon() as d, d.client("unix") as c, d.client("unix") as w:
            games = [c.new_game(["a"]) for _ in range(1024)]
            for g in games:
                w.subscribe(g["game"])
            extra = c.new_game(["a"])
            self.assertEqual(code_of(w.subscribe, extra["game"]), "limit")
            for g in games[:2]:
                c.close_game(g["game"], g["admin_token"])
            self.assertEqual(w.subscribe(extra["game"]), {"seq": 0})
            self.assertEqual(w.subscribe(c.new_game(["a"])["game"]), {"seq": 0})
            self.assertEqual(code_of(w.subscribe, c.new_game(["a"])["game"]), "limit")


class BigIntegers(unittest.TestCase):
    """An integer past 64 bits is valid JSON, and a valid MessagePack uint64
    past int64: either way the parameter is out of range (invalid_params),
    and the connection goes on."""

    def test_in_both_encodings(self):
        with daemon["d"].raw("tcp") as r:
            for line in ('state {"game": 99999999999999999999}', '[0, 5, "state", {"game": 99999999999999999999}]'):
                r.send_line(line)
                got = r.read_one("json")
                self.assertEqual(got[2]["code"], "invalid_params", (line, got))
            r.send_line('[0, 6, "ping", {"ignored": 99999999999999999999}]')
            self.assertEqual(r.read_one("json"), [1, 6, None, {}])
        with daemon["d"].raw("unix") as r:
            r.send(packb([0, 7, "state", {"game": 2 ** 64 - 1}]))
            self.assertEqual(r.read_one("msgpack")[2]["code"], "invalid_params")
            r.send(packb([0, 8, "ping", {}]))
            self.assertEqual(r.read_one("msgpack"), [1, 8, None, {}])


    def test_parameters_without_a_range_of_their_own(self):
        # a uint64 past int64 is out of range for `seq` and for a move's
        # coordinates too, which take any other integer: never read as
        # another number
        with daemon["d"].client("unix") as c:
            g = c.new_game(["ann", "bob"])
            token = g["seats"][0]["token"]
            move = c.legal_moves(g["game"])["moves"][0]
            with daemon["d"].raw("unix") as r:
                for i, params in enumerate(({"seq": 2 ** 64 - 1, "move": move},
                                            {"move": dict(move, x=2 ** 64 - 1)},
                                            {"move": dict(move, y=2 ** 64 - 2)},
                                            {"move": dict(move, rot=2 ** 64 - 1)})):
                    r.send(packb([0, i, "apply_move", dict(params, game=g["game"], token=token)]))
                    resp = r.read_one("msgpack")
                    self.assertEqual(resp[2]["code"], "invalid_params", (params, resp))
            self.assertEqual(c.state(g["game"])["seq"], 0)


if __name__ == "__main__":
    unittest.main()
