"""An audit of the expansions' wire contract (shared/design/PROTOCOL.md
sections 3-6, proto/PROTOCOL.md) where test_expansions.py, test_wire_ext.py
and test_contract*.py leave a statement unpinned:

- apply_move's checks in order (game_over, token, seq, form, rules) in each
  decision the expansions add: the abbey choice, wagon, flock, escape and
  the final abbey round; a refused move changes neither state, legal_moves
  nor history;
- `scored` of goods, the king and the robber: `x`, `y`, `at` and `ports`
  all nil;
- the cult challenge and the volcano lake's extra turn as events;
- a hill among the start tiles: every tile of the supply is drawn, hidden
  (with `tile_hidden`) or left, and history's `tiles` replays the game;
- the abbey is refused in `tiles`; a key given twice in a map:
  the last counts, in both encodings;
- MessagePack details of expansion moves: float32 and non-finite
  coordinates, `bin` strings, extension types;
- mutations of listed moves in whole games with every expansion: each
  refused with invalid_params or illegal_move, changing nothing, or, when
  accepted, the listed move named through another port.

Each group runs over MessagePack on the Unix socket and JSON lines on TCP."""

import json
import math
import random
import struct
import unittest

import harness
from harness import carcd, code_of, msgpack
from test_expansions import Bot
from crafted import (ABBEY_MOVES, ABBEY_TILES, DRAW, ESCAPE_MOVES, ESCAPE_TILES, FINAL_MOVES, FINAL_TILES,
                     FLOCK_MOVES, FLOCK_START, PASS, WAGONS_MOVES, WAGONS_TILES, abbey, deploy, escape, flock,
                     of_type, over_both, place, register_over_both, wagon)

daemon, setUpModule, tearDownModule = harness.module_daemon()

AM = ["base", "abbey-mayor"]
ALL_EXPANSIONS = ["base", "river", "river2", "mini", "inns-cathedrals", "traders-builders",
                  "abbey-mayor", "king-robber", "cathars", "cult", "hills-sheep"]
OverBoth = over_both(daemon)


def snapshot(t):
    """Everything a refused move must leave as it was."""
    return t.state(), t.legal(), t.c.history(t.game)


# ---- the expansions' decisions and apply_move's checks in order ---------------------------

def abbey_choice(test):
    t = test.table(["ann", "bob"], expansions=AM, tiles=ABBEY_TILES, seed=5)
    t.play(*ABBEY_MOVES)
    return t, abbey(0, -1), {"type": "place_abbey", "x": 0}


def wagon_decision(test):
    t = test.table(["ann", "bob", "cy"], expansions=AM, tiles=WAGONS_TILES, seed=5)
    t.play(*WAGONS_MOVES)
    return t, wagon(-1, 0, "W"), wagon(-1, 0, "XX")


def flock_decision(test):
    t = test.table(["ann", "bob"], expansions=["base", "hills-sheep"], start=FLOCK_START, bag=[3, 2, 4],
                   tiles=["BA/RFr"] * 5, seed=5)
    t.play(*FLOCK_MOVES)
    return t, flock("gather"), flock("fly")


def escape_decision(test):
    t = test.table(["ann", "bob"], expansions=["base", "cathars"], tiles=ESCAPE_TILES, seed=5)
    t.play(*ESCAPE_MOVES)
    return t, escape("0.follower.1"), escape("0.follower.01")


def final_round(test):
    t = test.table(["ann", "bob"], expansions=AM, tiles=FINAL_TILES, seed=5, rules={"abbey_final_round": True})
    t.play(*FINAL_MOVES)
    return t, abbey(0, -1), abbey(0, "-1")


DECISIONS = [("tile", abbey_choice), ("wagon", wagon_decision), ("flock", flock_decision),
             ("escape", escape_decision), ("abbey_final", final_round)]


