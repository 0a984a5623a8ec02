"""The expansions' part of the wire contract (shared/design/PROTOCOL.md
sections 2-6) where test_expansions.py leaves a statement unpinned: the
components of new_game one by one, two wagons deciding in turn, a wagon with
nowhere to go, the figures of Inns & Cathedrals, Traders & Builders and the
mayor in crafted games, the final abbey round with two seats, who a move is
for in a game without tokens, the move types of expansions a game does not
have, and bad values in every field of the expansions' moves.  Each crafted
game is played over both encodings (MessagePack on the Unix socket, JSON
lines on TCP), and one script is played over both to show the same answers."""

import json
import os
import re
import unittest

import harness
from harness import carcd
from crafted import (ABBEY_MOVES, ABBEY_TILES, DRAW, ESCAPE_MOVES, ESCAPE_TILES, FINAL_MOVES, FINAL_TILES,
                     FLOCK_MOVES, FLOCK_START, PASS, REASONS, RING_START, WAGONS_MOVES, WAGONS_TILES, abbey,
                     deploy, escape, flock, of_type, over_both, place, register_over_both, wagon)

daemon, setUpModule, tearDownModule = harness.module_daemon()

AM = ["base", "abbey-mayor"]
# Section 5's move types of the expansions carcd does not play yet, each
# well formed: in a game without them each is an illegal_move.
UNBUILT_MOVES = [
    {"type": "move_dragon", "x": 0, "y": 1},
    {"type": "tower_piece", "x": 0, "y": 0},
    {"type": "move_fairy", "x": 0, "y": 0, "figure": "0.follower.1"},
    {"type": "remove_knight", "figure": "0.follower.1"},
    {"type": "ransom", "figure": "1.follower.1"},
    {"type": "capture", "figure": "1.follower.1"},
    {"type": "exchange", "figure": "1.follower.1"},
    {"type": "leave_city", "quarter": "castle", "x": 0, "y": 0, "at": "N"},
    {"type": "enter_city", "quarter": "market"},
    {"type": "move_count", "quarter": "cathedral"},
    {"type": "catapult", "token": "target"},
    {"type": "catapult_result", "token": "target", "landed": None},
    {"type": "catapult_result", "token": "knockout", "landed": {"x": 0.5, "y": -1.25}, "hit": []},
]

OverBoth = over_both(daemon)


# ---- section 4.1: components ---------------------------------------------------------------

# What each expansion brings to a seat's supply (components default to the
# expansions' own) and the figure kinds switched one by one.
SUPPLY_OF = {
    "base": {"follower": 7},
    "inns-cathedrals": {"follower": 7, "large": 1},
    "traders-builders": {"follower": 7, "builder": 1, "pig": 1},
    "abbey-mayor": {"follower": 7, "wagon": 1, "mayor": 1, "barn": 1, "abbey": 1},
    "hills-sheep": {"follower": 7, "shepherd": 1},
    "king-robber": {"follower": 7},
    "cathars": {"follower": 7},
    "cult": {"follower": 7},
}
FIGURE_COMPONENTS = ("large", "wagon", "mayor", "builder", "pig", "barn", "shepherd")


