"""Audit, round 5: the wire contract of components, start tiles and the
expansions' phases (shared/design/PROTOCOL.md, "the contract", sections
2, 4.1, 5; proto/PROTOCOL.md, "the doc", section 4 new_game, Moves,
Tokens and turns, history), against a real daemon:

- hello: exactly the lists the doc names (expansions with their tile sets,
  the 16 components, rule options with type, values/min/max, default,
  implemented, the 13 methods and carcd's own `tiles`, the limits);
- new_game `components`: every key hello lists, on and off; values that are
  no boolean; unknown keys; components of expansions not built; the
  state's `supply` shows exactly the figures switched on; history's setup;
  tokens (king) that a component brings to a base game; a key given twice;
- new_game `start`: unknown tile, tile of a set not in play, bad rot, two
  tiles at one place, coordinates out of range, too many / no tiles, bad
  entry shapes, edges that do not match, a board over 320 tiles: each
  invalid_params with a message naming `start`, and no game made;
- the expansions' moves (`draw`, `place_abbey`, `move_wagon`, `flock`,
  `escape`, `pass` in `abbey_final`) in the wrong phase (illegal_move), by
  the wrong seat (not_your_turn), with a stale seq (conflict), with fields
  of the wrong type (invalid_params): each leaves state, legal_moves and
  history as they were;
- a full random game with every set played, then replayed from history
  with the same seed and setup (with and without `tiles`), and over the
  other encoding: the same events move by move, the same scores.

Every group runs over MessagePack on the Unix socket and JSON lines on TCP."""

import json
import unittest

import harness
from harness import carcd, code_of
from test_expansions import Bot
from crafted import (ABBEY_MOVES, ABBEY_TILES, DRAW, ESCAPE_MOVES, ESCAPE_TILES, FINAL_MOVES, FINAL_TILES,
                     FLOCK_MOVES, FLOCK_START, PASS, WAGONS_MOVES, WAGONS_TILES, abbey, deploy, escape, flock,
                     of_type, over_both, place, register_over_both, wagon)

daemon, setUpModule, tearDownModule = harness.module_daemon()
OverBoth = over_both(daemon)

AM = ["base", "abbey-mayor"]
# proto/PROTOCOL.md, new_game `components`: the keys, in this order
COMPONENTS = ["large", "wagon", "mayor", "builder", "pig", "barn", "shepherd", "abbey", "tower", "king", "robber",
              "goods", "fairy", "dragon", "count", "catapult"]
# figure kinds (contract section 3) a component puts in `supply`; the abbey
# is in `supply` too (doc, "The state"); king, robber and goods are tokens
FIGURES = {"large", "wagon", "mayor", "builder", "pig", "barn", "shepherd"}
# contract 4.1 `expansions`: names and tile sets
EXPANSIONS = {"base": "basic:1", "river": "river/1:1", "river2": "river/2:1", "mini": "gq11",
              "inns-cathedrals": "inns-and-cathedrals:1", "traders-builders": "traders-and-builders:1",
              "princess-dragon": "princess-and-dragon:1", "tower": "tower:1", "abbey-mayor": "abbey-and-mayor:1",
              "count": "count", "king-robber": "king-and-robber:1", "cathars": "siege/cathars", "cult": "cult/6",
              "catapult": None, "hills-sheep": "hills-and-sheep:1"}
# doc: "Today the engine plays the base game and these expansions"
PLAYED = ["base", "river", "river2", "mini", "inns-cathedrals", "traders-builders", "abbey-mayor", "king-robber",
          "cathars", "cult", "hills-sheep"]
NOT_BUILT_COMPONENTS = {"tower", "fairy", "dragon", "count", "catapult"}   # their expansions are not played


def games_made(c):
    """What a refused new_game must leave as it was."""
    s = c.stats()
    return s["games_total"], s["games"]


# ---- hello ------------------------------------------------------------------------------------

