"""A feature a tile holds in two parts (proto/PROTOCOL.md section 3).

A tile's two parts of one kind can be one feature once they meet off the
tile: a straight road's two fields, once the road ends nearby so that the
farm runs round its end.  legal_moves then lists a deploy into that
feature once, at its first part; a move may name either part and plays
the same; a figure is named by the part it stands on, so its name stays
what it was; and a completed or scored feature is named whole, with the
ports of both parts.

The game: the start tile BA/RCr (road W-E, city N); seat 0 places BA/LR
at (1,0) turned 90, whose road comes in from the west and ends at its
cloister, so the start tile's north and south fields become one farm
round that end.  Seat 1 places the straight road BA/RFr at (-1,0): its
north field (first port NL) and its south field (ports ER SL SR WL) both
join that farm."""

import unittest

import harness
from crafted import PASS, deploy, of_type, over_both, place, register_over_both

daemon, setUpModule, tearDownModule = harness.module_daemon()
OverBoth = over_both(daemon)

TILES = ["BA/LR", "BA/RFr", "BA/RFr"]


def deploys(lm):
    return sorted((m["kind"], m["at"]) for m in lm["moves"] if m["type"] == "deploy")


class Parts:
    def game(self):
        t = self.table(["ann", "bob"], tiles=TILES, seed=5)
        t.play(place("BA/LR", 1, 0, 90), PASS, place("BA/RFr", -1, 0, 0))
        return t

    def test_the_farm_is_listed_once(self):
        t = self.game()
        lm = t.legal()
        self.assertEqual((lm["phase"], lm["seat"]), ("action", 1))
        # the road (at E, its first port) and the farm at its first part; not the south part too
        self.assertEqual(deploys(lm), [("follower", "E"), ("follower", "NL")])

    def test_either_part_plays_the_same(self):
        a, b = self.game(), self.game()
        ea = a.events(deploy(-1, 0, "NL"))
        eb = b.send(deploy(-1, 0, "SL"))   # the south part: not listed as it is written
        self.assertEqual(ea, eb)
        dep = of_type(ea, "deployed")
        self.assertEqual(len(dep), 1)
        self.assertEqual((dep[0]["x"], dep[0]["y"], dep[0]["at"], dep[0]["feature"]), (-1, 0, "NL", "field"))
        sa, sb = a.state(), b.state()
        for key in ("game", "seed_sha256"):   # each game's own
            sa.pop(key)
            sb.pop(key)
        self.assertEqual(sa, sb)

    def test_the_farm_is_taken_by_either_part(self):
        t = self.game()
        t.play(deploy(-1, 0, "NL"))
        # seat 0's straight road at (-2,0) joins both its fields to the same farm
        t.play(place("BA/RFr", -2, 0, 0))
        lm = t.legal()
        self.assertEqual(deploys(lm), [("follower", "E")])
        for at in ("NL", "SL"):
            self.assertIn("already occupied", t.refuse(deploy(-2, 0, at), "illegal_move"))


    def test_turned_the_farm_is_listed_at_its_first_port(self):
        # BA/RFr turned 180: the tile's first part (its own north field) now
        # lies south and first touches ER; the other lies north, at NL,
        # which comes first in canonical order, so the farm is named there
        t = self.table(["ann", "bob"], tiles=TILES, seed=5)
        t.play(place("BA/LR", 1, 0, 90), PASS, place("BA/RFr", -1, 0, 180))
        self.assertEqual(deploys(t.legal()), [("follower", "E"), ("follower", "NL")])
        dep = of_type(t.send(deploy(-1, 0, "ER")), "deployed")[0]
        self.assertEqual((dep["at"], dep["ports"]), ("NL", ["NL", "NR", "EL", "WR"]))

    def test_a_figure_is_named_by_its_part(self):
        t = self.game()
        dep = of_type(t.events(deploy(-1, 0, "NL")), "deployed")[0]
        self.assertEqual((dep["at"], dep["ports"]), ("NL", ["NL", "NR", "EL", "WR"]))
        tile = [b for b in t.state()["board"] if (b["x"], b["y"]) == (-1, 0)][0]
        (fig,) = tile["figures"]
        self.assertEqual((fig["at"], fig["ports"], fig["feature"]), ("NL", ["NL", "NR", "EL", "WR"], "field"))


# A road that comes back to its own junction: the start tiles are the
# junction BA/RRR at (1,0) and two curves round (2,0)-(2,1); the curve the
# seat places at (1,1) closes the loop, which runs through both the E and
# the S road of the junction.
LOOP_START = [{"tile": "BA/RRR", "x": 1, "y": 0, "rot": 0}, {"tile": "BA/Rr", "x": 2, "y": 0, "rot": 0},
              {"tile": "BA/Rr", "x": 2, "y": 1, "rot": 90}]


class Loop:
    def test_a_completed_feature_is_named_whole(self):
        t = self.table(["ann"], start=LOOP_START, tiles=["BA/Rr"], seed=5)
        t.play(place("BA/Rr", 1, 1, 180))
        ev = t.events(deploy(1, 1, "N"))
        dep = of_type(ev, "deployed")[0]
        self.assertEqual((dep["x"], dep["y"], dep["at"], dep["ports"]), (1, 1, "N", ["N", "E"]))
        done, scored = of_type(ev, "feature_completed"), of_type(ev, "scored")
        self.assertEqual(len(done), 1)
        self.assertEqual(len(scored), 1)
        # PROTOCOL.md 3: the feature's first port on that tile and all its ports there
        self.assertEqual((done[0]["x"], done[0]["y"], done[0]["at"], done[0]["ports"], done[0]["tiles"]),
                         (1, 0, "E", ["E", "S"], 4))
        self.assertEqual((scored[0]["x"], scored[0]["y"], scored[0]["at"], scored[0]["ports"], scored[0]["points"]),
                         (1, 0, "E", ["E", "S"], 4))


register_over_both(globals(), (Parts, Loop), OverBoth)

if __name__ == "__main__":
    unittest.main()