class Components:
    def test_each_expansion_brings_its_figures(self):
        for expansion, supply in SUPPLY_OF.items():
            with self.subTest(expansion=expansion):
                g = self.c.new_game(["ann", "bob"], expansions=sorted({"base", expansion}))
                for seat in g["state"]["seats"]:
                    self.assertEqual(seat["supply"], supply)
                    self.assertEqual(seat["tokens"], {})
                    self.assertEqual(seat["prisoners"], [])
                self.assertEqual(g["state"]["neutral"], {"dragon": None, "fairy": None, "count": None})

    def test_a_figure_switched_on_in_a_base_game(self):
        for kind in FIGURE_COMPONENTS:
            with self.subTest(kind=kind):
                t = self.table(["ann"], components={kind: True}, tiles=["BA/RFr", "BA/RFr"], seed=5)
                self.assertEqual(t.supply(0), {"follower": 7, kind: 1})
                self.assertEqual(self.c.history(t.game)["setup"]["components"], {kind: True})
                t.play(place("BA/RFr", 1, 0, 0))
                kinds = {m["kind"] for m in t.legal()["moves"] if m["type"] == "deploy"}
                # a road and two fields, no city, no corner of four tiles, no
                # follower of the seat yet: the large one, the wagon and the
                # shepherd may stand there, the others not
                self.assertEqual(kinds, {"follower", kind} if kind in ("large", "wagon", "shepherd") else {"follower"})

    def test_the_abbey_switched_on_in_a_base_game(self):
        t = self.table(["ann", "bob"], components={"abbey": True}, tiles=ABBEY_TILES, seed=5)
        self.assertEqual([s["supply"] for s in t.state()["seats"]], [{"follower": 7, "abbey": 1}] * 2)
        t.play(*ABBEY_MOVES)
        lm = t.legal()
        self.assertEqual((lm["phase"], lm["seat"]), ("tile", 0))
        self.assertCountEqual(lm["moves"], [abbey(0, -1), DRAW])
        self.assertEqual(t.events(abbey(0, -1)),
                         [{"type": "tile_placed", "seat": 0, "tile": "AM/A", "x": 0, "y": -1, "rot": 0}])
        self.assertEqual(t.supply(0).get("abbey", 0), 0)
        self.assertEqual(t.supply(1)["abbey"], 1)

    def test_a_figure_switched_off_in_its_expansion(self):
        for expansion, kind, tiles, at in (("inns-cathedrals", "large", ["BA/RFr", "BA/RFr"], "W"),
                                           ("abbey-mayor", "wagon", ["BA/RFr", "BA/RFr"], "W"),
                                           ("abbey-mayor", "mayor", ["BA/C", "BA/RFr"], "S"),
                                           ("hills-sheep", "shepherd", ["BA/RFr", "BA/RFr"], "NL")):
            with self.subTest(kind=kind):
                t = self.table(["ann"], expansions=["base", expansion], components={kind: False},
                               tiles=tiles, seed=5)
                self.assertNotIn(kind, t.supply(0))
                t.play(t.legal()["moves"][0] if tiles[0] == "BA/C" else place("BA/RFr", 1, 0, 0))
                lm = t.legal()
                self.assertNotIn(kind, {m["kind"] for m in lm["moves"] if m["type"] == "deploy"})
                x, y = lm["moves"][0]["x"], lm["moves"][0]["y"]
                t.refuse(deploy(x, y, at, kind), "illegal_move")

    def refused(self, words, players=("ann",), **options):
        """new_game with these options is invalid_params, its message
        holding `words`, and makes no game."""
        before = self.c.call("stats", {})["games_total"]
        with self.assertRaises(carcd.Error) as cm:
            self.c.new_game(list(players), **options)
        self.assertEqual(cm.exception.code, "invalid_params", cm.exception)
        self.assertIn(words, cm.exception.message)
        self.assertEqual(self.c.call("stats", {})["games_total"], before)

    def test_bag_wherever_the_shepherd_is(self):
        """`bag` fixes the sheep drawn in any game with the shepherd: one
        the `shepherd` component brings to a base game too.  A game without
        the shepherd has no bag."""
        t = self.table(["ann", "bob"], components={"shepherd": True}, start=FLOCK_START, bag=[3, 2, 4],
                       tiles=["BA/RFr"] * 5, seed=5)
        evs = [e for move in FLOCK_MOVES for e in t.events(move)]
        self.assertEqual([e["token"] for e in of_type(evs, "sheep_drawn")], [3, 2])
        self.assertEqual(t.decision(), ("flock", 0))
        self.assertEqual([e["token"] for e in of_type(t.events(flock("expand")), "sheep_drawn")], [4])
        self.refused("`bag` needs the shepherd", bag=[1])
        self.refused("`bag` needs the shepherd", expansions=["base", "hills-sheep"], components={"shepherd": False},
                     bag=[1])

    def test_bag_names_the_token_it_holds_too_many_of(self):
        hs = ["base", "hills-sheep"]
        self.refused("the bag holds only 4 tokens of 1 sheep", expansions=hs, bag=[1] * 5)
        self.refused("the bag holds only 2 tokens of 4 sheep", expansions=hs, bag=[4, 1, 4, 4])
        self.refused("the bag holds only 2 wolves", expansions=hs, bag=["wolf"] * 3)

    def test_a_river_start_needs_an_open_river_end(self):
        """A river game deals its river tiles first: start tiles with no
        river end open would lose them all before the first move, so such a
        `start` is refused.  The spring, alone or with other start tiles
        that leave its mouth open, starts the river."""
        no_river = [{"tile": "BA/RCr", "x": 0, "y": 0, "rot": 0}]
        for expansions in (["base", "river"], ["base", "river2"], ["base", "river", "mini"]):
            with self.subTest(expansions=expansions):
                self.refused("find no open river end", expansions=expansions, start=no_river)
                # the spring with cities all round the place at its mouth
                # (1,0): no river tile has a city on three sides, whatever
                # the deal
                blocked = [{"tile": "RI/s", "x": 0, "y": 0, "rot": 0}] + [
                    {"tile": "BA/Cccc+", "x": x, "y": y, "rot": 0} for x, y in ((2, 0), (1, 1), (1, -1))]
                for seed in (1, 5, 9):
                    self.refused("find no open river end", expansions=expansions, start=blocked, seed=seed)
                spring = [{"tile": "RI/s", "x": 0, "y": 0, "rot": 0}]
                # a tile beside the place ahead of the mouth: the seed's
                # first river tile decides (found by a blind audit)
                crowded = spring + [{"tile": "BA/L", "x": 2, "y": 1, "rot": 0}]
                if expansions == ["base", "river"]:
                    self.refused("the first of this deal, RI.1/", expansions=expansions, start=crowded, seed=1)
                    self.refused("which river tile comes first depends on `seed`", expansions=expansions,
                                 start=crowded, seed=1)
                    t = self.table(["ann"], expansions=expansions, start=crowded, seed=5)
                    self.assertEqual(of_type(self.c.history(t.game)["events"], "tile_discarded"), [])
                for start in (spring, spring + [{"tile": "BA/RCr", "x": 0, "y": -1, "rot": 0}]):
                    t = self.table(["ann"], expansions=expansions, start=start, seed=5)
                    evs = self.c.history(t.game)["events"]
                    self.assertEqual(of_type(evs, "tile_discarded"), [])
                    dealt = self.c.new_game(["ann"], expansions=expansions, seed=5)["state"]["tiles_left"]
                    self.assertEqual(t.state()["tiles_left"], dealt)
        # in a base game, start tiles may leave a tile drawn no place: it is
        # discarded, as in play (a city all round takes no road-only tile)
        t = self.table(["ann"], start=[{"tile": "BA/Cccc+", "x": 0, "y": 0, "rot": 0}],
                       tiles=["BA/RRRR", "BA/C"], seed=5)
        self.assertEqual(of_type(self.c.history(t.game)["events"], "tile_discarded"),
                         [{"type": "tile_discarded", "tile": "BA/RRRR", "why": "unplaceable", "seq": 0}])

    def test_field_figures_in_a_game_without_farmers(self):
        """farmers: false keeps the pig, the barn and the shepherd in the
        supply, as their components say, but deploys none of them."""
        t = self.table(["ann"], expansions=["base", "traders-builders", "abbey-mayor", "hills-sheep"],
                       rules={"farmers": False}, components={"abbey": False, "mayor": False, "wagon": False,
                                                             "builder": False},
                       tiles=["BA/RFr", "BA/RFr"], seed=5)
        self.assertEqual(t.supply(0), {"follower": 7, "pig": 1, "barn": 1, "shepherd": 1})
        t.play(place("BA/RFr", 1, 0, 0))
        self.assertEqual({m["kind"] for m in t.legal()["moves"] if m["type"] == "deploy"}, {"follower"})
        for kind in ("pig", "shepherd", "follower"):
            t.refuse(deploy(1, 0, "NL", kind), "illegal_move")

    def test_builder_and_pig_switched_off(self):
        t = self.table(["ann"], expansions=["base", "traders-builders"], components={"builder": False, "pig": False},
                       tiles=["BA/RFr", "BA/RFr", "BA/RFr"], seed=5)
        self.assertEqual(t.supply(0), {"follower": 7})
        t.play(place("BA/RFr", 1, 0, 0), deploy(1, 0, "E"), place("BA/RFr", 2, 0, 0))
        t.refuse(deploy(2, 0, "W", "builder"), "illegal_move")
        t.refuse(deploy(2, 0, "NL", "pig"), "illegal_move")

    def test_goods_switched_off(self):
        # tests/scenarios/traders-01: seat 1 completes seat 0's city with wine
        kw = dict(expansions=["base", "traders-builders"], tiles=["TB/CFc.w", "BA/C", "TB/Cc.g"], seed=5)
        moves = [place("TB/CFc.w", 0, -1, 90), deploy(0, -1, "N"), place("BA/C", 0, -2, 180), PASS]
        t = self.table(["ann", "bob"], **kw)
        self.assertEqual(of_type(t.events(*moves), "token_taken"),
                         [{"type": "token_taken", "seat": 1, "token": "wine"}])
        self.assertEqual(t.state()["seats"][1]["tokens"], {"wine": 1})
        t = self.table(["ann", "bob"], components={"goods": False}, **kw)
        evs = t.events(*moves)
        self.assertEqual(of_type(evs, "token_taken"), [])
        self.assertEqual([e["points"] for e in of_type(evs, "scored")], [6])
        self.assertEqual([s["tokens"] for s in t.state()["seats"]], [{}, {}])
        evs = t.events(place("TB/Cc.g", 1, -1, 90), PASS)
        self.assertFalse([e for e in of_type(evs, "scored") if e["feature"] == "trade"], evs)

    def test_king_switched_off(self):
        # tests/scenarios/58: only the robber in play
        t = self.table(["ann", "bob"], expansions=["base", "king-robber"], components={"king": False},
                       tiles=["BA/C", "BA/RRR", "BA/RRR"], seed=5)
        evs = t.events(place("BA/C", 0, -1, 180), deploy(0, -1, "S"))
        self.assertEqual([(e["seat"], e["points"], e["feature"]) for e in of_type(evs, "scored")], [(0, 4, "city")])
        self.assertEqual(of_type(evs, "token_taken"), [])
        evs = t.events(place("BA/RRR", -1, 0, 0), PASS, place("BA/RRR", 1, 0, 0), PASS)
        self.assertEqual(of_type(evs, "token_taken"), [{"type": "token_taken", "seat": 0, "token": "robber"}])
        self.assertEqual(t.state()["seats"][0]["tokens"], {"robber": True})
        self.assertEqual(evs[-1], {"type": "game_over", "scores": [5, 0]})


