"""A feature a tile holds in two parts (proto/PROTOCOL.md section 3).

A tile's two parts of one kind can be one feature once they meet off the
tile: a straight road's two fields, once the road ends nearby so that the
farm runs round its end.  legal_moves then lists a deploy into that
feature once, at its first part; a move may name either part and plays
the same; and the names the server gives stay what they were.

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


register_over_both(globals(), (Parts,), OverBoth)

if __name__ == "__main__":
    unittest.main()