class CheckOrder:
    """proto/PROTOCOL.md "Tokens and turns": the game exists; it is not
    over; the token; seq; the move well formed; the move legal.  A refused
    move changes nothing."""

    def test_each_check_in_each_decision(self):
        for phase, make in DECISIONS:
            with self.subTest(phase=phase):
                t, good, malformed = make(self)
                lm = t.legal()
                self.assertEqual(lm["phase"], phase)
                self.assertIn(good, lm["moves"])
                seq, due = lm["seq"], lm["seat"]
                other = t.tokens[(due + 1) % len(t.tokens)]
                before = snapshot(t)
                cases = [
                    (malformed, "0" * 32, seq + 7, "forbidden"),
                    (malformed, None, seq + 7, "forbidden"),
                    (malformed, t.g["admin_token"], seq, "forbidden"),
                    (malformed, other, seq + 7, "conflict"),
                    (malformed, other, seq, "not_your_turn"),
                    (good, other, seq, "not_your_turn"),
                    (malformed, t.tokens[due], seq + 1, "conflict"),
                    (malformed, t.tokens[due], seq - 1, "conflict"),
                    (good, t.tokens[due], seq - 1, "conflict"),
                    (good, t.tokens[due], seq + 1, "conflict"),
                    (good, t.tokens[due], 0, "conflict"),
                    (malformed, t.tokens[due], seq, "invalid_params"),
                    (malformed, t.tokens[due], None, "invalid_params"),
                    ({"type": "move_dragon", "x": 0, "y": 0}, t.tokens[due], seq, "illegal_move"),
                ]
                for move, token, s, code in cases:
                    with self.subTest(move=move, seq=s, code=code):
                        self.assertEqual(code_of(self.c.apply_move, t.game, move, token=token, seq=s), code)
                for key, bad in (("seq", "1"), ("seq", seq + 0.5), ("seq", [seq]), ("token", 7), ("move", [good])):
                    with self.subTest(param=key, value=bad):
                        params = {"game": t.game, "token": t.tokens[due], "move": good, "seq": seq}
                        params[key] = bad
                        self.assertEqual(code_of(self.c.call, "apply_move", params), "invalid_params")
                self.assertEqual(snapshot(t), before)
                # seq as an integral float is that integer
                res = self.c.apply_move(t.game, good, token=t.tokens[due], seq=float(seq))
                self.assertEqual(res["seq"], seq + 1)

    def test_game_over_before_everything(self):
        t, _, _ = final_round(self)
        t.play(PASS, PASS)
        self.assertTrue(t.state()["over"])
        before = snapshot(t)
        seq = before[0]["seq"]
        for move in (abbey(0, -1), DRAW, PASS, wagon(0, 0, "N"), flock("expand"), escape("0.follower.1"),
                     flock("fly"), {"type": "teleport"}, {}):
            for token in (t.tokens[0], t.tokens[1], "0" * 32, None):
                for s in (None, seq, seq + 1):
                    with self.subTest(move=move, token=token, seq=s):
                        self.assertEqual(code_of(self.c.apply_move, t.game, move, token=token, seq=s), "game_over")
        self.assertEqual(snapshot(t), before)


# ---- section 6: events of the expansions, exactly ------------------------------------------