# ---- section 5: the wagon phase -----------------------------------------------------------

class Wagons:
    def wagons(self, **options):
        t = self.table(["ann", "bob", "cy"], expansions=AM, tiles=WAGONS_TILES, seed=5, **options)
        res = t.play(*WAGONS_MOVES)
        self.assertEqual([(e["seat"], e["figure"], e["why"]) for e in of_type(res["events"], "returned")],
                         [(0, "0.wagon.1", "scored"), (2, "2.wagon.1", "scored")])
        self.assertFalse(of_type(res["events"], "turn"))
        self.assertEqual((res["phase"], res["seat"], res["over"]), ("wagon", 2, False))
        return t

    def test_wagon_owners_decide_clockwise_from_the_player_on_turn(self):
        t = self.wagons()
        self.assertEqual(t.decision(), ("wagon", 2))
        # the state's tile is the turn's, seat 1's, placed already
        placed = [e for e in t.c.history(t.game)["events"] if e["type"] == "tile_placed"][-1]
        self.assertEqual((placed["seat"], t.state()["tile"]), (1, {"id": placed["tile"], "drawn_by": 1}))
        lm = t.legal()
        self.assertEqual(lm["moves"], [wagon(-1, 0, "W"), wagon(-1, 1, "cloister"), PASS])
        self.assertEqual(t.legal(seat=2), lm)
        for seat in (0, 1):
            self.assertEqual(t.legal(seat=seat), dict(lm, moves=[]))
        # seat 1 is on turn and seat 0 decides next: neither decides now,
        # and the message does not call seat 2's decision its turn
        for seat, name in ((1, "bob"), (0, "ann")):
            self.assertEqual(t.refuse(wagon(-1, 0, "W"), "not_your_turn", token=t.tokens[seat]),
                             "seat 2 (cy) must decide now (the wagon phase), not seat %d (%s)" % (seat, name))
        t.refuse(wagon(-1, 0, "W"), "forbidden", token=t.g["admin_token"])
        res = t.play(wagon(-1, 0, "W"))
        self.assertEqual(res["events"], [{"type": "deployed", "seat": 2, "figure": "2.wagon.1", "kind": "wagon",
                                          "x": -1, "y": 0, "at": "W", "ports": ["W"], "feature": "road"}])
        self.assertEqual((res["phase"], res["seat"]), ("wagon", 0))
        self.assertEqual(t.decision(), ("wagon", 0))
        self.assertEqual(t.legal()["moves"], [wagon(1, 0, "E"), wagon(1, 0, "S"), PASS])
        t.refuse(wagon(-1, 0, "W"), "illegal_move")              # seat 2's wagon is there now
        t.refuse(wagon(1, 0, "E"), "not_your_turn", token=t.tokens[2])
        evs = t.events(wagon(1, 0, "E"))
        self.assertEqual(evs, [{"type": "deployed", "seat": 0, "figure": "0.wagon.1", "kind": "wagon",
                                "x": 1, "y": 0, "at": "E", "ports": ["E"], "feature": "road"},
                               {"type": "turn", "seat": 2},
                               {"type": "tile_drawn", "seat": 2, "tile": "BA/RFr"}])
        self.assertEqual([t.supply(s)["wagon"] for s in range(3)], [0, 1, 0])
        # history: each move with the seat that decided it
        h = self.c.history(t.game)
        self.assertEqual([(m["seat"], m["move"]) for m in h["moves"][-2:]], [(2, wagon(-1, 0, "W")), (0, wagon(1, 0, "E"))])

    def test_without_tokens_the_move_is_the_deciding_seats(self):
        t = self.wagons(auth=False)
        res = self.c.apply_move(t.game, wagon(-1, 0, "W"))
        self.assertEqual([(e["seat"], e["figure"]) for e in res["events"]], [(2, "2.wagon.1")])
        # any token, even one of another seat, is ignored
        res = self.c.apply_move(t.game, PASS, token=t.tokens[1])
        self.assertEqual(res["events"], [{"type": "turn", "seat": 2}, {"type": "tile_drawn", "seat": 2, "tile": "BA/RFr"}])
        self.assertEqual([t.supply(s)["wagon"] for s in range(3)], [1, 1, 0])

    def test_a_wagon_with_nowhere_to_go_is_not_asked(self):
        # section 5: a decision whose only legal move would be pass is skipped
        t = self.table(["ann", "bob"], expansions=AM, start=RING_START, tiles=["BA/L", "BA/L", "BA/L"], seed=5)
        t.play(DRAW, place("BA/L", 0, 0, 0), deploy(0, 0, "cloister", "wagon"))
        res = t.play(place("BA/L", 1, 1, 0), PASS)
        self.assertEqual([e["type"] for e in res["events"]],
                         ["feature_completed", "scored", "returned", "turn", "tile_drawn"])
        self.assertEqual(res["events"][2], {"type": "returned", "seat": 0, "figure": "0.wagon.1", "why": "scored"})
        self.assertEqual((res["phase"], res["seat"]), ("tile", 0))
        self.assertEqual(t.decision(), ("tile", 0))
        self.assertEqual(t.supply(0)["wagon"], 1)
        t.refuse(wagon(0, 0, "cloister"), "illegal_move")

    def test_bad_values_in_a_wagon_move(self):
        t = self.wagons()
        good = wagon(-1, 0, "W")
        for move, code in (
                (dict(good, x=32768), "invalid_params"),
                (dict(good, x=-32769), "invalid_params"),
                (dict(good, y=2 ** 32), "invalid_params"),
                (dict(good, y=-2 ** 63), "invalid_params"),
                (dict(good, x=True), "invalid_params"),
                (dict(good, y=[0]), "invalid_params"),
                (dict(good, x={"x": -1}), "invalid_params"),
                (dict(good, at="w"), "invalid_params"),
                (dict(good, at="W "), "invalid_params"),
                (dict(good, at="NW"), "invalid_params"),
                (dict(good, at=""), "invalid_params"),
                (dict(good, at=True), "invalid_params"),
                (dict(good, at="WL"), "illegal_move"),                       # a field
                (dict(good, at="se"), "illegal_move"),                       # a corner
                (wagon(-1, 1, "N"), "illegal_move"),                         # the road just scored
                (wagon(-1, 0, "E"), "illegal_move"),                         # complete
                (wagon(32767, -32768, "N"), "illegal_move"),                 # the board's far corner
                (deploy(-1, 0, "W", "wagon"), "illegal_move"),
                (place("BA/RFr", 2, 1, 0), "illegal_move"),
                (DRAW, "illegal_move"),
                (abbey(0, 0), "illegal_move"),
                (escape("2.wagon.1"), "illegal_move"),
                (flock("expand"), "illegal_move")):
            with self.subTest(move=move):
                t.refuse(move, code)


