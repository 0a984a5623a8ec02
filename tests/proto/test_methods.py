"""Every method of PROTOCOL.md section 4, over a Unix socket and TCP, in
MessagePack-RPC and in JSON lines, against the real daemon."""

import json
import unittest

import harness
from harness import carcd

daemon, setUpModule, tearDownModule = harness.module_daemon()

ROTATIONS = (0, 90, 180, 270)
EDGE_PORTS = ("N", "E", "S", "W", "NL", "NR", "EL", "ER", "SL", "SR", "WL", "WR",
              "cloister", "tower", "I", "II")


def names(collection):
    """Names in a list of strings, a list of {name|key: ...} maps, or a map."""
    if isinstance(collection, dict):
        return set(collection)
    out = set()
    for item in collection:
        if isinstance(item, dict):
            out.add(item.get("name", item.get("key")))
        else:
            out.add(item)
    return out


def by_name(collection, name):
    if isinstance(collection, dict):
        return collection[name]
    for item in collection:
        if isinstance(item, dict) and name in (item.get("name"), item.get("key")):
            return item
    raise KeyError(name)


class MethodTests:
    """Mixed into one TestCase per (transport, encoding)."""
    transport = encoding = None

    def setUp(self):
        self.c = daemon["d"].client(self.transport, self.encoding)
        self.rng = harness.new_rng(self.id())

    def tearDown(self):
        self.c.close()

    def new_game(self, players=("ann", "bob"), **kw):
        return self.c.new_game(list(players), **kw)

    def assertError(self, code, fn, *args, **kw):
        with self.assertRaises(carcd.Error) as cm:
            fn(*args, **kw)
        self.assertEqual(cm.exception.code, code, str(cm.exception))
        self.assertIsInstance(cm.exception.message, str)
        self.assertTrue(cm.exception.message, "an error without a message")
        return cm.exception

    def play_first_tile(self, g):
        lm = self.c.legal_moves(g["game"])
        move = lm["moves"][0]
        return lm, move, self.c.apply_move(g["game"], move, token=g["seats"][0]["token"], seq=lm["seq"])

    # ---- ping, hello, stats ---------------------------------------------------
    def test_ping(self):
        self.assertEqual(self.c.ping(), {})

    def test_hello(self):
        h = self.c.hello("protocol tests")
        for key in ("server", "version", "protocol", "expansions", "components", "rules", "methods"):
            self.assertIn(key, h)
        self.assertIsInstance(h["server"], str)
        self.assertIsInstance(h["version"], str)
        self.assertIs(type(h["protocol"]), int)
        self.assertEqual(h["protocol"], 1)
        self.assertIn("base", names(h["expansions"]))
        self.assertLessEqual(set(harness.METHODS), names(h["methods"]))
        self.assertIn("large", names(h["components"]))
        farm = by_name(h["rules"], "farm_scoring")
        self.assertEqual(farm["default"], "per-city-4")
        self.assertLessEqual({"per-city-4", "per-farm-3", "per-farm-4"}, set(farm["values"]))
        farmers = by_name(h["rules"], "farmers")
        self.assertIs(farmers["default"], True)    # booleans are booleans
        self.assertEqual(by_name(h["rules"], "catapult_target_points")["default"], 5)
        self.assertEqual(self.c.call("hello")["protocol"], 1)   # `client` is optional

    def test_stats(self):
        s = self.c.stats()
        text = " ".join(s)
        for word in ("uptime", "connections", "games", "requests", "errors", "memory"):
            self.assertIn(word, text, "stats has nothing about %s: %r" % (word, s))
        errors = next(v for k, v in s.items() if "error" in k)
        self.assertIsInstance(errors, dict)
        # an error is counted by its code
        before = errors.get("no_such_game", 0)
        self.assertError("no_such_game", self.c.state, 987654321)
        after = next(v for k, v in self.c.stats().items() if "error" in k)
        self.assertEqual(after.get("no_such_game", 0), before + 1)

    # ---- new_game, state --------------------------------------------------------
    def test_new_game_and_state(self):
        g = self.new_game(["ann", "bob"])
        for key in ("game", "seats", "admin_token", "state"):
            self.assertIn(key, g)
        self.assertEqual([s["seat"] for s in g["seats"]], [0, 1])
        self.assertEqual([s["name"] for s in g["seats"]], ["ann", "bob"])
        tokens = [s["token"] for s in g["seats"]] + [g["admin_token"]]
        self.assertEqual(len(set(tokens)), 3, "tokens are not distinct")
        for t in tokens:
            self.assertIsInstance(t, str)
            self.assertGreaterEqual(len(t), 22, "a token shorter than 128 bits: %r" % t)

        st = g["state"]
        self.assertEqual(st["game"], g["game"])
        self.assertIsInstance(st["seq"], int)
        self.assertEqual(st["phase"], "tile")
        self.assertEqual(st["seat"], 0)
        self.assertIs(st["over"], False)
        self.assertRegex(st["seed_sha256"], r"^[0-9a-f]{64}$")
        self.assertEqual(st["tile"]["drawn_by"], 0)
        self.assertRegex(st["tile"]["id"], r"^BA/")
        self.assertEqual(st["tiles_left"], 70)   # 72 less the start tile less the tile drawn
        self.assertEqual(len(st["seats"]), 2)
        for i, seat in enumerate(st["seats"]):
            self.assertEqual(seat["seat"], i)
            self.assertEqual(seat["name"], ["ann", "bob"][i])
            self.assertEqual(seat["score"], 0)
            self.assertEqual(seat["supply"].get("follower"), 7)
            self.assertEqual(seat["tokens"], {})
            self.assertEqual(seat["prisoners"], [])
        self.assertEqual(len(st["board"]), 1)
        start = st["board"][0]
        self.assertEqual((start["x"], start["y"], start["tile"], start["rot"]), (0, 0, "BA/RCr", 0))
        self.assertEqual(start["figures"], [])
        self.assertEqual(st["neutral"], {"dragon": None, "fairy": None, "count": None})

        self.assertEqual(self.c.state(g["game"]), st)
        # only public information: no token, no seed, no salt, no supply order
        text = json.dumps(st)
        for t in tokens:
            self.assertNotIn(t, text)
        for key in ("seed", "salt", "supply_order", "order"):
            self.assertNotIn(key, st)

    def test_new_game_options(self):
        g = self.new_game(["a", "b", "c", "d", "e", "f"], expansions=["base"], seed=2 ** 53 - 1,
                          rules={"farm_scoring": "per-farm-3", "farmers": False, "tiny_city": "2-per-tile-1"},
                          components={"large": False}, auth=True)
        self.assertEqual(len(g["seats"]), 6)
        self.assertEqual(len(g["state"]["seats"]), 6)
        solo = self.new_game(["solo"])
        self.assertEqual([s["seat"] for s in solo["seats"]], [0])
        for bad in ([], ["a"] * 7):
            self.assertError("invalid_params", self.new_game, bad)
        self.assertError("invalid_params", self.new_game, expansions=["no-such-expansion"])
        self.assertError("invalid_params", self.new_game, rules={"no_such_rule": True})
        self.assertError("invalid_params", self.new_game, rules={"farm_scoring": "per-hectare"})
        self.assertError("invalid_params", self.new_game, components={"unicorn": True})
        self.assertError("invalid_params", self.new_game, seed=2 ** 53)
        self.assertError("invalid_params", self.new_game, seed=-1)
        self.assertError("invalid_params", self.new_game, tiles=["BA/NOPE"])

    def test_new_game_tiles_and_start(self):
        g = self.new_game(tiles=["BA/C", "BA/L", "BA/Cccc+"],
                          start=[{"tile": "BA/CFc+", "x": 0, "y": 0, "rot": 90}])
        st = g["state"]
        self.assertEqual(st["tile"]["id"], "BA/C")
        self.assertEqual(st["tiles_left"], 2)
        self.assertEqual([(t["tile"], t["x"], t["y"], t["rot"]) for t in st["board"]],
                         [("BA/CFc+", 0, 0, 90)])
        # start tiles that touch must match; the one that does not is named
        start = [{"tile": "BA/C", "x": 0, "y": 0, "rot": 0}, {"tile": "BA/L", "x": 1, "y": 0, "rot": 0},
                 {"tile": "BA/RCr", "x": 0, "y": 1, "rot": 0}]
        with self.assertRaises(carcd.Error) as cm:
            self.new_game(start=start)
        self.assertEqual(cm.exception.code, "invalid_params")
        self.assertEqual(cm.exception.message,
                         "start[2]: BA/RCr at (0,1) turned 0° does not match the start tiles next to it")
        start[2]["rot"] = 180   # its city faces away, its field meets BA/C's
        self.assertEqual(len(self.new_game(start=start)["state"]["board"]), 3)

    def test_new_game_without_a_start_tile(self):
        """Only `base` (BA/RCr) and the river sets (the spring) bring a
        standard start tile: other sets alone need `start`, and the error
        says so instead of an out-of-range parameter."""
        message = ("`expansions`: without `base`, `river` or `river2` there is no standard start tile; "
                   "add `base` or give `start`")
        for expansions in (["cult"], ["mini"], ["king-robber"], ["inns-cathedrals"], ["abbey-mayor", "hills-sheep"]):
            with self.subTest(expansions=expansions):
                e = self.assertError("invalid_params", self.new_game, expansions=expansions)
                self.assertEqual(e.message, message)
        # a supply given as `tiles` brings no start tile either
        e = self.assertError("invalid_params", self.new_game, expansions=["cult"], tiles=["CU/S", "CU/SR"])
        self.assertEqual(e.message, message)
        # the ways out: a start tile of the game's own sets, or a set with a standard one
        g = self.new_game(expansions=["cult"], start=[{"tile": "CU/S", "x": 0, "y": 0, "rot": 0}])
        self.assertEqual([t["tile"] for t in g["state"]["board"]], ["CU/S"])
        self.assertEqual([t["tile"] for t in self.new_game(expansions=["base", "cult"])["state"]["board"]], ["BA/RCr"])
        for expansions in (["river"], ["river2"], ["mini", "river"]):
            with self.subTest(expansions=expansions):
                self.assertEqual([t["tile"] for t in self.new_game(expansions=expansions)["state"]["board"]], ["RI/s"])

    # ---- legal_moves, apply_move --------------------------------------------------
    def test_legal_moves(self):
        g = self.new_game()
        st = g["state"]
        lm = self.c.legal_moves(g["game"])
        self.assertEqual(lm["game"], g["game"])
        self.assertEqual(lm["seq"], st["seq"])
        self.assertEqual(lm["phase"], "tile")
        self.assertEqual(lm["seat"], 0)
        self.assertTrue(lm["moves"])
        places = set()
        for m in lm["moves"]:
            self.assertEqual(m["type"], "place_tile")
            self.assertEqual(m["tile"], st["tile"]["id"])
            self.assertIn(m["rot"], ROTATIONS)
            self.assertIn((m["x"], m["y"]), {(0, -1), (1, 0), (0, 1), (-1, 0)})
            places.add((m["x"], m["y"], m["rot"]))
        self.assertEqual(len(places), len(lm["moves"]), "a placement listed twice")
        self.assertEqual(self.c.legal_moves(g["game"], seat=0)["moves"], lm["moves"])
        other = self.c.legal_moves(g["game"], seat=1)
        self.assertEqual(other["moves"], [])

    def test_apply_move_and_deploy(self):
        g = self.new_game()
        game, t0 = g["game"], g["seats"][0]["token"]
        lm, move, res = self.play_first_tile(g)
        for key in ("seq", "events", "phase", "seat", "over"):
            self.assertIn(key, res)
        self.assertGreater(res["seq"], lm["seq"])
        self.assertIs(res["over"], False)
        placed = [e for e in res["events"] if e["type"] == "tile_placed"]
        self.assertEqual(len(placed), 1)
        self.assertEqual({k: placed[0][k] for k in ("seat", "tile", "x", "y", "rot")},
                         {"seat": 0, "tile": move["tile"], "x": move["x"], "y": move["y"], "rot": move["rot"]})
        # nothing is occupied yet: a follower may go onto the new tile
        self.assertEqual((res["phase"], res["seat"]), ("action", 0))
        st = self.c.state(game)
        self.assertEqual(st["seq"], res["seq"])
        self.assertEqual(len(st["board"]), 2)
        self.assertEqual((st["phase"], st["seat"]), ("action", 0))

        lm = self.c.legal_moves(game)
        self.assertEqual((lm["phase"], lm["seat"], lm["seq"]), ("action", 0, res["seq"]))
        types = {m["type"] for m in lm["moves"]}
        self.assertEqual(types, {"deploy", "pass"})
        deploys = [m for m in lm["moves"] if m["type"] == "deploy"]
        for m in deploys:
            self.assertEqual((m["x"], m["y"]), (move["x"], move["y"]))
            self.assertIn(m["at"], EDGE_PORTS)
            self.assertEqual(m["kind"], "follower")
        d = deploys[0]
        res2 = self.c.apply_move(game, d, token=t0, seq=lm["seq"])
        dep = [e for e in res2["events"] if e["type"] == "deployed"]
        self.assertEqual(len(dep), 1)
        self.assertEqual({k: dep[0][k] for k in ("seat", "figure", "kind", "x", "y")},
                         {"seat": 0, "figure": "0.follower.1", "kind": "follower", "x": d["x"], "y": d["y"]})
        self.assertIn(dep[0]["feature"], ("road", "city", "field", "cloister"))
        self.assertIn(dep[0]["at"], EDGE_PORTS)
        self.assertIn({"type": "turn", "seat": 1}, [{k: e[k] for k in ("type", "seat")}
                                                    for e in res2["events"] if e["type"] == "turn"])
        drawn = [e for e in res2["events"] if e["type"] == "tile_drawn"]
        self.assertEqual(drawn[-1]["seat"], 1)
        self.assertEqual((res2["phase"], res2["seat"]), ("tile", 1))
        # it may have completed a feature at once and come back
        back = [e for e in res2["events"] if e["type"] == "returned"]
        self.assertIn([(e["seat"], e["figure"]) for e in back], ([], [(0, "0.follower.1")]))
        st = self.c.state(game)
        self.assertEqual(st["seats"][0]["supply"]["follower"], 6 + len(back))
        figs = [f for t in st["board"] for f in t["figures"]]
        self.assertEqual(len(figs), 1 - len(back))
        for f in figs:
            self.assertEqual((f["id"], f["kind"], f["at"]), ("0.follower.1", "follower", dep[0]["at"]))
        self.assertEqual(st["tile"]["id"], drawn[-1]["tile"])

    def test_apply_move_errors(self):
        g = self.new_game()
        game = g["game"]
        t0, t1 = g["seats"][0]["token"], g["seats"][1]["token"]
        lm = self.c.legal_moves(game)
        move = lm["moves"][0]
        self.assertError("not_your_turn", self.c.apply_move, game, move, token=t1)
        self.assertError("forbidden", self.c.apply_move, game, move, token="0" * 32)
        self.assertError("forbidden", self.c.apply_move, game, move, token=g["admin_token"])
        self.assertError("forbidden", self.c.apply_move, game, move)          # no token at all
        self.assertError("conflict", self.c.apply_move, game, move, token=t0, seq=lm["seq"] + 1)
        far = dict(move, x=40, y=40)
        self.assertError("illegal_move", self.c.apply_move, game, far, token=t0)
        self.assertError("illegal_move", self.c.apply_move, game,
                         {"type": "deploy", "kind": "follower", "x": 0, "y": 0, "at": "N"}, token=t0)
        self.assertError("no_such_game", self.c.apply_move, 987654321, move, token=t0)
        self.assertEqual(self.c.state(game)["seq"], lm["seq"], "a refused move changed the game")
        # extra keys are ignored, and `at` may be any port of the feature
        res = self.c.apply_move(game, dict(move, comment="hello"), token=t0, seq=lm["seq"])
        self.assertGreater(res["seq"], lm["seq"])

    # ---- score, history --------------------------------------------------------
    def test_score(self):
        g = self.new_game()
        sc = self.c.score(g["game"])
        self.assertEqual(sc["scores"], [0, 0])
        self.assertIs(sc["final"], False)
        self.assertEqual([b["seat"] for b in sc["breakdown"]], [0, 1])
        for b in sc["breakdown"]:
            self.assertIsInstance(b["by"], dict)
            for key in ("road", "city", "cloister", "field"):
                self.assertEqual(b["by"].get(key, 0), 0)
        self.assertEqual(sc["if_ended_now"], [0, 0])
        # with a follower on the board, "if it ended now" is at least the score
        self.play_first_tile(g)
        lm = self.c.legal_moves(g["game"])
        deploy = [m for m in lm["moves"] if m["type"] == "deploy"]
        self.c.apply_move(g["game"], deploy[0], token=g["seats"][0]["token"], seq=lm["seq"])
        sc = self.c.score(g["game"])
        self.assertEqual(len(sc["if_ended_now"]), 2)
        self.assertIs(sc["final"], False)
        self.assertGreaterEqual(sc["if_ended_now"][0], sc["scores"][0])
        self.assertEqual(self.c.state(g["game"])["over"], False, "score ended the game")

    def test_history(self):
        g = self.new_game()
        game = g["game"]
        tokens = {s["seat"]: s["token"] for s in g["seats"]}
        played, events, seqs = [], [], []
        for _ in range(5):
            lm = self.c.legal_moves(game)
            move = self.rng.choice(lm["moves"])
            res = self.c.apply_move(game, move, token=tokens[lm["seat"]], seq=lm["seq"])
            played.append(move)
            events += res["events"]
            seqs.append(res["seq"])
        h = self.c.history(game)
        for key in ("setup", "moves", "events"):
            self.assertIn(key, h)
        self.assertIsInstance(h["setup"], dict)
        self.assertEqual(harness.history_moves(h), played)
        if "move" in h["moves"][0]:   # carcd's {seq, seat, move} entries
            self.assertEqual([m["seq"] for m in h["moves"]], seqs)
        hev = harness.history_events(h)
        self.assertEqual(hev[len(hev) - len(events):], events)
        for key in ("seed", "salt"):
            self.assertNotIn(key, h, "history shows %s before the end" % key)
            self.assertNotIn(key, h["setup"], "history shows %s before the end" % key)

    # ---- games, close_game ------------------------------------------------------
    def summaries(self):
        gs = self.c.games()
        if isinstance(gs, dict):
            self.assertIn("games", gs)
            gs = gs["games"]
        self.assertIsInstance(gs, list)
        return {s["game"]: s for s in gs}

    def test_games_and_close_game(self):
        g = self.new_game(["ann", "bob"])
        game = g["game"]
        self.assertIn(game, self.summaries())
        s = self.summaries()[game]
        self.assertEqual((s["seq"], s["phase"], s["seat"], s["over"]), (0, "tile", 0, False))
        self.assertError("forbidden", self.c.close_game, game, "f" * 32)
        self.assertError("forbidden", self.c.close_game, game, g["seats"][0]["token"])
        w = daemon["d"].client(self.transport, self.encoding)
        w.subscribe(game)
        self.assertEqual(self.c.close_game(game, g["admin_token"]), {})
        # carcd tells its watchers (proto/PROTOCOL.md: the game_closed event)
        note = w.next_event(timeout=5)
        w.close()
        self.assertEqual((note["game"], [e["type"] for e in note["events"]]), (game, ["game_closed"]))
        self.assertNotIn(game, self.summaries())
        self.assertError("no_such_game", self.c.state, game)
        self.assertError("no_such_game", self.c.close_game, game, g["admin_token"])

    # ---- subscribe, unsubscribe ----------------------------------------------------
    def test_subscribe_and_unsubscribe(self):
        g = self.new_game()
        game, t0 = g["game"], g["seats"][0]["token"]
        with daemon["d"].client(self.transport, self.encoding) as w:
            sub = w.subscribe(game)
            self.assertEqual(sub, {"seq": g["state"]["seq"]})
            _, _, res = self.play_first_tile(g)
            note = w.next_event(timeout=5)
            self.assertIsNotNone(note, "no notification after a move")
            self.assertEqual(note, {"game": game, "seq": res["seq"], "events": res["events"]})
            self.assertEqual(w.unsubscribe(game), {"seq": res["seq"]})
            lm = self.c.legal_moves(game)
            self.c.apply_move(game, lm["moves"][-1], token=t0, seq=lm["seq"])
            w.ping()   # its response comes after any notification sent before it
            self.assertEqual(list(w.events), [], "a notification after unsubscribe")
            self.assertError("no_such_game", w.subscribe, 987654321)

    # ---- bad calls -----------------------------------------------------------------
    def test_unknown_method_and_missing_params(self):
        e = self.assertError("unknown_method", self.c.call, "no_such_method")
        self.assertIn("no_such_method", e.message)
        self.assertError("invalid_params", self.c.call, "state", {})
        self.assertError("invalid_params", self.c.call, "state", {"game": "seven"})
        self.assertError("no_such_game", self.c.state, 987654321)
        self.assertEqual(self.c.ping(), {})   # the connection goes on