class Events:
    def test_goods_king_and_robber_belong_to_no_place(self):
        """proto/PROTOCOL.md section 6: `trade`, `king` and `robber` scores
        have `x, y, at, ports` nil."""
        t = self.table(["ann", "bob"], expansions=["base", "traders-builders"],
                       tiles=["TB/CFc.w", "BA/C", "TB/Cc.g"], seed=5)
        t.play(place("TB/CFc.w", 0, -1, 90), deploy(0, -1, "N"), place("BA/C", 0, -2, 180), PASS)
        evs = t.events(place("TB/Cc.g", 1, -1, 90), PASS)
        self.assertEqual(evs, [{"type": "scored", "seat": 1, "points": 10, "feature": "trade", "x": None,
                                "y": None, "at": None, "ports": None, "final": True},
                               {"type": "game_over", "scores": [6, 10]}])
        t = self.table(["ann", "bob"], expansions=["base", "king-robber"], tiles=["BA/C", "BA/RRR", "BA/RRR"],
                       seed=5)
        evs = t.events(place("BA/C", 0, -1, 180), deploy(0, -1, "S"), place("BA/RRR", -1, 0, 0), PASS,
                       place("BA/RRR", 1, 0, 0), PASS)
        for token in ("king", "robber"):
            self.assertIn({"type": "scored", "seat": 0, "points": 1, "feature": token, "x": None, "y": None,
                           "at": None, "ports": None, "final": True}, evs)
        self.assertEqual(of_type(evs, "token_taken"), [{"type": "token_taken", "seat": 0, "token": "robber"}])

    def test_cult_challenge(self):
        # tests/scenarios/cult-03: the completed cloister wins the challenge
        ring = [{"tile": "GQ/F", "x": x, "y": y, "rot": 0} for x, y in ((-1, -1), (0, -1), (1, -1), (-1, 0),
                                                                         (-1, 1), (1, 1))]
        t = self.table(["ann", "bob"], expansions=["base", "cult", "mini"], start=ring,
                       tiles=["BA/L", "CU/S", "GQ/F"], seed=5)
        t.play(place("BA/L", 0, 0, 0), deploy(0, 0, "cloister"), place("CU/S", 1, 0, 0))
        self.assertIn(deploy(1, 0, "cloister"), t.legal()["moves"])
        evs = t.events(deploy(1, 0, "cloister"))
        self.assertEqual(evs[0], {"type": "deployed", "seat": 1, "figure": "1.follower.1", "kind": "follower",
                                  "x": 1, "y": 0, "at": "cloister", "ports": ["cloister"], "feature": "cloister"})
        evs = t.events(place("GQ/F", 0, 1, 0), PASS)
        self.assertEqual(evs, [
            {"type": "feature_completed", "feature": "cloister", "x": 0, "y": 0, "at": "cloister",
             "ports": ["cloister"], "tiles": 1},
            {"type": "scored", "seat": 0, "points": 9, "feature": "cloister", "x": 0, "y": 0, "at": "cloister",
             "ports": ["cloister"], "final": False},
            {"type": "returned", "seat": 1, "figure": "1.follower.1", "why": "challenge"},
            {"type": "returned", "seat": 0, "figure": "0.follower.1", "why": "scored"},
            {"type": "game_over", "scores": [9, 0]}])

    def test_volcano_lake_extra_turn(self):
        # tests/scenarios/river-08: no figure on the lake; its placer plays again
        t = self.table(["ann", "bob"], expansions=["base", "river2"], tiles=["RI.2/I.v", "BA/C", "BA/C"], seed=5)
        res = t.play(place("RI.2/I.v", 1, 0, 0))
        self.assertEqual(res["events"], [{"type": "tile_placed", "seat": 0, "tile": "RI.2/I.v", "x": 1, "y": 0,
                                          "rot": 0},
                                         {"type": "turn", "seat": 0},
                                         {"type": "tile_drawn", "seat": 0, "tile": "BA/C"}])
        self.assertEqual((res["phase"], res["seat"]), ("tile", 0))
        for move in (deploy(1, 0, "NL"), PASS, DRAW):
            t.refuse(move, "illegal_move")
        t.refuse(place("BA/C", 0, -1, 0), "not_your_turn", token=t.tokens[1])


# ---- a hill among the start tiles ------------------------------------------------------------

HILL_START = [{"tile": "HS/RR.h", "x": 0, "y": 0, "rot": 0}]


class HillStart:
    """RULES.md 2.13: a tile goes under a hill when the hill is drawn; a
    start tile is not drawn.  Whatever the server does with a hill among the
    start tiles, the wire must account for every tile of the supply
    (section 6 `tile_hidden`; history's events from the setup on) and
    history's `tiles` must replay the game (proto/PROTOCOL.md, history)."""

    def hill_game(self, **options):
        return self.table(["ann"], expansions=["base", "hills-sheep"], start=HILL_START,
                          tiles=["BA/C", "BA/L"], seed=1, **options)

    def test_every_supply_tile_is_accounted_for_at_the_start(self):
        t = self.hill_game()
        st = t.state()
        hidden = [e for e in self.c.history(t.game)["events"] if e["type"] == "tile_hidden"]
        drawn = 1 if st["tile"] else 0
        self.assertEqual(drawn + st["tiles_left"] + len(hidden), 2,
                         "a supply tile vanished at the setup without a tile_hidden event: state %r" % st)

    def test_history_tiles_replay_the_game(self):
        t = self.hill_game()
        while t.legal()["phase"] != "over":
            lm = t.legal()
            t.play(PASS if PASS in lm["moves"] else lm["moves"][0])
        h = self.c.history(t.game)
        self.assertEqual(h["setup"]["tiles"], ["BA/C", "BA/L"])
        u = self.table(["ann"], expansions=["base", "hills-sheep"], start=HILL_START, tiles=h["tiles"],
                       seed=h["seed"], auth=False)
        got = []
        for move in harness.history_moves(h):
            try:
                got.append(self.c.apply_move(u.game, move)["events"])
            except carcd.Error as e:
                self.fail("history's tiles %r do not replay: %s %s" % (h["tiles"], e.code, e.message))
        self.assertEqual(harness.history_events(self.c.history(u.game)), harness.history_events(h))

    def test_a_hill_drawn_last_hides_nothing(self):
        t = self.table(["ann"], expansions=["base", "hills-sheep"], tiles=["BA/C", "HS/RR.h"], seed=1)
        t.play(t.legal()["moves"][0])
        if t.legal()["phase"] == "action":
            t.play(PASS)
        lm = t.legal()
        evs = t.events(next(m for m in lm["moves"] if m["type"] == "place_tile"))
        self.assertFalse(of_type(evs, "tile_hidden"))
        self.assertEqual(t.state()["tiles_left"], 0)


