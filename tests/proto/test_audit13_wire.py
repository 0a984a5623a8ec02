"""What an outside client written from the contract found, and what now holds.

A thirteenth review read the contract (shared design/PROTOCOL.md) and the
project's proto/PROTOCOL.md and probed the daemon in both encodings.  Pinned
here: a key given twice in `rules` or `components` (the last counts in both
encodings), the reason given when a placement rule refuses the abbey, the
state's tile through the rest of the turn (as the contract's example shows
it in the action phase), `games {}` listing every game, the abbey as a start
tile, and the `seq` of `game_closed`.
"""

import json
import unittest

import msgpack

import harness
from crafted import Table, deploy, error_of, place, tile


def msgpack_new_game(key, pairs):
    """new_game {players: ["a"], key: {pairs...}} as MessagePack bytes, the
    inner map written by hand so that a key may go out twice."""
    inner = bytes([0x80 | len(pairs)]) + b"".join(msgpack.packb(k) + msgpack.packb(v) for k, v in pairs)
    params = b"\x82" + msgpack.packb("players") + msgpack.packb(["a"]) + msgpack.packb(key) + inner
    return b"\x94\x00\x01" + msgpack.packb("new_game") + params


def json_new_game(key, pairs):
    body = "{" + ",".join("%s:%s" % (json.dumps(k), json.dumps(v)) for k, v in pairs) + "}"
    return 'new_game {"players":["a"],%s:%s}' % (json.dumps(key), body)