class Hello:
    def test_hello_lists_what_the_doc_says(self):
        h = self.c.hello("wi")
        self.assertEqual(sorted(h), sorted(["server", "version", "protocol", "expansions", "components", "rules",
                                            "methods", "limits", "extras"]))
        self.assertEqual((h["server"], h["protocol"]), ("carcd", 1))
        self.assertIsInstance(h["version"], str)
        # expansions: {name, tileset, available}, the contract's names and sets
        self.assertEqual([e["name"] for e in h["expansions"]], list(EXPANSIONS))
        for e in h["expansions"]:
            self.assertEqual(sorted(e), ["available", "name", "tileset"], e)
            if EXPANSIONS[e["name"]] is not None:
                self.assertEqual(e["tileset"], EXPANSIONS[e["name"]], e)
            self.assertIs(e["available"], e["name"] in PLAYED, e)
        # components: {name, available}, the doc's 16 in the doc's order
        self.assertEqual([e["name"] for e in h["components"]], COMPONENTS)
        for e in h["components"]:
            self.assertEqual(sorted(e), ["available", "name"], e)
            self.assertIs(e["available"], e["name"] not in NOT_BUILT_COMPONENTS, e)
        # rules: {key, type, values (enum, boolean) | min, max (integer), default, implemented}
        for r in h["rules"]:
            with self.subTest(rule=r["key"]):
                self.assertIn(r["type"], ("enum", "boolean", "integer"))
                self.assertIs(type(r["implemented"]), bool)
                if r["type"] == "integer":
                    self.assertEqual(sorted(r), ["default", "implemented", "key", "max", "min", "type"])
                    self.assertTrue(0 <= r["min"] <= r["default"] <= r["max"] <= 1000, r)
                else:
                    self.assertEqual(sorted(r), ["default", "implemented", "key", "type", "values"])
                    self.assertIn(r["default"], r["values"])
                    if r["type"] == "boolean":
                        self.assertEqual(sorted(r["values"]), [False, True])
                        self.assertIs(type(r["default"]), bool)
                    else:
                        self.assertTrue(all(isinstance(v, str) for v in r["values"]), r)
        self.assertEqual(h["methods"], list(harness.METHODS))
        self.assertEqual(sorted(h["limits"]), ["game_timeout", "idle_timeout", "max_depth", "max_games", "max_line", "max_request"])
        # the parameters beyond the contract (test_decision, test_features)
        self.assertEqual(h["extras"], ["legal_moves.features", "legal_moves.move", "subscribe.decision",
                                            "subscribe.features", "subscribe.moves", "subscribe.state"])
        # each listed method answers (none is unknown_method)
        for m in h["methods"]:
            self.assertNotEqual(code_of(self.c.call, m, {}), "unknown_method", m)


# ---- new_game components -----------------------------------------------------------------------