class NeverDrawn:
    """RULES.md 2.9: each seat holds its own abbey; a `tiles` list that
    names it is invalid_params, naming the entry.  A spring may be listed
    (proto/PROTOCOL.md: a river tile with one river edge)."""

    def test_the_abbey_is_no_supply_tile(self):
        try:
            self.c.new_game(["ann", "bob"], expansions=["base", "abbey-mayor"], tiles=["BA/C", "AM/A"])
            self.fail("AM/A accepted in tiles")
        except carcd.Error as e:
            self.assertEqual(e.code, "invalid_params")
            self.assertIn("tiles[1]", e.message)
            self.assertIn("never drawn", e.message)
        g = self.c.new_game(["ann", "bob"], expansions=["base", "river"], tiles=["RI.1/IFI", "RI/s"])
        self.assertEqual((g["state"]["tile"]["id"], g["state"]["tiles_left"]), ("RI.1/IFI", 1))


class DuplicateKeys(unittest.TestCase):
    """proto/PROTOCOL.md section 3: a key given twice in one map: the last
    counts, in both encodings, in parameters, moves, `rules` and
    `components` alike."""

    REQUESTS = [  # (params as (key, value) pairs, what the last value gives)
        ([("players", ["ann"]), ("players", ["ann", "bob"])], ("seats", 2)),
        ([("players", ["ann"]), ("rules", [("tiny_city", "2-per-tile-1"), ("tiny_city", "normal")])],
         ("rule", "normal")),
        ([("players", ["ann"]), ("expansions", ["base", "inns-cathedrals"]),
          ("components", [("large", True), ("large", False)])], ("large", False)),
    ]

    @staticmethod
    def as_json(pairs):
        return "{%s}" % ",".join('"%s":%s' % (k, DuplicateKeys.as_json(v) if isinstance(v, list) and v
                                                and isinstance(v[0], tuple) else json.dumps(v)) for k, v in pairs)

    @staticmethod
    def as_msgpack(pairs):
        p = msgpack.packb
        out = bytes([0x80 | len(pairs)])
        for k, v in pairs:
            out += p(k) + (DuplicateKeys.as_msgpack(v) if isinstance(v, list) and v and isinstance(v[0], tuple)
                           else p(v))
        return out

    def check(self, reply, want):
        self.assertIsNone(reply[2], reply)
        what, value = want
        if what == "seats":
            self.assertEqual(len(reply[3]["seats"]), value)
        else:
            with daemon["d"].client("unix") as c:
                setup = c.history(reply[3]["game"])["setup"]
            if what == "rule":
                self.assertEqual(setup["rules"]["tiny_city"], value)
            else:  # listed when it differs from the expansions' own
                self.assertEqual(setup["components"].get("large"), value)

    def test_json(self):
        with daemon["d"].raw("tcp") as raw:
            for i, (pairs, want) in enumerate(self.REQUESTS):
                raw.send_line('[0,%d,"new_game",%s]' % (i, self.as_json(pairs)))
                self.check(raw.read_one("json"), want)

    def test_msgpack(self):
        p = msgpack.packb
        with daemon["d"].raw("unix") as raw:
            for i, (pairs, want) in enumerate(self.REQUESTS):
                raw.send(b"\x94\x00" + p(i) + p("new_game") + self.as_msgpack(pairs))
                self.check(raw.read_one("msgpack"), want)


# ---- MessagePack details --------------------------------------------------------------------

def packed_request(msgid, params_body):
    p = msgpack.packb
    return b"\x94\x00" + p(msgid) + p("apply_move") + params_body