# ---- the figures of the expansions, as events and state -----------------------------------

class Figures:
    def test_a_shepherds_sheep_are_in_the_state(self):
        """The sheep beside a shepherd are public: each shepherd on the
        board lists its tokens (ascending) as `sheep`, as sheep_drawn told."""
        t = self.table(["ann", "bob"], expansions=["base", "hills-sheep"], start=FLOCK_START,
                       bag=[3, 2, 4, 1, "wolf"], tiles=["BA/RFr"] * 6, seed=5)

        def flocks():
            return {f["id"]: f.get("sheep") for tile in t.state()["board"] for f in tile["figures"]}

        t.play(*FLOCK_MOVES)
        self.assertEqual(flocks(), {"0.shepherd.1": [3], "1.shepherd.1": [2]})
        evs = t.events(flock("expand"))
        self.assertEqual([e["token"] for e in of_type(evs, "sheep_drawn")], [4])
        self.assertEqual(flocks(), {"0.shepherd.1": [3, 4], "1.shepherd.1": [2]})

    def test_large_follower_and_mayor(self):
        t = self.table(["ann", "bob"], expansions=["base", "abbey-mayor", "inns-cathedrals"], seed=5,
                       tiles=["BA/Cc+", "BA/CcRr+", "BA/Cc.1", "BA/C"])
        t.play(place("BA/Cc+", 0, -1, 180))
        lm = t.legal()
        # a mayor only in a city; wagon and large where a follower may stand but a field
        self.assertCountEqual([(m["kind"], m["at"]) for m in lm["moves"] if m["type"] == "deploy"],
                              [("follower", "E"), ("follower", "NL"), ("large", "E"), ("large", "NL"),
                               ("wagon", "E"), ("mayor", "E")])
        t.refuse(deploy(0, -1, "NL", "mayor"), "illegal_move")
        t.refuse(deploy(0, -1, "NL", "wagon"), "illegal_move")
        evs = t.send(deploy(0, -1, "S", "large"))            # any port of the city
        self.assertEqual(evs[0], {"type": "deployed", "seat": 0, "figure": "0.large.1", "kind": "large",
                                  "x": 0, "y": -1, "at": "E", "ports": ["E", "S"], "feature": "city"})
        self.assertEqual(t.supply(0), {"follower": 7, "large": 0, "wagon": 1, "mayor": 1, "barn": 1, "abbey": 1})
        t.play(place("BA/CcRr+", 1, 0, 90))
        t.refuse(deploy(1, 0, "S", "mayor"), "illegal_move")     # a road
        t.refuse(deploy(1, 0, "SR", "mayor"), "illegal_move")    # a field
        evs = t.send(deploy(1, 0, "E", "mayor"))
        self.assertEqual(evs[0], {"type": "deployed", "seat": 1, "figure": "1.mayor.1", "kind": "mayor",
                                  "x": 1, "y": 0, "at": "N", "ports": ["N", "E"], "feature": "city"})
        figs = {(b["x"], b["y"]): b["figures"] for b in t.state()["board"]}
        self.assertEqual(figs[(0, -1)], [{"id": "0.large.1", "kind": "large", "at": "E", "ports": ["E", "S"],
                                          "feature": "city"}])
        self.assertEqual(figs[(1, 0)], [{"id": "1.mayor.1", "kind": "mayor", "at": "N", "ports": ["N", "E"],
                                         "feature": "city"}])
        # the city joined and completed: large 2 against a mayor of 2 pennants, a tie
        evs = t.events(place("BA/Cc.1", 1, -1, 270), PASS, place("BA/C", 2, 0, 270), PASS)
        scored = sorted((e["seat"], e["points"], e["feature"]) for e in of_type(evs, "scored") if not e["final"])
        self.assertEqual(scored, [(0, 14, "city"), (1, 14, "city")])
        self.assertCountEqual([(e["seat"], e["figure"], e["why"]) for e in of_type(evs, "returned")],
                              [(0, "0.large.1", "scored"), (1, "1.mayor.1", "scored")])
        self.assertEqual([(t.supply(0)["large"], t.supply(1)["mayor"])], [(1, 1)])

    def test_builder_gives_a_second_turn_and_pig_needs_a_farmer(self):
        # tests/scenarios/traders-03 and -04
        t = self.table(["ann", "bob"], expansions=["base", "traders-builders"], seed=5,
                       tiles=["BA/RFr", "BA/C", "BA/RFr", "BA/RFr", "BA/RFr", "BA/RFr"])
        t.play(place("BA/RFr", 1, 0, 0))
        t.refuse(deploy(1, 0, "W", "builder"), "illegal_move")   # no follower of seat 0 on the road yet
        t.refuse(deploy(1, 0, "NL", "pig"), "illegal_move")      # nor a farmer in the field
        t.play(deploy(1, 0, "E"), place("BA/C", 1, -1, 0), PASS, place("BA/RFr", 2, 0, 0))
        lm = t.legal()
        self.assertEqual([m for m in lm["moves"] if m["type"] == "deploy" and m["kind"] != "follower"],
                         [deploy(2, 0, "E", "builder")])
        t.refuse(deploy(2, 0, "NL", "builder"), "illegal_move")  # a builder on a field
        t.refuse(deploy(2, 0, "W", "pig"), "illegal_move")       # a pig on a road
        t.refuse(deploy(2, 0, "NL", "pig"), "illegal_move")      # no farmer of seat 0 there
        evs = t.send(deploy(2, 0, "W", "builder"))
        self.assertEqual(evs, [{"type": "deployed", "seat": 0, "figure": "0.builder.1", "kind": "builder",
                                "x": 2, "y": 0, "at": "E", "ports": ["E", "W"], "feature": "road"},
                               {"type": "turn", "seat": 1}, {"type": "tile_drawn", "seat": 1, "tile": "BA/RFr"}])
        self.assertEqual(t.supply(0), {"follower": 6, "builder": 0, "pig": 1})
        t.play(place("BA/RFr", -1, 0, 0), PASS)
        # seat 0 extends its builder's road: a second turn of the same seat
        res = t.play(place("BA/RFr", 3, 0, 0), PASS)
        self.assertEqual(res["events"], [{"type": "turn", "seat": 0}, {"type": "tile_drawn", "seat": 0, "tile": "BA/RFr"}])
        self.assertEqual((res["phase"], res["seat"]), ("tile", 0))
        t.play(place("BA/RFr", 4, 0, 0))
        # a farmer, then the pig beside it in the same field on the next tile
        self.assertIn(deploy(4, 0, "NL"), t.legal()["moves"])


