"""A second audit of the expansions' wire contract (shared/design/PROTOCOL.md
sections 4-6, proto/PROTOCOL.md) for statements no other module pins:

- `score`'s `if_ended_now` is what the scores would be if the game ended
  now: the same game, its supply cut where a turn began (new_game's
  `tiles`: "the game ends after the turn that uses the last entry, with
  final scoring"), ends with exactly those scores, with every built
  expansion;
- the abbey is a cloister for the cult places' adjacency rule: a hole next
  to two cult places gives no abbey choice, a hole next to one does;
- a vineyard bonus is inside its cloister's single `scored` event;
- `place_abbey` ignores extra keys (`rot`, `tile`): the abbey is placed at
  rot 0;
- `tiles` and `start` take only tiles of the sets in `expansions`, the
  rivers' tiles each with their own river (the shared spring with either);
- MessagePack `bin` strings in new_game's `expansions`, `bag` and `rules`.

Each group runs over MessagePack on the Unix socket and JSON lines on TCP."""

import random
import unittest

import harness
from harness import carcd, code_of, msgpack
from test_expansions import Bot
from crafted import (ABBEY_MOVES, ABBEY_TILES, PASS, RING, abbey, deploy, of_type, over_both, place,
                     register_over_both)

daemon, setUpModule, tearDownModule = harness.module_daemon()

ALL_EXPANSIONS = ["base", "river", "river2", "mini", "inns-cathedrals", "traders-builders",
                  "abbey-mayor", "king-robber", "cathars", "cult", "hills-sheep"]
OverBoth = over_both(daemon)


# ---- score: if_ended_now against a real end ---------------------------------------------------

class IfEndedNow:
    """proto/PROTOCOL.md "score": `if_ended_now` is what the scores would
    be if the game ended now with final scoring of every incomplete feature
    and farm.  A game made with the same seed and the dealt supply cut just
    before the tile of a turn that has begun (history's `tiles`; a tile under
    a hill counts as used) ends after the moves played so far: its final
    scores are the first game's `if_ended_now` at that point."""

    CONFIGS = [(ALL_EXPANSIONS, 3, 1), (["base", "abbey-mayor", "traders-builders", "king-robber"], 2, 2),
               (["base", "hills-sheep", "cathars", "cult", "inns-cathedrals"], 4, 3)]
    CUTS = 4

    def test_the_game_cut_short_ends_with_those_scores(self):
        for expansions, nseats, seed in self.CONFIGS:
            with self.subTest(expansions=expansions, seed=seed):
                self.check(expansions, nseats, seed)

    def check(self, expansions, nseats, seed):
        players = ["p%d" % i for i in range(nseats)]
        g = self.c.new_game(players, expansions=expansions, seed=seed, auth=False)
        game, bot = g["game"], Bot(seed)
        used = sum(1 for e in self.c.history(game)["events"] if e["type"] in ("tile_drawn", "tile_hidden"))
        moves, cuts = [], []
        while True:
            lm = self.c.legal_moves(game)
            if lm["phase"] == "over":
                break
            move = bot.choose(lm)
            res = self.c.apply_move(game, move)
            moves.append(move)
            at_turn = None
            for e in res["events"]:
                if e["type"] == "turn":
                    at_turn = used
                if e["type"] in ("tile_drawn", "tile_hidden"):
                    used += 1
                if e["type"] == "tile_discarded" and e["why"] == "reshuffled":
                    used -= 1
            if at_turn:
                cuts.append((len(moves), at_turn, self.c.score(game)["if_ended_now"]))
        self.assertGreater(len(cuts), 20)
        h = self.c.history(game)
        for n, k, if_ended_now in sorted(random.Random(seed).sample(cuts, min(self.CUTS, len(cuts)))):
            with self.subTest(moves=n, tiles=k):
                u = self.c.new_game(players, expansions=expansions, seed=h["seed"], tiles=h["tiles"][:k],
                                    auth=False)["game"]
                for move in moves[:n]:
                    self.c.apply_move(u, move)
                sc = self.c.score(u)
                self.assertIs(sc["final"], True)
                self.assertEqual(sc["scores"], if_ended_now)


# ---- the abbey and the cult places ------------------------------------------------------------

HOLE = [(0, -1), (1, 0), (0, 1), (-1, 0)]