class RawMessagePack(unittest.TestCase):
    """Section 2 of proto/PROTOCOL.md for expansion moves, in bytes no
    stock client sends: float32 coordinates are integers when integral;
    NaN and infinities are no integers; `bin` is a string; an extension
    type is bad_request, answering the msgid when it is readable, and the
    connection goes on."""

    def setUp(self):
        self.c = daemon["d"].client("unix")

    def tearDown(self):
        self.c.close()

    def table(self, players, **options):
        from crafted import Table
        return Table(self, self.c, players, **options)

    def send(self, raw, t, move_body, msgid):
        p = msgpack.packb
        body = b"\x83" + p("game") + p(t.game) + p("token") + p(t.tokens[t.legal()["seat"]]) + p("move") + move_body
        raw.send(packed_request(msgid, body))
        return raw.read_one("msgpack")

    def test_wagon_move_bytes(self):
        t, good, _ = wagon_decision(self)
        p = msgpack.packb
        before = snapshot(t)

        def move(x=p(-1), y=p(0), at=p("W")):
            return b"\x84" + p("type") + p("move_wagon") + p("x") + x + p("y") + y + p("at") + at

        with daemon["d"].raw("unix") as raw:
            for i, x in enumerate((float("nan"), float("inf"), float("-inf"), -1.5)):
                r = self.send(raw, t, move(x=b"\xcb" + struct.pack(">d", x)), 10 + i)
                self.assertEqual(r[:2], [1, 10 + i])
                self.assertEqual(r[2]["code"], "invalid_params", (x, r))
            r = self.send(raw, t, move(x=b"\xca" + struct.pack(">f", math.nan)), 20)
            self.assertEqual(r[2]["code"], "invalid_params", r)
            r = self.send(raw, t, move(at=b"\xd4\x01\x00"), 21)
            self.assertEqual((r[0], r[1], r[2]["code"]), (1, 21, "bad_request"), r)  # the msgid was readable
            raw.send(b"\x94\x00\xa1x" + msgpack.packb("ping") + b"\xd4\x01\x00")  # a msgid that is no integer
            r = raw.read_one("msgpack")
            self.assertEqual((r[0], r[1], r[2]["code"]), (1, None, "bad_request"), r)
            self.assertEqual(snapshot(t), before)
            # the connection goes on: float32 -1.0 and `at` as bin are the listed move
            r = self.send(raw, t, move(x=b"\xca" + struct.pack(">f", -1.0), at=b"\xc4\x01W"), 22)
            self.assertEqual(r[:3], [1, 22, None], r)
            self.assertEqual(r[3]["events"][0]["figure"], "2.wagon.1")

    def test_flock_and_escape_strings_as_bin(self):
        p = msgpack.packb
        t, _, _ = flock_decision(self)
        with daemon["d"].raw("unix") as raw:
            r = self.send(raw, t, b"\x82" + p("type") + b"\xc4\x05flock" + p("choice") + b"\xc4\x06gather", 1)
            self.assertIsNone(r[2], r)
            self.assertIn("flock", [e.get("feature") for e in r[3]["events"]])
        t, _, _ = escape_decision(self)
        with daemon["d"].raw("unix") as raw:
            r = self.send(raw, t, b"\x82" + p("type") + p("escape") + p("figure") + b"\xc4\x0c0.follower.1", 2)
            self.assertIsNone(r[2], r)
            self.assertEqual(r[3]["events"][0], {"type": "returned", "seat": 0, "figure": "0.follower.1",
                                                 "why": "escape"})


# ---- mutations of listed moves in whole games -------------------------------------------------

STRING_FIELDS = {"tile", "at", "kind", "choice", "figure"}
INT_FIELDS = {"x", "y", "rot"}
PORTS = harness.PORTS
KINDS = ["follower", "large", "wagon", "mayor", "builder", "pig", "barn", "shepherd"]
NOT_OPEN = [DRAW, PASS, abbey(0, 0), wagon(0, 0, "N"), flock("expand"), flock("gather"), escape("0.follower.1"),
            deploy(0, 0, "N"), place("BA/C", 0, 0, 0)]