class Components:
    def refused(self, expect_in_message=None, **kw):
        before = games_made(self.c)
        with self.assertRaises(carcd.Error, msg="accepted: %r" % (kw,)) as cm:
            self.c.new_game(["ann", "bob"], **kw)
        self.assertEqual(cm.exception.code, "invalid_params", "%r: %s" % (kw, cm.exception))
        if expect_in_message:
            self.assertIn(expect_in_message, cm.exception.message)
        self.assertEqual(games_made(self.c), before, "a refused new_game made a game: %r" % (kw,))
        return cm.exception.message

    def supplies(self, g):
        return [s["supply"] for s in g["state"]["seats"]]

    def test_each_component_on_and_off_in_a_base_game(self):
        for name in COMPONENTS:
            with self.subTest(component=name, value=True):
                if name in NOT_BUILT_COMPONENTS:
                    msg = self.refused(components={name: True})
                    self.assertIn("not available", msg)
                    self.assertIn(name, msg)
                    continue
                g = self.c.new_game(["ann", "bob"], components={name: True})
                want = {"follower": 7}
                if name in FIGURES:
                    want[name] = 1
                if name == "abbey":
                    want["abbey"] = 1
                self.assertEqual(self.supplies(g), [want, want])
                self.assertEqual([s["tokens"] for s in g["state"]["seats"]], [{}, {}])
                self.assertEqual(self.c.history(g["game"])["setup"]["components"], {name: True})
            with self.subTest(component=name, value=False):
                # switching off is no request for it, also when not built
                g = self.c.new_game(["ann", "bob"], components={name: False})
                self.assertEqual(self.supplies(g), [{"follower": 7}, {"follower": 7}])

    def test_everything_on_and_everything_off_with_every_set(self):
        on = [c for c in COMPONENTS if c not in NOT_BUILT_COMPONENTS]
        g = self.c.new_game(["ann", "bob"], expansions=PLAYED)
        full = {"follower": 7, "large": 1, "wagon": 1, "mayor": 1, "builder": 1, "pig": 1, "barn": 1,
                "shepherd": 1, "abbey": 1}
        self.assertEqual(self.supplies(g), [full, full])
        self.assertEqual(self.c.history(g["game"])["setup"]["components"], {})
        g = self.c.new_game(["ann", "bob"], expansions=PLAYED, components={c: False for c in COMPONENTS})
        self.assertEqual(self.supplies(g), [{"follower": 7}] * 2)
        self.assertEqual(self.c.history(g["game"])["setup"]["components"], {c: False for c in on})
        g = self.c.new_game(["ann", "bob"], components={c: True for c in on})
        self.assertEqual(self.supplies(g), [full, full])

    def test_one_off_in_its_expansion_leaves_the_others(self):
        for exp, off, rest in (("abbey-mayor", "abbey", {"wagon", "mayor", "barn"}),
                               ("abbey-mayor", "wagon", {"mayor", "barn", "abbey"}),
                               ("traders-builders", "pig", {"builder"}),
                               ("inns-cathedrals", "large", set()),
                               ("hills-sheep", "shepherd", set())):
            with self.subTest(expansion=exp, off=off):
                g = self.c.new_game(["ann", "bob"], expansions=["base", exp], components={off: False})
                want = dict({"follower": 7}, **{k: 1 for k in rest})
                self.assertEqual(self.supplies(g), [want, want])
                self.assertEqual(self.c.history(g["game"])["setup"]["components"], {off: False})

    def test_abbey_off_is_never_offered(self):
        # crafted am-02: (0,-1) is a hole when seat 0's turn begins
        for comps, offered in (({}, True), ({"abbey": False}, False)):
            with self.subTest(components=comps):
                t = self.table(["ann", "bob"], expansions=AM, tiles=ABBEY_TILES, seed=5, components=comps)
                t.play(*ABBEY_MOVES)
                lm = t.legal()
                self.assertEqual(abbey(0, -1) in lm["moves"], offered, lm)
                self.assertEqual(DRAW in lm["moves"], offered, lm)
                if not offered:
                    self.assertEqual(lm["phase"], "tile")
                    self.assertTrue(all(m["type"] == "place_tile" for m in lm["moves"]), lm)
                    t.refuse(abbey(0, -1), "illegal_move")

    def test_king_brought_to_a_base_game(self):
        # seat 0 closes the start city with BA/C: the king arrives only with
        # the king component (RULES.md 2.7: the first city completed)
        for comps, tokens in (({"king": True}, [{"king": True}, {}]), ({}, [{}, {}]),
                              ({"robber": True}, [{}, {}])):
            with self.subTest(components=comps):
                t = self.table(["ann", "bob"], components=comps, tiles=["BA/C", "BA/RRR", "BA/RRR"], seed=5)
                evs = t.events(place("BA/C", 0, -1, 180), PASS)
                self.assertEqual(of_type(evs, "token_taken"),
                                 [{"type": "token_taken", "seat": 0, "token": "king"}] if tokens[0] else [])
                self.assertEqual([s["tokens"] for s in t.state()["seats"]], tokens)

    def test_a_component_brings_its_figure_and_nothing_else(self):
        """doc, new_game `components`: "A component brings its figure or token
        and nothing else: ... inns and cathedrals with `inns-cathedrals`".
        River II's inn road (RI.2/RIrI) of three tiles scores 3 without
        inns-cathedrals, large follower or not, and 6 with it (RULES.md 2.4),
        the large follower switched off or not."""
        for exps, comps, points, large in ((["base", "river2"], {}, 3, False),
                                           (["base", "river2"], {"large": True}, 3, True),
                                           (["base", "river2", "inns-cathedrals"], {}, 6, True),
                                           (["base", "river2", "inns-cathedrals"], {"large": False}, 6, False)):
            with self.subTest(expansions=exps, components=comps):
                t = self.table(["ann", "bob"], expansions=exps, components=comps, tiles=["BA/LR", "BA/LR"], seed=1,
                               start=[{"tile": "RI.2/RIrI", "x": 0, "y": 0, "rot": 0}])
                t.play(place("BA/LR", 1, 0, 90))
                self.assertEqual(deploy(1, 0, "W", "large") in t.legal()["moves"], large)
                evs = t.events(deploy(1, 0, "W"), place("BA/LR", -1, 0, 270), PASS)
                self.assertEqual(of_type(evs, "scored"),
                                 [{"type": "scored", "seat": 0, "points": points, "feature": "road", "x": 0, "y": 0,
                                   "at": "E", "ports": ["E", "W"], "final": False}])

    def test_values_that_are_no_boolean(self):
        for v in (1, 0, 1.0, "true", "false", "", [], {}, [True], None):
            with self.subTest(value=v):
                msg = self.refused(components={"large": v})
                self.assertIn("large", msg)

    def test_unknown_keys(self):
        for key in ("unicorn", "Large", "follower", "", "large ", "abbey-mayor", "inns-cathedrals"):
            for v in (True, False):
                with self.subTest(key=key, value=v):
                    msg = self.refused(components={key: v})
                    if key:
                        self.assertIn(key.strip(), msg)

    def test_not_a_map(self):
        for v in ([], ["large"], "large", True, 1, [{"large": True}]):
            with self.subTest(components=v):
                self.refused(components=v)

    def test_a_key_given_twice_the_last_counts(self):
        # doc section 2: "A key given twice in one map: the last counts, in
        # both encodings"
        for first, last in ((True, False), (False, True)):
            with self.subTest(first=first, last=last), daemon["d"].raw(self.TRANSPORT) as r:
                if self.ENCODING == "json":
                    r.send_line('[0, 1, "new_game", {"players": ["ann"], "components": {"large": %s, "large": %s}}]'
                                % (json.dumps(first), json.dumps(last)))
                    resp = r.read_one("json")
                else:
                    comp = b"\x82" + harness.packb("large") + harness.packb(first) + harness.packb("large") + \
                        harness.packb(last)
                    params = b"\x82" + harness.packb("players") + harness.packb(["ann"]) + \
                        harness.packb("components") + comp
                    r.send(b"\x94\x00\x01" + harness.packb("new_game") + params)
                    resp = r.read_one("msgpack")
                self.assertIsNotNone(resp)
                self.assertIsNone(resp[2], resp)
                supply = resp[3]["state"]["seats"][0]["supply"]
                self.assertEqual("large" in supply, last, supply)