class UnixMsgpack(MethodTests, unittest.TestCase):
    transport, encoding = "unix", "msgpack"


class UnixJson(MethodTests, unittest.TestCase):
    transport, encoding = "unix", "json"


class TcpMsgpack(MethodTests, unittest.TestCase):
    transport, encoding = "tcp", "msgpack"


class TcpJson(MethodTests, unittest.TestCase):
    transport, encoding = "tcp", "json"


class EncodingDetails(unittest.TestCase):
    """What the envelopes look like on the wire, byte for byte."""

    def raw(self, transport="unix"):
        return daemon["d"].raw(transport)

    def test_json_shorthand_and_msgids(self):
        with self.raw("tcp") as r:
            r.send_line("ping")
            self.assertEqual(r.read_one("json"), [1, None, None, {}])
            r.send_line('[0, 7, "ping", {}]')
            self.assertEqual(r.read_one("json"), [1, 7, None, {}])
            r.send(b"ping\r\n")                      # \r\n is a line end too
            self.assertEqual(r.read_one("json"), [1, None, None, {}])
            r.send_line('new_game {"players": ["ann", "bob"]}')
            resp = r.read_one("json")
            self.assertEqual(resp[:3], [1, None, None])
            game = resp[3]["game"]
            r.send_line('state {"game": %d}' % game)
            resp = r.read_one("json")
            self.assertEqual(resp[:3], [1, None, None])
            self.assertIs(resp[3]["over"], False)      # a boolean, not "false"
            r.send_line('[0, 4294967295, "state", [{"game": %d}]]' % game)
            resp = r.read_one("json")
            self.assertEqual(resp[:3], [1, 4294967295, None])
            r.send_line("no_such_method")
            resp = r.read_one("json")
            self.assertEqual((resp[0], resp[1], resp[3]), (1, None, None))
            self.assertEqual(resp[2]["code"], "unknown_method")

    def test_json_last_line_without_newline(self):
        with self.raw("unix") as r:
            r.send(b"ping")
            r.shutdown_write()
            self.assertEqual(r.read_one("json"), [1, None, None, {}])
            self.assertTrue(r.closed_by_peer())

    def test_json_notifications(self):
        with daemon["d"].client("unix") as c, self.raw("tcp") as r:
            g = c.new_game(["ann", "bob"])
            r.send_line('subscribe {"game": %d}' % g["game"])
            self.assertEqual(r.read_one("json"), [1, None, None, {"seq": g["state"]["seq"]}])
            lm = c.legal_moves(g["game"])
            res = c.apply_move(g["game"], lm["moves"][0], token=g["seats"][0]["token"])
            self.assertEqual(r.read_one("json"),
                             [2, "event", {"game": g["game"], "seq": res["seq"], "events": res["events"]}])

    def test_msgpack_envelope(self):
        with self.raw("unix") as r:
            r.send_msgpack([0, 1, "ping", {}])
            self.assertEqual(r.read_one("msgpack"), [1, 1, None, {}])
            # params as an array holding one map, as stock MessagePack-RPC clients send
            r.send_msgpack([0, 2, "new_game", [{"players": ["ann"]}]])
            resp = r.read_one("msgpack")
            self.assertEqual(resp[:3], [1, 2, None])
            game = resp[3]["game"]
            r.send_msgpack([0, 0xffffffff, "state", [{"game": game}]])
            resp = r.read_one("msgpack")
            self.assertEqual(resp[:3], [1, 0xffffffff, None])
            self.assertEqual(resp[3]["game"], game)
            r.send_msgpack([0, 3, "no_such_method", {}])
            resp = r.read_one("msgpack")
            self.assertEqual((resp[0], resp[1], resp[3]), (1, 3, None))
            self.assertEqual(resp[2]["code"], "unknown_method")

    def test_responses_in_request_order(self):
        with daemon["d"].client("unix") as c:
            g = c.new_game(["ann", "bob"])
            methods = ["ping", "state", "legal_moves", "score", "history", "games", "stats", "hello",
                       "no_such_method"]
            sent = []
            for i in range(120):
                m = methods[i % len(methods)]
                params = {"game": g["game"]} if m in ("state", "legal_moves", "score", "history") else {}
                sent.append(c.send(m, params))
            got = []
            while len(got) < len(sent):
                c._read(10)
                got = [x for x in sent if x in c._responses]
            order = list(c._responses)
            self.assertEqual(order, sent, "responses out of request order")

    def test_both_encodings_see_the_same_game(self):
        with daemon["d"].client("unix", "msgpack") as a, daemon["d"].client("tcp", "json") as b:
            g = a.new_game(["ann", "bob"], seed=12345)
            self.assertEqual(a.state(g["game"]), b.state(g["game"]))
            self.assertEqual(a.legal_moves(g["game"]), b.legal_moves(g["game"]))
            # a game made over one encoding is played over the other
            lm = b.legal_moves(g["game"])
            res = b.apply_move(g["game"], lm["moves"][0], token=g["seats"][0]["token"], seq=lm["seq"])
            self.assertEqual(a.state(g["game"])["seq"], res["seq"])
            self.assertEqual(a.history(g["game"]), b.history(g["game"]))


if __name__ == "__main__":
    unittest.main()