class AbbeyBesideCultPlaces:
    """RULES.md 2.9/2.10: the abbey is a cloister for the cult places'
    adjacency rule; section 5 of the contract: `draw` only when the abbey
    could be placed instead."""

    def game(self, cult_places):
        start = [{"tile": "GQ/F", "x": x, "y": y, "rot": 0} for x, y in HOLE]
        start += [{"tile": "CU/S", "x": x, "y": y, "rot": 0} for x, y in cult_places]
        return self.table(["ann"], expansions=["base", "mini", "cult", "abbey-mayor"], start=start,
                          tiles=["BA/L", "GQ/F"], seed=1)

    def test_no_abbey_choice_beside_two_cult_places(self):
        t = self.game([(-1, -1), (1, 1)])
        lm = t.legal()
        self.assertEqual(lm["phase"], "tile")
        self.assertEqual(t.state()["tile"], {"id": "BA/L", "drawn_by": 0})
        self.assertFalse([m for m in lm["moves"] if m["type"] in ("draw", "place_abbey")], lm)
        self.assertFalse([m for m in lm["moves"] if (m["x"], m["y"]) == (0, 0)], lm)
        t.refuse(abbey(0, 0), "illegal_move")

    def test_abbey_choice_beside_one_cult_place(self):
        t = self.game([(-1, -1)])
        self.assertCountEqual(t.legal()["moves"], [abbey(0, 0), {"type": "draw"}])
        self.assertIsNone(t.state()["tile"])
        self.assertEqual(t.events(abbey(0, 0)),
                         [{"type": "tile_placed", "seat": 0, "tile": "AM/A", "x": 0, "y": 0, "rot": 0}])


# ---- events and moves ---------------------------------------------------------------------------

class Details:
    def test_vineyard_bonus_inside_the_cloister_score(self):
        """Section 6: one `scored` per seat per scored feature with its
        total, "a vineyard bonus is inside its cloister's points"."""
        start = [{"tile": "BA/L", "x": x, "y": y, "rot": 0} for x, y in RING]
        t = self.table(["ann"], expansions=["base", "hills-sheep"], start=start, tiles=["BA/L", "HS/C!.v"], seed=1)
        t.play(place("BA/L", 0, 0, 0), deploy(0, 0, "cloister"), place("HS/C!.v", 1, 1, 90))
        evs = t.events(PASS)
        self.assertEqual(of_type(evs, "scored"),
                         [{"type": "scored", "seat": 0, "points": 12, "feature": "cloister", "x": 0, "y": 0,
                           "at": "cloister", "ports": ["cloister"], "final": False}])

    def test_place_abbey_ignores_extra_keys(self):
        """Section 5: extra keys ignored; the abbey has no rotation of its own."""
        t = self.table(["ann", "bob"], expansions=["base", "abbey-mayor"], tiles=ABBEY_TILES, seed=5)
        t.play(*ABBEY_MOVES)
        evs = t.send(dict(abbey(0, -1), rot=90, tile="BA/C"))
        self.assertEqual(evs, [{"type": "tile_placed", "seat": 0, "tile": "AM/A", "x": 0, "y": -1, "rot": 0}])
        self.assertEqual([b["rot"] for b in t.state()["board"] if b["tile"] == "AM/A"], [0])

    def test_tiles_and_start_of_the_sets_in_play(self):
        """Section 4.1: `expansions` names the reference tile sets; an id
        from a set not in `expansions` is invalid_params."""
        cases = [  # (expansions, tiles, start tile, accepted)
            (["base", "river"], ["RI.1/II"], "RI/s", True),
            (["base", "river2"], ["RI.2/II", "RI/s"], "RI/s", True),
            (["base", "river"], ["RI.2/II"], None, False),
            (["base", "river2"], ["RI.1/II"], None, False),
            (["base", "mini"], ["RI/s"], None, False),
            (["base", "mini"], None, "RI/s", False),
            (["base"], None, "HS/RR.h", False),
            (["base"], None, "GQ/RFI", False),
            (["base", "mini"], ["GQ/F", "GQ/LRRRR"], None, True),
        ]
        for expansions, tiles, start, ok in cases:
            with self.subTest(expansions=expansions, tiles=tiles, start=start):
                kw = {}
                if tiles:
                    kw["tiles"] = tiles
                if start:
                    kw["start"] = [{"tile": start, "x": 0, "y": 0, "rot": 0}]
                code = code_of(self.c.new_game, ["ann"], expansions=expansions, **kw)
                self.assertEqual(code, None if ok else "invalid_params")