# ---- new_game start ----------------------------------------------------------------------------

def st(tile="BA/RCr", x=0, y=0, rot=0):
    return {"tile": tile, "x": x, "y": y, "rot": rot}


class StartTiles:
    def refused(self, start, **kw):
        before = games_made(self.c)
        with self.assertRaises(carcd.Error, msg="accepted: start=%r" % (start,)) as cm:
            self.c.new_game(["ann", "bob"], start=start, **kw)
        self.assertEqual(cm.exception.code, "invalid_params", "%r: %s" % (start, cm.exception))
        self.assertIn("start", cm.exception.message)   # a clear message names the parameter
        self.assertEqual(games_made(self.c), before, "a refused new_game made a game: %r" % (start,))
        return cm.exception.message

    def test_each_bad_start(self):
        sixteen = [st(x=i) for i in range(16)]
        cases = {
            "unknown tile id": [st("BA/XYZ")],
            "tile id in the wrong case": [st("ba/rcr")],
            "tile id not a string": [st(7)],
            "a set not in expansions": [st("IC/Cccc.c")],
            "the spring without a river": [st("RI/s")],
            "the abbey without abbey-mayor": [st("AM/A")],
            "rot 45": [st(rot=45)], "rot 360": [st(rot=360)], "rot -90": [st(rot=-90)],
            "rot 90.5": [st(rot=90.5)], "rot as a string": [st(rot="90")], "rot nil": [st(rot=None)],
            "rot missing": [{"tile": "BA/RCr", "x": 0, "y": 0}],
            "tile missing": [{"x": 0, "y": 0, "rot": 0}],
            "x missing": [{"tile": "BA/RCr", "y": 0, "rot": 0}],
            "two at one place": [st(), st("BA/C", 0, 0, 0)],
            "two at one place, once as floats": [st(), st(x=0.0, y=-0.0)],
            "the same entry twice": [st(), st()],
            "x 1001": [st(x=1001)], "y -1001": [st(y=-1001)], "x 2^31": [st(x=2 ** 31)],
            # (the msgpack client cannot write 2^64: a uint64 past int64 there)
            "x past 64 bits": [st(x=2 ** 64 if self.ENCODING == "json" else 2 ** 63)], "x a boolean": [st(x=True)], "x a string": [st(x="0")],
            "x 0.5": [st(x=0.5)],
            "seventeen": sixteen + [st(x=100)],
            "none": [],
            "not an array": st(),
            "an entry that is no map": ["BA/RCr"],
            "edges that do not match": [st(), st("BA/C", 0, 1, 0)],
        }
        for name, start in cases.items():
            with self.subTest(case=name):
                self.refused(start)
        # the board limit: 16 start tiles and 304 others fill 320, one more does not
        with self.subTest(case="board over 320"):
            spread = [st(x=3 * i) for i in range(16)]
            self.assertEqual(self.c.new_game(["ann"], start=spread, tiles=["BA/C"] * 304)["state"]["tiles_left"],
                             303)
            before = games_made(self.c)
            self.assertEqual(code_of(self.c.new_game, ["ann"], start=spread, tiles=["BA/C"] * 305),
                             "invalid_params")
            # with the abbey, one a seat counts too
            self.assertEqual(code_of(self.c.new_game, ["a", "b", "c"], start=spread, tiles=["BA/C"] * 302,
                                     components={"abbey": True}), "invalid_params")
            self.assertEqual(games_made(self.c), before)

    def test_good_starts_are_placed_as_given(self):
        for name, start, exps in (
                ("edge of range", [st(x=1000, y=-1000), st(x=-1000, y=1000, rot=270)], ["base"]),
                ("integral floats", [st(x=2.0, y=-3.0, rot=90.0)], ["base"]),
                ("sixteen", [st(x=i) for i in range(16)], ["base"]),
                ("another tile", [st("BA/C", 0, 0, 90)], ["base"]),
                ("the spring", [st("RI/s", 0, 0, 90)], ["base", "river"]),
                ("the abbey", [st("AM/A")], AM),
                ("a set without a standard start", [st("CU/S")], ["cult"])):
            with self.subTest(case=name):
                g = self.c.new_game(["ann", "bob"], expansions=exps, start=start, seed=3)
                board = g["state"]["board"]
                self.assertEqual([(b["tile"], b["x"], b["y"], b["rot"]) for b in board],
                                 [(s["tile"], int(s["x"]), int(s["y"]), int(s["rot"])) for s in start])
                for b in board:
                    self.assertIs(type(b["x"]), int)
                    self.assertIs(type(b["rot"]), int)
                h = self.c.history(g["game"])
                placed = [e for e in h["events"] if e["type"] == "tile_placed"]
                self.assertEqual([(e["seat"], e["tile"], e["x"], e["y"], e["rot"], e["seq"]) for e in placed],
                                 [(None, s["tile"], int(s["x"]), int(s["y"]), int(s["rot"]), 0) for s in start])
                self.assertEqual(h["setup"]["start"],
                                 [{"tile": s["tile"], "x": int(s["x"]), "y": int(s["y"]), "rot": int(s["rot"])}
                                  for s in start])

    def test_a_set_without_a_standard_start(self):
        before = games_made(self.c)
        for exps in (["cult"], ["abbey-mayor", "hills-sheep"], ["inns-cathedrals"]):
            with self.subTest(expansions=exps):
                e = code_of(self.c.new_game, ["ann"], expansions=exps)
                self.assertEqual(e, "invalid_params")
        self.assertEqual(games_made(self.c), before)