class AbbeyFinalRound:
    def final_game(self, **options):
        t = self.table(["ann", "bob"], expansions=AM, tiles=FINAL_TILES, seed=5,
                       rules={"abbey_final_round": True}, **options)
        res = t.play(*FINAL_MOVES)
        self.assertEqual(res["events"], [{"type": "turn", "seat": 0}])
        self.assertEqual((res["phase"], res["seat"], res["over"]), ("abbey_final", 0, False))
        return t

    def test_each_seat_in_turn(self):
        t = self.final_game()
        self.assertEqual(t.decision(), ("abbey_final", 0))
        st = t.state()
        self.assertEqual((st["tile"], st["tiles_left"], st["over"]), (None, 0, False))
        self.assertEqual(t.legal()["moves"], [abbey(0, -1), PASS])
        self.assertEqual(t.legal(seat=1)["moves"], [])
        t.refuse(abbey(0, -1), "not_your_turn", token=t.tokens[1])
        t.refuse(PASS, "forbidden", token=t.g["admin_token"])
        for move in (DRAW, place("BA/C", 0, -1, 0), deploy(0, -1, "cloister"), wagon(0, -1, "cloister"),
                     abbey(0, 1), abbey(0, -2)):
            with self.subTest(move=move):
                t.refuse(move, "illegal_move")
        for move in (abbey(0, "-1"), abbey(0, None), abbey(0.5, -1), abbey(32768, -1), {"type": "place_abbey", "x": 0}):
            with self.subTest(move=move):
                t.refuse(move, "invalid_params")
        res = t.play(PASS)
        self.assertEqual(res["events"], [{"type": "turn", "seat": 1}])
        self.assertEqual(t.decision(), ("abbey_final", 1))
        self.assertEqual(t.legal(seat=0)["moves"], [])
        t.refuse(abbey(0, -1), "not_your_turn", token=t.tokens[0])
        evs = t.events(abbey(0, -1))
        self.assertEqual(evs, [{"type": "tile_placed", "seat": 1, "tile": "AM/A", "x": 0, "y": -1, "rot": 0}])
        self.assertEqual(t.decision(), ("action", 1))
        res = t.play(PASS)
        self.assertTrue(res["over"])
        self.assertEqual(res["events"][-1], {"type": "game_over", "scores": [4, 2]})
        self.assertEqual([s["supply"]["abbey"] for s in t.state()["seats"]], [1, 0])

    def test_without_a_hole_there_is_no_final_round(self):
        t = self.table(["ann", "bob"], expansions=AM, tiles=["BA/RFr", "BA/RFr"], seed=5,
                       rules={"abbey_final_round": True})
        res = t.play(place("BA/RFr", 1, 0, 0), PASS, place("BA/RFr", 2, 0, 0), PASS)
        self.assertEqual((res["phase"], res["seat"], res["over"]), ("over", None, True))
        self.assertFalse(of_type(res["events"], "turn"))


# ---- sections 2 and 5: what a game without an expansion says to its moves --------------------

class UnbuiltMoves:
    def check_all(self, t):
        for move in UNBUILT_MOVES:
            with self.subTest(phase=t.legal()["phase"], move=move["type"]):
                t.refuse(move, "illegal_move")

    def test_in_each_phase(self):
        t = self.table(["ann", "bob", "cy"], expansions=AM, tiles=WAGONS_TILES, seed=5)
        self.check_all(t)                                        # tile
        t.play(WAGONS_MOVES[0])
        self.check_all(t)                                        # action
        t.play(*WAGONS_MOVES[1:])
        self.assertEqual(t.decision(), ("wagon", 2))
        self.check_all(t)
        t = self.table(["ann", "bob"], expansions=["base", "cathars"], tiles=ESCAPE_TILES, seed=5)
        t.play(*ESCAPE_MOVES)
        self.assertEqual(t.decision(), ("escape", 0))
        self.check_all(t)
        t = self.table(["ann", "bob"], expansions=["base", "hills-sheep"], start=FLOCK_START, bag=[3, 2, 4],
                       tiles=["BA/RFr"] * 5, seed=5)
        t.play(*FLOCK_MOVES)
        self.assertEqual(t.decision(), ("flock", 0))
        self.check_all(t)
        t = self.table(["ann", "bob"], expansions=AM, tiles=FINAL_TILES, seed=5, rules={"abbey_final_round": True})
        t.play(*FINAL_MOVES)
        self.assertEqual(t.decision(), ("abbey_final", 0))
        self.check_all(t)