def mutations(m, rng):
    """(move, code): code is what it must get, "?" when the rules decide
    (illegal_move, or accepted when it names a listed move another way)."""
    out = []
    for k in m:
        if k == "type":
            continue
        out.append(({f: v for f, v in m.items() if f != k}, "invalid_params"))
        for bad in (None, [m[k]], {"v": m[k]}, True):
            out.append((dict(m, **{k: bad}), "invalid_params"))
        if k in INT_FIELDS:
            out += [(dict(m, **{k: str(m[k])}), "invalid_params"), (dict(m, **{k: m[k] + 0.5}), "invalid_params")]
            if k == "rot":
                out += [(dict(m, rot=45), "invalid_params"), (dict(m, rot=360), "invalid_params"),
                        (dict(m, rot=(m["rot"] + 90) % 360), "?")]
            else:
                out += [(dict(m, **{k: 32768}), "invalid_params"), (dict(m, **{k: -32769}), "invalid_params"),
                        (dict(m, **{k: m[k] + rng.choice((-1, 1))}), "?")]
        if k in STRING_FIELDS:
            out += [(dict(m, **{k: 1}), "invalid_params"), (dict(m, **{k: ""}), "invalid_params"),
                    (dict(m, **{k: m[k] + "\0"}), "invalid_params")]
            if m[k].upper() != m[k]:
                out.append((dict(m, **{k: m[k].upper()}), "invalid_params"))
        if k == "at":
            out.append((dict(m, at=rng.choice(PORTS)), "?"))
        if k == "kind":
            out.append((dict(m, kind=rng.choice(KINDS)), "?"))
        if k == "figure":
            seat, kind, n = m["figure"].split(".")
            out += [(dict(m, figure="%s.%s.0%s" % (seat, kind, n)), "invalid_params"),
                    (dict(m, figure="%s.%s.%d" % (seat, kind, int(n) + 1)), "?")]
    return out


class Mutations(unittest.TestCase):
    """Whole games with every expansion: before most moves, mutations of
    the listed moves are sent with the due token and seq."""

    GAMES = [("unix", "msgpack", 2, 11), ("tcp", "json", 3, 12)]
    PER_DECISION = 3

    def test_mutated_moves(self):
        for transport, encoding, nseats, seed in self.GAMES:
            with self.subTest(encoding=encoding, seed=seed), daemon["d"].client(transport, encoding) as c:
                self.play(c, nseats, seed)

    def play(self, c, nseats, seed):
        rng = random.Random(seed)
        g = c.new_game(["p%d" % i for i in range(nseats)], expansions=ALL_EXPANSIONS, seed=seed,
                       rules={"abbey_final_round": True})
        game, tokens, bot = g["game"], [s["token"] for s in g["seats"]], Bot(seed)
        phases, refused = set(), 0
        for _ in range(3000):
            lm = c.legal_moves(game)
            if lm["phase"] == "over":
                break
            phases.add(lm["phase"])
            listed = lm["moves"]
            tries = [mm for m in rng.sample(listed, min(2, len(listed))) for mm in mutations(m, rng)]
            tries += [(m, "?") for m in NOT_OPEN]
            before = c.state(game)
            moved = None
            for move, want in rng.sample(tries, min(self.PER_DECISION, len(tries))):
                if move in listed:
                    continue
                try:
                    moved = (move, c.apply_move(game, move, token=tokens[lm["seat"]], seq=lm["seq"]))
                    break
                except carcd.Error as e:
                    refused += 1
                    self.assertIn(e.code, ("invalid_params", "illegal_move"), (lm["phase"], move, e.message))
                    if want != "?":
                        self.assertEqual(e.code, want, (lm["phase"], move, e.message))
            if moved:
                # accepted: the listed move, its feature named by another port
                move, res = moved
                self.assertIn(move["type"], ("deploy", "move_wagon"), move)
                ev = res["events"][0]
                same = {k: ev[k] for k in ("x", "y", "at")}
                same["type"] = move["type"]
                if move["type"] == "deploy":
                    same["kind"] = ev["kind"]
                self.assertIn(same, listed, (move, ev))
                if move["type"] == "deploy":   # a move_wagon may also name its feature through another tile
                    self.assertIn(move["at"], ev["ports"], (move, ev))
                    self.assertEqual({k: move[k] for k in same if k != "at"}, {k: same[k] for k in same if k != "at"})
                continue
            self.assertEqual(c.state(game), before)
            self.assertEqual(c.legal_moves(game), lm)
            c.apply_move(game, bot.choose(lm), token=tokens[lm["seat"]], seq=lm["seq"])
        self.assertEqual(c.legal_moves(game)["phase"], "over")
        self.assertGreater(refused, 100)
        self.assertTrue({"tile", "action"} <= phases, phases)


GROUPS = (CheckOrder, Events, HillStart, NeverDrawn)
register_over_both(globals(), GROUPS, OverBoth)


if __name__ == "__main__":
    unittest.main()