class Audit13(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.d = harness.Daemon().__enter__()
        cls.c = cls.d.client()

    @classmethod
    def tearDownClass(cls):
        cls.c.close()
        cls.d.__exit__(None, None, None)

    def both_encodings(self, key, pairs):
        """The reply to new_game with that map, over MessagePack and over
        JSON lines: (error code or None, the game's seat 0 state)."""
        out = []
        for mode in ("msgpack", "json"):
            with self.d.raw() as r:
                if mode == "msgpack":
                    r.send(msgpack_new_game(key, pairs))
                else:
                    r.send_line(json_new_game(key, pairs))
                reply = r.read_one(mode)
            self.assertIsNotNone(reply, (mode, key, pairs))
            err, res = reply[2], reply[3]
            out.append((err["code"] if err else None,
                        None if err else (res["state"]["seats"][0]["supply"], self.c.call("history", {"game": res["game"]})["setup"][key])))
        return out

    def test_a_key_twice_the_last_counts_in_both_encodings(self):
        # an earlier bad value given again, good: the good one counts
        mp, js = self.both_encodings("rules", [("farmers", "bad"), ("farmers", False)])
        self.assertEqual(mp, js)
        self.assertIsNone(mp[0])
        self.assertIs(mp[1][1]["farmers"], False)
        # an earlier good value given again, bad: refused in both
        mp, js = self.both_encodings("rules", [("farmers", False), ("farmers", "bad")])
        self.assertEqual((mp[0], js[0]), ("invalid_params", "invalid_params"))
        # components: the last counts
        mp, js = self.both_encodings("components", [("large", "x"), ("large", True)])
        self.assertEqual(mp, js)
        self.assertEqual(mp[1][0].get("large"), 1)
        mp, js = self.both_encodings("components", [("large", True), ("large", False)])
        self.assertEqual(mp, js)
        self.assertNotIn("large", mp[1][0])
        # an unknown name is refused whatever comes after it
        mp, js = self.both_encodings("rules", [("nosuch", 1), ("farmers", True)])
        self.assertEqual((mp[0], js[0]), ("invalid_params", "invalid_params"))

    def test_abbey_refused_by_the_cult_rule_says_so(self):
        """A hole at (0,0) between two cult places: the abbey, a cloister,
        may not go there (RULES.md 2.10), and the reason is the cult rule,
        not "only into a hole"; a hole elsewhere takes it."""
        start = [tile("CU/S", 0, -1), tile("CU/S", 1, 0), tile("BA/Cccc+", 0, 1), tile("BA/Cccc+", -1, 0),
                 tile("BA/Cccc+", 10, -1), tile("BA/Cccc+", 11, 0), tile("BA/Cccc+", 10, 1), tile("BA/Cccc+", 9, 0)]
        t = Table(self, self.c, ["ann", "bob"], expansions=["base", "abbey-mayor", "cult"], start=start,
                  tiles=["BA/Cccc+", "BA/Cccc+"], seed=3)
        lm = t.legal()
        self.assertIn({"type": "place_abbey", "x": 10, "y": 0}, lm["moves"])
        self.assertNotIn({"type": "place_abbey", "x": 0, "y": 0}, lm["moves"])
        code, message = error_of(self.c.apply_move, t.game, {"type": "place_abbey", "x": 0, "y": 0}, token=t.tokens[0])
        self.assertEqual(code, "illegal_move")
        self.assertIn("cult place", message)
        self.assertNotIn("only into a hole", message)
        # a place that is no hole is still told so
        code, message = error_of(self.c.apply_move, t.game, {"type": "place_abbey", "x": 5, "y": 5}, token=t.tokens[0])
        self.assertEqual(code, "illegal_move")
        self.assertIn("only into a hole", message)
        t.play({"type": "place_abbey", "x": 10, "y": 0})

    def test_the_turns_tile_stays_in_the_state_until_the_turn_ends(self):
        """Contract 4.2's example: phase action, seat 1, tile drawn_by 1."""
        t = Table(self, self.c, ["ann", "bob"], tiles=["BA/LR", "BA/C", "BA/L"], seed=1)
        st = t.state()
        self.assertEqual((st["phase"], st["tile"]), ("tile", {"id": "BA/LR", "drawn_by": 0}))
        t.play(place("BA/LR", 1, 0, 90))
        st = t.state()
        self.assertEqual((st["phase"], st["seat"], st["tile"]), ("action", 0, {"id": "BA/LR", "drawn_by": 0}))
        self.assertEqual(st["tiles_left"], 2)
        t.play({"type": "pass"})
        st = t.state()
        self.assertEqual((st["phase"], st["seat"], st["tile"]), ("tile", 1, {"id": "BA/C", "drawn_by": 1}))
        t.play(place("BA/C", 0, -1, 180), deploy(0, -1, "S"))
        t.play(t.legal()["moves"][0])
        if t.legal()["phase"] == "action":
            t.play({"type": "pass"})
        st = t.state()
        self.assertEqual((st["phase"], st["tile"]), ("over", None))

    def test_games_without_limit_lists_every_game(self):
        before = self.c.call("games", {})
        held = len(before["games"])
        self.assertIs(before["more"], False)
        with self.d.raw() as r:  # 1001 more, pipelined
            r.send(b"".join(msgpack.packb([0, i, "new_game", {"players": ["a"]}]) for i in range(1001)))
            replies = r.read("msgpack", 1001, timeout=60)
        self.assertEqual(len(replies), 1001)
        made = [m[3]["game"] for m in replies]
        every = self.c.call("games", {})
        self.assertIs(every["more"], False)
        self.assertEqual(len(every["games"]), held + 1001)
        self.assertEqual([s["game"] for s in every["games"]][-1001:], made)
        page = self.c.call("games", {"limit": 1000})
        self.assertEqual((len(page["games"]), page["more"]), (1000, True))
        for g in made:
            self.c.call("close_game", {"game": g, "admin_token": replies[made.index(g)][3]["admin_token"]})

    def test_abbey_start_tile_lies_at_rot_0(self):
        g = self.c.new_game(["a", "b"], expansions=["base", "abbey-mayor"],
                            start=[tile("BA/RCr", 0, 0), tile("AM/A", 0, 1, 270)], seed=1)
        board = {(b["x"], b["y"]): (b["tile"], b["rot"]) for b in g["state"]["board"]}
        self.assertEqual(board[(0, 1)], ("AM/A", 0))
        setup = self.c.call("history", {"game": g["game"]})["setup"]
        self.assertEqual([(s["tile"], s["rot"]) for s in setup["start"]], [("BA/RCr", 0), ("AM/A", 0)])
        self.assertEqual([s["supply"]["abbey"] for s in g["state"]["seats"]], [1, 1])

    def test_game_closed_carries_the_games_seq(self):
        t = Table(self, self.c, ["ann", "bob"], tiles=["BA/LR", "BA/C"], seed=1)
        with self.d.client() as w:
            self.assertEqual(w.call("subscribe", {"game": t.game})["seq"], 0)
            t.play(place("BA/LR", 1, 0, 90))
            self.c.call("close_game", {"game": t.game, "admin_token": t.g["admin_token"]})
            notes = [w.next_event(timeout=10), w.next_event(timeout=10)]
        self.assertNotIn(None, notes)
        self.assertEqual([n["seq"] for n in notes], [1, 1])
        self.assertNotIn("game_closed", [e["type"] for e in notes[0]["events"]])
        self.assertEqual(notes[1]["events"], [{"type": "game_closed"}])


if __name__ == "__main__":
    unittest.main()