class BadFields:
    def barn_game(self):
        # tests/scenarios/am-07: (1,1) nw is the one corner for a barn
        t = self.table(["ann", "bob"], expansions=AM, seed=5,
                       tiles=["BA/RFr", "BA/CC.2", "BA/C", "BA/C", "BA/L", "BA/RFr"])
        t.play(place("BA/RFr", 1, 0, 0), PASS, place("BA/CC.2", 0, 1, 270), deploy(0, 1, "NL"), place("BA/C", 0, 2, 0),
               PASS, place("BA/C", -1, 1, 90), PASS, place("BA/L", 1, 1, 0))
        self.assertIn(deploy(1, 1, "nw", "barn"), t.legal()["moves"])
        return t

    def test_unknown_kind_or_port_is_named(self):
        """A deploy whose `kind` or `at` is no figure kind or port is told
        so, naming it, and not that the field is missing."""
        t = self.table(["ann"], tiles=["BA/RFr", "BA/RFr"], seed=5)
        t.play(place("BA/RFr", 1, 0, 0))
        self.assertIn("there is no figure kind `knight`", t.refuse(deploy(1, 0, "E", "knight"), "invalid_params"))
        self.assertIn("there is no port `XX`", t.refuse(deploy(1, 0, "XX"), "invalid_params"))
        self.assertIn("deploy needs `kind`", t.refuse({"type": "deploy", "x": 1, "y": 0, "at": "E"}, "invalid_params"))
        self.assertIn("deploy needs `at`", t.refuse({"type": "deploy", "x": 1, "y": 0, "kind": "follower"},
                                                    "invalid_params"))

    def test_barn_deploy(self):
        t = self.barn_game()
        for at in ("NW", "Nw", "nw ", " nw", "n", "northwest", "", 0, ["nw"], {"at": "nw"}, None, True):
            with self.subTest(at=at):
                t.refuse(deploy(1, 1, at, "barn"), "invalid_params")
        for kind in ("Barn", "BARN", "barns", "", "fairy", "count", "dragon", 8, None, ["barn"]):
            with self.subTest(kind=kind):
                t.refuse(deploy(1, 1, "nw", kind), "invalid_params")
        for at in ("ne", "se", "sw", "N", "cloister", "tower", "I"):
            with self.subTest(at=at):
                t.refuse(deploy(1, 1, at, "barn"), "illegal_move")
        for x, y in ((0, 0), (1, 0), (32767, 32767)):
            t.refuse(deploy(x, y, "nw", "barn"), "illegal_move")
        t.refuse(deploy(32768, 1, "nw", "barn"), "invalid_params")
        for move in UNBUILT_MOVES[:3]:
            t.refuse(move, "illegal_move")
        evs = t.events(deploy(1, 1, "nw", "barn"))
        self.assertEqual(evs[0]["figure"], "0.barn.1")

    def test_escape_figures(self):
        t = self.table(["ann", "bob"], expansions=["base", "cathars"], tiles=ESCAPE_TILES, seed=5)
        t.play(*ESCAPE_MOVES)
        # figures no seat of this two-seat game has, and ids that are no ids
        for figure in ("0.follower.0", "0.follower.8", "0.follower.99999999999", "2.follower.1", "6.follower.1",
                       "-1.follower.1", "0.dragon.1", "0.Follower.1", "0.follower.1 ", "0.follower.1.",
                       "0.follower.1.0", "0.follower.1e0", "0.follower.0x1", "0.follower.1\n", "", "0", "follower"):
            with self.subTest(figure=figure):
                t.refuse(escape(figure), "invalid_params")
        for figure in (1, 0.5, True, ["0.follower.1"], None):
            with self.subTest(figure=figure):
                t.refuse(escape(figure), "invalid_params")
        # ids of real figures that may not escape
        for figure in ("0.follower.2", "0.follower.3", "1.follower.1", "1.follower.7"):
            with self.subTest(figure=figure):
                t.refuse(escape(figure), "illegal_move")
        t.refuse(escape("0.follower.1"), "not_your_turn", token=t.tokens[1])
        t.refuse(escape("0.follower.1"), "forbidden", token=t.g["admin_token"])
        t.refuse(escape("0.follower.1"), "forbidden", token=None)


# ---- points where the daemon once read the contract otherwise ----------------------------------