# ---- the expansions' moves in every phase --------------------------------------------------------

def snapshot(t):
    return t.state(), t.legal(), t.c.history(t.game)


def abbey_choice(test):
    t = test.table(["ann", "bob"], expansions=AM, tiles=ABBEY_TILES, seed=5)
    t.play(*ABBEY_MOVES)
    return t


def wagon_decision(test):
    t = test.table(["ann", "bob", "cy"], expansions=AM, tiles=WAGONS_TILES, seed=5)
    t.play(*WAGONS_MOVES)
    return t


def flock_decision(test):
    t = test.table(["ann", "bob"], expansions=["base", "hills-sheep"], start=FLOCK_START, bag=[3, 2, 4],
                   tiles=["BA/RFr"] * 5, seed=5)
    t.play(*FLOCK_MOVES)
    return t


def escape_decision(test):
    t = test.table(["ann", "bob"], expansions=["base", "cathars"], tiles=ESCAPE_TILES, seed=5)
    t.play(*ESCAPE_MOVES)
    return t


def final_round(test):
    t = test.table(["ann", "bob"], expansions=AM, tiles=FINAL_TILES, seed=5, rules={"abbey_final_round": True})
    t.play(*FINAL_MOVES)
    return t


def am_action(test):
    t = test.table(["ann", "bob"], expansions=AM, tiles=ABBEY_TILES, seed=5)
    t.play(ABBEY_MOVES[0])
    return t