class BinStrings(unittest.TestCase):
    """proto/PROTOCOL.md section 2: MessagePack `bin` is accepted wherever a
    string is: expansion names, a `bag` entry and a rule value."""

    def test_new_game_with_bin_strings(self):
        p = msgpack.packb
        body = (b"\x84" + p("players") + p(["ann"]) + p("expansions") + b"\x92\xc4\x04base\xc4\x0bhills-sheep"
                + p("bag") + b"\x92\x02\xc4\x04wolf" + p("rules") + b"\x81" + p("hill_tiebreak") + b"\xc4\x05count")
        with daemon["d"].raw("unix") as raw:
            raw.send(b"\x94\x00\x07" + p("new_game") + body)
            r = raw.read_one("msgpack")
        self.assertEqual(r[:3], [1, 7, None], r)
        with daemon["d"].client("unix") as c:
            setup = c.history(r[3]["game"])["setup"]
        self.assertEqual(setup["expansions"], ["base", "hills-sheep"])
        self.assertEqual(setup["rules"]["hill_tiebreak"], "count")


# A solo game (one seat: every "next player" is seat 0) where seat 0
# completes a city with wine, then one with grain: it ends holding one wine
# and one grain, the majority of both.
GOODS_TILES = ["TB/CFc.w", "BA/C", "TB/Cc.g", "BA/C", "BA/C"]
GOODS_MOVES = [place("TB/CFc.w", 0, -1, 90), PASS, place("BA/C", 0, -2, 180), PASS,
               place("TB/Cc.g", 0, 1, 180), PASS, place("BA/C", 1, 1, 270), PASS, place("BA/C", 0, 2, 0), PASS]


class MiniRiverTiles:
    """Contract 4.1, `expansions`: "`mini` gq11 (+ gq11/river with a
    river)"; `tiles`: "An id from a set not in `expansions` is
    `invalid_params`".  proto/PROTOCOL.md, Expansions: "The mini
    expansion's river tiles join only a river game."  Without `river` or
    `river2`, the gq11/river tiles (GQ/CICI, and the spring with a road
    GQ/RFI) are no tiles of the game (carcd once dealt them there, a
    river edge laid against a city)."""

    def test_gq11_river_tiles_need_a_river(self):
        for tile in ("GQ/CICI", "GQ/RFI"):
            with self.subTest(tile=tile):
                self.assertEqual(code_of(self.c.new_game, ["ann"], expansions=["base", "mini"], tiles=[tile]),
                                 "invalid_params")
        # with a river they are welcome
        self.assertIsNone(code_of(self.c.new_game, ["ann"], expansions=["base", "river", "mini"],
                                  tiles=["GQ/CICI"]))


class TradeScoredOnce:
    """Contract section 6, `scored`: "One event per seat per scored feature
    with its total"; `feature` `trade`.  A seat with the majority of two
    goods gets one `scored` event of 20 (carcd once sent two of 10, the
    same in every field)."""

    def test_one_trade_event_per_seat(self):
        t = self.table(["ann"], expansions=["base", "traders-builders"], tiles=GOODS_TILES, seed=5)
        evs = []
        for move in GOODS_MOVES:
            evs += t.events(move)
        self.assertEqual([e["token"] for e in of_type(evs, "token_taken")], ["wine", "grain"])
        self.assertEqual(evs[-1], {"type": "game_over", "scores": [20]})
        trade = [e for e in of_type(evs, "scored") if e["feature"] == "trade"]
        self.assertEqual(trade, [{"type": "scored", "seat": 0, "points": 20, "feature": "trade", "x": None,
                                  "y": None, "at": None, "ports": None, "final": True}])


class BarnMessage:
    """Contract section 2: `illegal_move` (`message` says why, in words a
    player understands).  A barn named at a field's half-edge (not a
    corner) is told that it goes on a corner (carcd once said "the tile at
    (1,1) has nothing to stand on at NL", false: NL is a field there)."""

    def test_a_barn_at_a_half_edge_is_told_it_goes_on_a_corner(self):
        start = [{"tile": "BA/L", "x": x, "y": y, "rot": 0} for x, y in [(0, 0), (1, 0), (0, 1)]]
        t = self.table(["ann", "bob"], expansions=["base", "abbey-mayor"], start=start,
                       tiles=["BA/L", "BA/L", "BA/L"], seed=1)
        t.play(place("BA/L", 1, 1, 0))
        self.assertIn({"type": "deploy", "kind": "barn", "x": 1, "y": 1, "at": "nw"}, t.legal()["moves"])
        msg = t.refuse({"type": "deploy", "kind": "barn", "x": 1, "y": 1, "at": "NL"}, "illegal_move")
        self.assertNotIn("nothing to stand on", msg)
        self.assertIn("corner", msg)


GROUPS = (IfEndedNow, AbbeyBesideCultPlaces, Details, MiniRiverTiles, TradeScoredOnce, BarnMessage)
register_over_both(globals(), GROUPS, OverBoth)


if __name__ == "__main__":
    unittest.main()