class ContractReadings(OverBoth, unittest.TestCase):
    def test_move_wagon_names_its_feature_by_any_tile_it_covers(self):
        """Section 3: "A feature on the board is addressed by (x, y, at): any
        tile it covers and any port it touches there."  Seat 0's wagon may go
        onto the road (1,0) E - (2,0); named through (2,0) it is the same move."""
        t = self.table(["ann", "bob", "cy"], expansions=AM, tiles=WAGONS_TILES, seed=5)
        t.play(*WAGONS_MOVES, wagon(-1, 0, "W"))
        self.assertIn(wagon(1, 0, "E"), t.legal()["moves"])
        try:
            evs = t.send(wagon(2, 0, "W"))
        except carcd.Error as e:
            self.fail("refused: %s" % e)
        self.assertEqual(evs[0]["figure"], "0.wagon.1")
        # played as listed: the same events and state as the listed move
        u = self.table(["ann", "bob", "cy"], expansions=AM, tiles=WAGONS_TILES, seed=5)
        u.play(*WAGONS_MOVES, wagon(-1, 0, "W"))
        self.assertEqual(u.send(wagon(1, 0, "E")), evs)
        mine = lambda st: {k: v for k, v in st.items() if k not in ("game", "seed_sha256")}
        self.assertEqual(mine(u.state()), mine(t.state()))
        # a port the feature does not touch on that tile, or a tile it does not cover, is refused
        v = self.table(["ann", "bob", "cy"], expansions=AM, tiles=WAGONS_TILES, seed=5)
        v.play(*WAGONS_MOVES, wagon(-1, 0, "W"))
        for x, y, at in ((2, 0, "N"), (3, 0, "W"), (0, 0, "E")):
            with self.subTest(x=x, y=y, at=at):
                v.refuse(wagon(x, y, at), "illegal_move")

    def test_a_listed_wagon_move_plays_on_its_own_tile(self):
        """Section 5: each listed move is "ready to be sent back unchanged".
        Under wagon_move adjacent-tiles the road (1,0) E - (2,0) is listed
        on both of its tiles, and where the wagon stands matters (the reach
        of its next move, a hill in a tie): the move listed on (2,0) puts
        the wagon on (2,0), not on the tile listed first."""
        t = self.table(["ann", "bob", "cy"], expansions=AM, tiles=WAGONS_TILES, seed=5,
                       rules={"wagon_move": "adjacent-tiles"})
        t.play(*WAGONS_MOVES, wagon(-1, 0, "W"))
        moves = t.legal()["moves"]
        self.assertIn(wagon(1, 0, "E"), moves)
        self.assertIn(wagon(2, 0, "E"), moves)
        evs = t.events(wagon(2, 0, "E"))
        self.assertEqual(evs[0], {"type": "deployed", "seat": 0, "figure": "0.wagon.1", "kind": "wagon",
                                  "x": 2, "y": 0, "at": "E", "ports": ["E", "W"], "feature": "road"})
        on = {(b["x"], b["y"]): [f["id"] for f in b["figures"]] for b in t.state()["board"]}
        self.assertEqual((on[(1, 0)], on[(2, 0)]), ([], ["0.wagon.1"]))

    def test_a_figure_id_is_written_one_way(self):
        """Section 3: ids are `<seat>.<kind>.<n>`, "fixed for the whole game";
        a string that is not such an id names no figure (invalid_params, as
        "0.follower.01x" is)."""
        accepted = []
        for figure in ("0.follower.01", "00.follower.1", "+0.follower.1", " 0.follower.1", "0.follower.+1",
                       "0.follower. 1"):
            t = self.table(["ann", "bob"], expansions=["base", "cathars"], tiles=ESCAPE_TILES, seed=5)
            t.play(*ESCAPE_MOVES)
            try:
                self.c.apply_move(t.game, escape(figure), token=t.tokens[0])
                accepted.append(figure)
            except carcd.Error as e:
                if e.code != "invalid_params":
                    accepted.append((figure, e.code))
        self.assertEqual(accepted, [])

    def test_the_abbey_in_supply_whatever_brought_it(self):
        """Section 4.1: a component is in play by its expansion or by
        `components`, the same either way; the page is silent on how `supply`
        shows a used abbey, so a client expects one rule (proto/PROTOCOL.md:
        supply lists what the seat has in this game, with how many are not on
        the board).  A used abbey stays `abbey: 0` when `components` alone
        brought it, and a switched-off one is not shown."""
        t = self.table(["ann", "bob"], components={"abbey": True}, tiles=ABBEY_TILES, seed=5)
        t.play(*ABBEY_MOVES, abbey(0, -1))
        self.assertEqual(t.supply(0), {"follower": 6, "abbey": 0})
        t = self.table(["ann"], expansions=AM, components={"abbey": False})
        self.assertNotIn("abbey", t.supply(0))

    def test_a_barn_at_the_wrong_corner_is_told_why(self):
        """Section 2: illegal_move's "`message` says why, in words a player
        understands".  A barn sent to a corner where no four tiles meet is
        told so, not that no figure may be deployed on a tile legal_moves
        offers a follower, a wagon and a barn for."""
        t = BadFields.barn_game(self)
        message = t.refuse(deploy(1, 1, "ne", "barn"), "illegal_move")
        self.assertNotIn("no figure may be deployed on this tile", message)
        self.assertIn("ne", message)
        self.assertIn("four tiles meet", message)
        self.assertIn(t.data["reason"], ("barn_no_tile", "barn_split"))
        self.assertIn("(%d,%d)" % (t.data["x"], t.data["y"]), message)
        # and a farmer sent into the barn's farm is told of the barn, and where it stands
        t.play(deploy(1, 1, "nw", "barn"), place("BA/RFr", 2, 1, 90))
        self.assertEqual(t.refuse(deploy(2, 1, "NL"), "illegal_move", reason="farm_has_barn"),
                         "a follower may not stand at NL of (2,1): no more farmers may join a farm that has a barn, "
                         "and the barn at (1,1) stands in this one")
        self.assertEqual(t.data, {"reason": "farm_has_barn", "x": 1, "y": 1})

    def test_a_second_shepherd_in_a_farm_is_told_why(self):
        """Section 2's illegal_move message, RULES.md 2.13: a shepherd goes
        into a field "that has no shepherd".  Seat 1's tile extends the farm
        of seat 0's shepherd: legal_moves offers seat 1 a farmer there but
        no shepherd, and a shepherd sent there anyway is told the rule, not
        that no figure may be deployed on the tile."""
        t = self.table(["ann", "bob"], expansions=["base", "hills-sheep"], start=FLOCK_START, bag=[3, 2, 4],
                       tiles=["BA/RFr"] * 3, seed=5)
        t.play(place("BA/RFr", -1, 0, 0), deploy(-1, 0, "ER", "shepherd"), place("BA/RFr", 0, 1, 0))
        moves = t.legal()["moves"]
        self.assertIn(deploy(0, 1, "NL"), moves)
        self.assertNotIn(deploy(0, 1, "NL", "shepherd"), moves)
        self.assertIn(deploy(0, 1, "ER", "shepherd"), moves)  # the farm south of the road has none
        self.assertEqual(t.refuse(deploy(0, 1, "NL", "shepherd"), "illegal_move", reason="farm_has_shepherd"),
                         "a shepherd may not stand at NL of (0,1): a shepherd goes only into a farm where no shepherd "
                         "stands, and the shepherd at (-1,0) stands in this one")
        self.assertEqual(t.data, {"reason": "farm_has_shepherd", "x": -1, "y": 0})


# ---- the two encodings alike -----------------------------------------------------------------

# Moves tried (and refused) before each move of the script: the move types
# of the expansions that are not open in most phases, and malformed ones.
TRIED = [{"type": "move_dragon", "x": 0, "y": 0}, DRAW, abbey(0, -1), wagon(-1, 0, "W"), flock("expand"),
         escape("0.follower.1"), escape("0.follower.01x"), wagon(0, 0, "XX"), flock("fly"), abbey(0, "0")]
OPEN_IN = {"wagon": "move_wagon", "flock": "flock", "escape": "escape", "abbey_final": "place_abbey",
           "tile": "draw"}