def am_tile(test):
    return test.table(["ann", "bob"], expansions=AM, tiles=ABBEY_TILES, seed=5)


def base_only(test):
    return test.table(["ann", "bob"], tiles=ABBEY_TILES, seed=5)


def base_with_a_hole(test):
    # the moves of am-02 in a base game: (0,-1) is a hole, but there is no abbey
    t = test.table(["ann", "bob"], tiles=ABBEY_TILES, seed=5)
    t.play(*ABBEY_MOVES)
    return t


def everything_tile(test):
    # every set, no hole yet: a plain tile decision
    return test.table(["ann", "bob"], expansions=PLAYED, seed=5)


# (name, maker, phase, seat, the move types listed)
POSITIONS = [("abbey choice", abbey_choice, "tile", 0, {"place_abbey", "draw"}),
             ("wagon", wagon_decision, "wagon", 2, {"move_wagon", "pass"}),
             ("flock", flock_decision, "flock", 0, {"flock"}),
             ("escape", escape_decision, "escape", 0, {"escape", "pass"}),
             ("abbey_final", final_round, "abbey_final", 0, {"place_abbey", "pass"}),
             ("abbey-mayor action", am_action, "action", 0, {"deploy", "pass"}),
             ("abbey-mayor tile, no hole", am_tile, "tile", 0, {"place_tile"}),
             ("base game tile", base_only, "tile", 0, {"place_tile"}),
             ("base game with a hole", base_with_a_hole, "tile", 0, {"place_tile"}),
             ("every set, tile", everything_tile, "tile", 0, {"place_tile"})]

# one well-formed move of each type; the figure and places exist in the
# crafted positions, so only the phase can refuse them
EXPANSION_MOVES = [DRAW, abbey(0, -1), wagon(-1, 0, "W"), flock("expand"), flock("gather"), escape("0.follower.1"),
                   PASS]

# wrong field types: each invalid_params whatever the phase
MALFORMED = [
    {"type": "place_abbey", "x": "0", "y": -1}, {"type": "place_abbey", "x": 0.5, "y": -1},
    {"type": "place_abbey", "x": True, "y": -1}, {"type": "place_abbey", "x": [0], "y": -1},
    {"type": "place_abbey", "x": 0}, {"type": "place_abbey", "x": 0, "y": None},
    {"type": "place_abbey", "x": 0, "y": 2 ** 64},
    {"type": "move_wagon", "x": -1, "y": 0, "at": "XX"}, {"type": "move_wagon", "x": -1, "y": 0, "at": 5},
    {"type": "move_wagon", "x": -1, "y": 0}, {"type": "move_wagon", "x": "-1", "y": 0, "at": "W"},
    {"type": "move_wagon", "x": -1, "y": 0, "at": "w"},
    {"type": "flock", "choice": "fly"}, {"type": "flock", "choice": 1}, {"type": "flock"},
    {"type": "flock", "choice": "Expand"}, {"type": "flock", "choice": ["expand"]},
    {"type": "escape", "figure": 7}, {"type": "escape"}, {"type": "escape", "figure": None},
    {"type": "escape", "figure": "0.follower.01"}, {"type": "escape", "figure": "nonsense"},
    {"type": "Draw"}, {"type": "draw "}, {"type": "PASS"}, {"type": 5}, {},
]


