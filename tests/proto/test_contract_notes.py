"""What proto/PROTOCOL.md says, beyond the contract, about reading a game
from its events alone (sections 5 and 6 of the contract): a wagon that
scores and moves, tiles that fit nowhere and what `tiles_left` makes of
them, where `sheep_drawn` puts the sheep, one `token_taken` per goods
token, and which tile names a completed feature.  A client that rebuilds the game from events relies on each; these
tests keep the page and the daemon in step.  Each is played over
MessagePack on the Unix socket and over JSON lines on TCP."""

import unittest

import harness
from crafted import (FLOCK_MOVES, FLOCK_START, PASS, WAGON_MOVES, WAGON_TILES, deploy, flock, of_type,
                     over_both, place, wagon)

daemon, setUpModule, tearDownModule = harness.module_daemon()

# A start tile with a city on every side, and a tile with a road on every
# side: the roads fit nowhere next to it.  Plain base tiles, so that what
# is tested is the draw and not a placement rule of an expansion.
ALL_CITY = [{"tile": "BA/Cccc+", "x": 0, "y": 0, "rot": 0}]
ALL_ROAD = "BA/RRRR"


def figures_on_board(state):
    return {f["id"]: (tile["x"], tile["y"], f["at"]) for tile in state["board"] for f in tile["figures"]}


def figures_from_events(events):
    """Where each figure stands, from `deployed` and `returned` alone."""
    where = {}
    for e in events:
        if e["type"] == "deployed":
            where[e["figure"]] = (e["x"], e["y"], e["at"])
        elif e["type"] == "returned":
            del where[e["figure"]]
    return where