def script_transcript(client):
    """Play crafted expansion games through client and write down every
    answer: results, and errors as (code, message), with game ids, the seed
    commitment and the salt taken out.  The same script over either
    encoding must read the same."""
    out = []

    def note(game, x):
        text = json.dumps(x, sort_keys=True)
        text = re.sub(r'"seed_sha256": "[0-9a-f]{64}"', '"seed_sha256": "H"', text)
        text = re.sub(r'"salt": "[0-9a-f]{32}"', '"salt": "S"', text)
        out.append(text.replace('"game": %d' % game, '"game": "G"'))

    def run(players, moves, **options):
        g = client.new_game(players, **options)
        game = g["game"]
        tokens = [s["token"] for s in g["seats"]]
        note(game, g["state"])
        for move in moves:
            lm = client.legal_moves(game)
            note(game, lm)
            for bad in TRIED:
                if bad["type"] == OPEN_IN.get(lm["phase"]) or bad == abbey(0, -1):
                    continue    # might be legal
                try:
                    client.apply_move(game, bad, token=tokens[lm["seat"]])
                    note(game, {"accepted": bad})
                except carcd.Error as e:
                    note(game, {"code": e.code, "message": e.message})
            note(game, client.apply_move(game, move, token=tokens[lm["seat"]], seq=lm["seq"]))
            note(game, client.state(game))
        note(game, client.score(game))
        note(game, client.history(game))

    run(["ann", "bob", "cy"], WAGONS_MOVES + [wagon(-1, 0, "W"), PASS, place("BA/RFr", 3, 0, 0), PASS],
        expansions=AM, tiles=WAGONS_TILES, seed=5)
    run(["ann", "bob"], ESCAPE_MOVES + [escape("0.follower.1"), place("BA/RFr", -1, 0, 0), PASS],
        expansions=["base", "cathars"], tiles=ESCAPE_TILES, seed=5)
    run(["ann", "bob"], FLOCK_MOVES + [flock("expand"), place("BA/RFr", 4, 0, 0), PASS, flock("gather")],
        expansions=["base", "hills-sheep"], start=FLOCK_START, bag=[3, 2, 4, "wolf"], tiles=["BA/RFr"] * 6, seed=5)
    run(["ann", "bob"], FINAL_MOVES + [PASS, abbey(0, -1), deploy(0, -1, "cloister")],
        expansions=AM, tiles=FINAL_TILES, seed=5, rules={"abbey_final_round": True})
    return out


class BothEncodings(unittest.TestCase):
    def test_the_same_script_gets_the_same_answers(self):
        with daemon["d"].client("unix", "msgpack") as m, daemon["d"].client("tcp", "json") as j:
            a, b = script_transcript(m), script_transcript(j)
        self.assertGreater(len(a), 200)
        self.assertEqual(len(a), len(b))
        for i, (x, y) in enumerate(zip(a, b)):
            self.assertEqual(x, y, "answer %d" % i)


class ReasonData:
    """PROTOCOL.md, "Why a move is illegal": each reason that is not a
    rule's condition, the whole `data` of one move that gets it, place and
    edge included, as apply_move sends it and as legal_moves' `why` says it."""

    def refused(self, t, move, data):
        t.refuse(move, "illegal_move", reason=data["reason"])
        self.assertEqual(t.data, data, move)
        self.assertEqual(t.c.legal_moves(t.game, move=move)["why"]["data"], data, move)

    def test_a_placement(self):
        t = self.table(["ann", "bob"], tiles=["BA/LR", "BA/RFr"], seed=5)
        self.refused(t, place("BA/RFr", 1, 0, 0), {"reason": "not_the_drawn_tile"})
        self.refused(t, place("BA/LR", 0, 0, 0), {"reason": "place_taken"})
        self.refused(t, place("BA/LR", 5, 5, 0), {"reason": "not_adjacent"})
        # the south edge of BA/LR, a road, against the city on the start tile's north edge
        self.refused(t, place("BA/LR", 0, -1, 0), {"reason": "edge_mismatch", "x": 0, "y": 0, "at": "N"})
        # its east edge (a field) against the road on the start tile's west edge
        self.refused(t, place("BA/LR", -1, 0, 90), {"reason": "edge_mismatch", "x": 0, "y": 0, "at": "W"})
        self.refused(t, deploy(0, 0, "E"), {"reason": "not_open_now"})
        self.refused(t, wagon(0, 0, "E"), {"reason": "not_in_this_game"})
        self.refused(t, {"type": "ransom"}, {"reason": "not_in_this_game"})

    def test_a_deploy(self):
        t = self.table(["ann", "bob"], tiles=["BA/RFr", "BA/RFr"], seed=5)
        t.play(place("BA/RFr", 1, 0, 0))
        self.refused(t, deploy(0, 0, "E"), {"reason": "not_tile_just_placed", "x": 1, "y": 0})
        self.refused(t, deploy(1, 0, "cloister"), {"reason": "nothing_there"})
        self.refused(t, deploy(1, 0, "E", "builder"), {"reason": "not_in_this_game"})
        self.refused(t, place("BA/RFr", 2, 0, 0), {"reason": "not_open_now"})
        t.play(deploy(1, 0, "E"), place("BA/RFr", 2, 0, 0))
        self.refused(t, deploy(2, 0, "W"), {"reason": "feature_occupied"})

    def test_a_figure(self):
        t = self.table(["ann", "bob"], expansions=["base", "inns-cathedrals"], tiles=["BA/RFr"] * 3, seed=5)
        t.play(place("BA/RFr", 1, 0, 0), deploy(1, 0, "E", "large"), place("BA/RFr", -1, 0, 0), PASS,
               place("BA/RFr", 2, 0, 0))
        self.refused(t, deploy(2, 0, "NL", "large"), {"reason": "no_figure_left"})
        t = self.table(["ann", "bob"], tiles=["BA/RFr"], rules={"farmers": False}, seed=5)
        t.play(place("BA/RFr", 1, 0, 0))
        self.refused(t, deploy(1, 0, "NL"), {"reason": "figure_kind"})


class ReasonTable(unittest.TestCase):
    """The reasons PROTOCOL.md lists are exactly those carcd can send: the
    library's names for a rule's conditions (engine/names.c, but for
    `none` and `volcano_lake`, which never reach the wire) and
    move_reason's own (proto/game.c, proto/proto.h)."""

    def test_the_table_is_the_code(self):
        def read(*path):
            with open(os.path.join(harness.TOP_SRCDIR, *path), encoding="utf-8") as f:
                return f.read()
        names = read("engine", "names.c")
        table = names.split("refusals[CARC_RF_COUNT] = {", 1)[1].split("};", 1)[0]
        library = set(re.findall(r'"([a-z_]+)"', table)) - {"none", "volcano_lake"}
        game = read("proto", "game.c")
        body = game.split("static proto_val *move_reason(", 1)[1].split("\n}\n", 1)[0]
        own = set(re.findall(r'"([a-z_]+)"', body)) - {"reason", "x", "y", "at"}
        own |= set(re.findall(r'#define PROTO_REASON_\w+ "([a-z_]+)"', read("proto", "proto.h")))
        self.assertIn("not_in_this_game", own)
        self.assertGreater(len(library), 25)
        self.assertEqual(REASONS, library | own)


# ---- each group over MessagePack on the Unix socket and JSON lines over TCP --------------------

GROUPS = (Components, Wagons, Figures, AbbeyFinalRound, UnbuiltMoves, BadFields, ReasonData)
register_over_both(globals(), GROUPS, OverBoth)


if __name__ == "__main__":
    unittest.main()