class PhaseMoves:
    def make(self, name, maker, phase, seat, types):
        t = maker(self)
        lm = t.legal()
        self.assertEqual((lm["phase"], lm["seat"]), (phase, seat), name)
        self.assertEqual({m["type"] for m in lm["moves"]}, types, name)
        # doc, The state: `tile` is the tile drawn in the turn going on (the
        # contract's example shows it in the action phase): to place in a
        # plain tile decision; the turn's tile placed already in the
        # decisions after it, drawn by the seat whose turn it is; none
        # before the draw (the abbey choice), in the final round, nor after
        # the abbey (never drawn)
        st = t.state()
        self.assertEqual((st["phase"], st["seat"], st["seq"]), (phase, seat, lm["seq"]))
        events = t.c.history(t.game)["events"]
        turn = [e for e in events if e["type"] == "turn"][-1]
        since = events[events.index(turn):]
        drawn = [e["tile"] for e in since if e["type"] == "tile_drawn"]
        placed = [e["tile"] for e in since if e["type"] == "tile_placed"]
        if types == {"place_tile"}:
            want = {"id": drawn[-1], "drawn_by": seat}
        elif phase in ("tile", "abbey_final") or placed[-1:] == ["AM/A"]:
            want = None
        else:
            want = {"id": placed[-1], "drawn_by": turn["seat"]}
        self.assertEqual(st["tile"], want, name)
        return t, lm

    def refuse_in_every_position(self, moves, code, skip_open=False):
        """Each move, in each position (but those of a type open there, with
        skip_open), is refused with `code` and changes nothing."""
        for name, maker, phase, seat, types in POSITIONS:
            t, lm = self.make(name, maker, phase, seat, types)
            before = snapshot(t)
            for move in moves:
                if skip_open and move["type"] in types:
                    continue
                with self.subTest(position=name, move=move):
                    t.refuse(move, code)
            self.assertEqual(snapshot(t), before)

    def test_moves_of_a_phase_not_open(self):
        """doc, Moves: "a move type of a built expansion that is not open now"
        is illegal_move; a refused move changes nothing."""
        self.refuse_in_every_position(EXPANSION_MOVES, "illegal_move", skip_open=True)

    def test_wrong_field_types(self):
        self.refuse_in_every_position(MALFORMED, "invalid_params")

    def test_wrong_seat_and_stale_seq(self):
        """doc, Tokens and turns: token before seq before form before rules."""
        for name, maker, phase, seat, types in POSITIONS:
            t, lm = self.make(name, maker, phase, seat, types)
            before = snapshot(t)
            seq = lm["seq"]
            others = [tok for i, tok in enumerate(t.tokens) if i != seat]
            for move in lm["moves"][:3] + [m for m in lm["moves"] if m["type"] == "pass"]:
                with self.subTest(position=name, move=move):
                    for other in others:
                        self.assertEqual(code_of(self.c.apply_move, t.game, move, token=other, seq=seq),
                                         "not_your_turn")
                        self.assertEqual(code_of(self.c.apply_move, t.game, move, token=other, seq=seq - 1),
                                         "conflict")
                    for s in (seq - 1, seq + 1, 0 if seq else 1, 2 ** 32):
                        self.assertEqual(code_of(self.c.apply_move, t.game, move, token=t.tokens[seat], seq=s),
                                         "conflict", s)
                    # the wrong seat with a malformed move is still not_your_turn,
                    # a stale seq with a malformed move still conflict
                    self.assertEqual(code_of(self.c.apply_move, t.game, MALFORMED[0], token=others[0]),
                                     "not_your_turn")
                    self.assertEqual(code_of(self.c.apply_move, t.game, MALFORMED[0], token=t.tokens[seat],
                                             seq=seq + 1), "conflict")
                    self.assertEqual(code_of(self.c.apply_move, t.game, move, token=t.g["admin_token"]),
                                     "forbidden")
            # legal_moves for a seat not due is empty, for the seat due the same list
            for i in range(len(t.tokens)):
                got = t.legal(seat=i)
                self.assertEqual(got["moves"], lm["moves"] if i == seat else [], (name, i))
            self.assertEqual(snapshot(t), before)
            # and the due seat's listed moves all still work: apply the first
            res = self.c.apply_move(t.game, lm["moves"][0], token=t.tokens[seat], seq=seq)
            self.assertEqual(res["seq"], seq + 1)

    def test_pass_in_the_final_round_with_extra_keys(self):
        """doc: "extra keys are ignored": the same events as a plain pass."""
        a, b = final_round(self), final_round(self)
        ea = a.events(PASS)
        eb = b.send({"type": "pass", "x": "junk", "figure": 7, "choice": None})
        self.assertEqual(ea, eb)
        self.assertEqual(a.decision(), b.decision())
        self.assertEqual(a.decision(), ("abbey_final", 1))
        # seat 1 passes too: the game ends
        self.assertEqual(a.events(PASS)[-1]["type"], "game_over")