class Notes(over_both(daemon)):
    def history_events(self, t):
        return harness.history_events(self.c.history(t.game))

    # ---- a: a wagon is returned when its feature scores, deployed when it moves ----

    def test_a_moved_wagon_is_returned_then_deployed(self):
        t = self.table(["ann", "bob"], expansions=["base", "abbey-mayor"], tiles=WAGON_TILES, seed=5)
        res = t.play(*WAGON_MOVES)
        self.assertEqual(of_type(res["events"], "returned"),
                         [{"type": "returned", "seat": 0, "figure": "0.wagon.1", "why": "scored"}])
        self.assertEqual((res["phase"], res["seat"]), ("wagon", 0))
        # in the wagon phase the wagon is in its owner's supply, not on the board
        st = t.state()
        self.assertEqual(st["seats"][0]["supply"]["wagon"], 1)
        self.assertNotIn("0.wagon.1", figures_on_board(st))
        self.assertEqual(figures_from_events(self.history_events(t)), figures_on_board(st))
        evs = t.events(wagon(-1, 0, "cloister"))
        self.assertEqual(evs[0], {"type": "deployed", "seat": 0, "figure": "0.wagon.1", "kind": "wagon",
                                  "x": -1, "y": 0, "at": "cloister", "ports": ["cloister"], "feature": "cloister"})
        st = t.state()
        self.assertEqual(st["seats"][0]["supply"]["wagon"], 0)
        self.assertEqual(figures_on_board(st)["0.wagon.1"], (-1, 0, "cloister"))
        self.assertEqual(figures_from_events(self.history_events(t)), figures_on_board(st))

    def test_a_wagon_not_moved_stays_in_the_supply(self):
        t = self.table(["ann", "bob"], expansions=["base", "abbey-mayor"], tiles=WAGON_TILES, seed=5)
        t.play(*WAGON_MOVES)
        evs = t.events(PASS)
        self.assertEqual(of_type(evs, "deployed", "returned"), [])
        st = t.state()
        self.assertEqual(st["seats"][0]["supply"]["wagon"], 1)
        self.assertEqual(figures_from_events(self.history_events(t)), figures_on_board(st))

    # ---- b: tiles that fit nowhere --------------------------------------------------

    def unplaceable(self, mode):
        """Seat 1's draw, the road tile, fits nowhere; the city tile after it does."""
        t = self.table(["ann", "bob"], start=ALL_CITY, tiles=["BA/C", ALL_ROAD, "BA/C"], seed=1,
                       rules={"unplaceable_tile": mode})
        self.assertEqual(t.state()["tiles_left"], 2)
        res = t.play(place("BA/C", 0, -1, 180), PASS)
        return t, res

    @staticmethod
    def road_then_city(why):
        """Seat 1's turn in `unplaceable`: the road tile drawn and put aside (`why`), the city tile drawn."""
        return [{"type": "turn", "seat": 1},
                {"type": "tile_drawn", "seat": 1, "tile": ALL_ROAD},
                {"type": "tile_discarded", "tile": ALL_ROAD, "why": why},
                {"type": "tile_drawn", "seat": 1, "tile": "BA/C"}]

    def test_an_unplaceable_tile_is_discarded_and_the_next_drawn(self):
        t, res = self.unplaceable("discard")
        self.assertEqual(res["events"], self.road_then_city("unplaceable"))
        st = t.state()
        self.assertEqual(st["tile"], {"id": "BA/C", "drawn_by": 1})
        self.assertEqual(st["tiles_left"], 0)          # the discarded tile went out when drawn

    def test_a_reshuffled_tile_goes_back_once(self):
        t, res = self.unplaceable("reshuffle")
        self.assertEqual(res["events"], self.road_then_city("reshuffled"))
        self.assertEqual(t.state()["tiles_left"], 1)   # put back: one more than with a discard
        # drawn again and still unplaceable, it goes for good; no tile is
        # left, so the game ends after seat 0's `turn`
        res = t.play(place("BA/C", 0, 1, 0), PASS)
        evs = res["events"]
        self.assertEqual(evs[:3], [{"type": "turn", "seat": 0},
                                   {"type": "tile_drawn", "seat": 0, "tile": ALL_ROAD},
                                   {"type": "tile_discarded", "tile": ALL_ROAD, "why": "unplaceable"}])
        self.assertEqual([e["type"] for e in evs[3:]], ["game_over"])
        self.assertTrue(res["over"])
        self.assertEqual(t.state()["tiles_left"], 0)

    def test_a_discard_at_the_first_draw_is_only_in_history(self):
        for mode, why, left in (("discard", "unplaceable", 0), ("reshuffle", "reshuffled", 1)):
            with self.subTest(mode=mode):
                t = self.table(["ann", "bob"], start=ALL_CITY, tiles=[ALL_ROAD, "BA/C"], seed=1,
                               rules={"unplaceable_tile": mode})
                self.assertNotIn("events", t.g)
                self.assertEqual(t.g["state"]["tile"], {"id": "BA/C", "drawn_by": 0})
                self.assertEqual(t.g["state"]["tiles_left"], left)
                h = self.c.history(t.game)
                self.assertEqual(h["events"], [
                    {"type": "tile_placed", "seat": None, "tile": "BA/Cccc+", "x": 0, "y": 0, "rot": 0, "seq": 0},
                    {"type": "turn", "seat": 0, "seq": 0},
                    {"type": "tile_drawn", "seat": 0, "tile": ALL_ROAD, "seq": 0},
                    {"type": "tile_discarded", "tile": ALL_ROAD, "why": why, "seq": 0},
                    {"type": "tile_drawn", "seat": 0, "tile": "BA/C", "seq": 0}])

    # ---- c: sheep_drawn names the shepherd's tile ---------------------------------------

    def test_sheep_are_drawn_at_the_shepherds_tile(self):
        # tests/scenarios/hills-09: seat 0's tile at (1,0) joins the farms
        # of both shepherds; its `expand` draws for its own shepherd at (-1,0)
        t = self.table(["ann", "bob"], expansions=["base", "hills-sheep"], start=FLOCK_START, bag=[2, 3, 4, 1],
                       tiles=["BA/RFr"] * 6, seed=5)
        evs = t.events(*FLOCK_MOVES[:4])
        self.assertEqual(of_type(evs, "sheep_drawn"), [{"type": "sheep_drawn", "seat": 1, "x": 3, "y": 0, "token": 3}])
        self.assertEqual(FLOCK_MOVES[4:], [place("BA/RFr", 1, 0, 0), PASS])
        res = t.play(*FLOCK_MOVES[4:])
        self.assertEqual((res["phase"], res["seat"]), ("flock", 0))
        evs = t.events(flock("expand"))
        self.assertEqual(of_type(evs, "sheep_drawn"), [{"type": "sheep_drawn", "seat": 0, "x": -1, "y": 0, "token": 4}])
        # each shepherd keeps its own sheep in the joined farm; a client
        # finds them from `deployed` and `sheep_drawn` alone
        shepherds, sheep = {}, {}
        for e in self.history_events(t):
            if e["type"] == "deployed" and e["kind"] == "shepherd":
                shepherds[(e["seat"], e["x"], e["y"])] = e["figure"]
            elif e["type"] == "sheep_drawn":
                fig = shepherds[(e["seat"], e["x"], e["y"])]
                sheep[fig] = sorted(sheep.get(fig, []) + [e["token"]])
        self.assertEqual(sheep, {"0.shepherd.1": [2, 4], "1.shepherd.1": [3]})
        on_board = {f["id"]: f["sheep"] for tile in t.state()["board"] for f in tile["figures"]}
        self.assertEqual(on_board, sheep)

    # ---- d: one token_taken per goods token ----------------------------------------------

    def test_a_city_with_two_cloth_gives_two_tokens(self):
        # a city of four tiles, two of them with cloth: seat 0's tile closes it
        t = self.table(["ann", "bob"], expansions=["base", "traders-builders"],
                       start=[{"tile": "BA/C", "x": 0, "y": 0, "rot": 90}],
                       tiles=["TB/CCc.c", "TB/CcR.c", "BA/C", "BA/C"], seed=5)
        t.play(place("TB/CCc.c", 1, 0, 0), PASS, place("TB/CcR.c", 2, 0, 270), deploy(2, 0, "S"))
        evs = t.events(place("BA/C", 2, 1, 0), PASS)
        self.assertEqual(of_type(evs, "feature_completed")[0]["tiles"], 4)
        self.assertEqual(of_type(evs, "token_taken"), [{"type": "token_taken", "seat": 0, "token": "cloth"}] * 2)
        self.assertEqual([s["tokens"] for s in t.state()["seats"]], [{"cloth": 2}, {}])

    # ---- e: where an event names a whole feature ----------------------------------------

    def test_a_feature_is_named_at_its_tile_placed_first(self):
        # two junctions: ann's at (0,1), below the start tile, then bob's
        # at (-1,1), which closes the road between them.  The road is named
        # at ann's tile: placed first, though neither the tile just placed
        # nor the one west or north of the other
        t = self.table(["ann", "bob"], tiles=["BA/RRR", "BA/RRR"], seed=5)
        t.play(place("BA/RRR", 0, 1, 0), deploy(0, 1, "W"))
        evs = t.events(place("BA/RRR", -1, 1, 180), PASS)
        (done,) = of_type(evs, "feature_completed")
        (scored,) = of_type(evs, "scored")
        self.assertEqual((done["feature"], done["x"], done["y"], done["at"], done["tiles"]), ("road", 0, 1, "W", 2))
        self.assertEqual((scored["seat"], scored["points"], scored["x"], scored["y"], scored["at"]), (0, 2, 0, 1, "W"))


for _transport, _encoding in (("unix", "msgpack"), ("tcp", "json")):
    _name = "Notes_%s" % _encoding.capitalize()
    globals()[_name] = type(_name, (Notes, unittest.TestCase), {"TRANSPORT": _transport, "ENCODING": _encoding})
del _transport, _encoding, _name


if __name__ == "__main__":
    unittest.main()