# ---- a full game with every set, replayed ---------------------------------------------------------

class Replay:
    def play(self, client, params, chooser, moves=None):
        """Play a game (from moves, or choosing) through client; the moves
        with their (seq, seat) and the events of each."""
        g = client.call("new_game", params)
        game, tokens = g["game"], [s["token"] for s in g["seats"]]
        record, phases = [], set()
        for i in range(3000):
            lm = client.legal_moves(game)
            if lm["phase"] == "over":
                break
            phases.add(lm["phase"])
            if moves is not None:
                self.assertLess(i, len(moves), "the replay goes on after the original's end")
                want = moves[i]
                self.assertEqual((lm["seq"] + 1, lm["seat"]), (want["seq"], want["seat"]))
                move = want["move"]
            else:
                move = chooser(lm)
            res = client.apply_move(game, move, token=tokens[lm["seat"]], seq=lm["seq"])
            record.append(({"seq": lm["seq"] + 1, "seat": lm["seat"], "move": move}, res["events"]))
        if moves is not None:
            self.assertEqual(len(record), len(moves))
        return game, record, phases

    def test_every_set_replayed_from_history(self):
        # seed 1003 with three seats and this bot meets every decision the
        # expansions add: the abbey choice, wagon, flock, escape, the final round
        with daemon["d"].client("tcp", "json") as j, daemon["d"].client("unix", "msgpack") as m:
            params = {"players": ["ann", "bob", "cy"], "expansions": PLAYED, "seed": 1003,
                      "rules": {"abbey_final_round": True}}
            bot = Bot(1)
            mid = {}

            def choose(lm):
                if lm["seq"] == 150:   # before the end: no seed, salt or supply order
                    mid["h"] = j.history(lm["game"])
                return bot.choose(lm)

            game, record, phases = self.play(j, params, choose)
            self.assertEqual(sorted(mid["h"]), ["events", "game", "moves", "setup"])
            self.assertNotIn("tiles", mid["h"]["setup"])
            self.assertNotIn("seed", mid["h"])
            self.assertTrue({"tile", "action", "wagon", "flock", "escape", "abbey_final"} <= phases, phases)
            self.assertTrue(any(mv["move"] == DRAW for mv, _ in record))
            self.assertGreater(len(record), 300)
            h = j.history(game)
            self.assertTrue(j.state(game)["over"])
            self.assertEqual(h["moves"], [mv for mv, _ in record])
            self.assertEqual(h["setup"]["expansions"], PLAYED)
            self.assertEqual(h["seed"], 1003)
            self.assertEqual(h["events"][-1]["type"], "game_over")
            scores = j.score(game)
            self.assertTrue(scores["final"])
            self.assertEqual(scores["scores"], h["events"][-1]["scores"])
            self.assertEqual(scores["if_ended_now"], scores["scores"])
            self.assertEqual(scores["scores"], [s["score"] for s in j.state(game)["seats"]])
            self.assertEqual(scores["scores"], harness.points_by_seat(harness.history_events(h), 3))
            # the events of the moves are history's events after seq 0
            self.assertEqual([dict(e, seq=mv["seq"]) for mv, evs in record for e in evs],
                             [e for e in h["events"] if e["seq"] > 0])
            setup = {k: v for k, v in h["setup"].items() if k != "tiles"}
            # the same seed and setup, over each encoding; then with tiles too
            for client, label, extra in ((self.c, "this encoding", {}), (j, "json", {}), (m, "msgpack", {}),
                                         (self.c, "with tiles", {"tiles": h["tiles"]})):
                with self.subTest(replay=label):
                    again, rec2, _ = self.play(client, dict(setup, seed=h["seed"], **extra), None, h["moves"])
                    self.assertEqual([evs for _, evs in rec2], [evs for _, evs in record])
                    h2 = client.history(again)
                    self.assertEqual((h2["events"], h2["moves"], h2["tiles"], h2["seed"]),
                                     (h["events"], h["moves"], h["tiles"], h["seed"]))
                    self.assertEqual(client.score(again), scores)
                    self.assertEqual(client.state(again)["board"], j.state(game)["board"])
                    self.assertEqual(client.state(again)["seats"], j.state(game)["seats"])


register_over_both(globals(), (Hello, Components, StartTiles, PhaseMoves, Replay), OverBoth)


if __name__ == "__main__":
    unittest.main()
