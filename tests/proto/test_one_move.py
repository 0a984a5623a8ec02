"""legal_moves' `move` (proto/PROTOCOL.md, legal_moves): a client asks
about one move without playing it.  If it is legal now, `moves` holds it as
the listing gives it; if not, `moves` is [] and `why` is what apply_move
would answer.  A UI asks this on hover, to tell its user why a placement
or a deploy is refused.  A move may name a feature by any port (and a
wagon's target by any tile), which a client cannot match against the
listing by comparing maps: this tells it which listed move one is."""

import json
import subprocess
import unittest

import harness
from crafted import REASONS
from harness import code_of
from test_contrib import CARCCTL_CMD, run

daemon, setUpModule, tearDownModule = harness.module_daemon()

EVERY_SET = harness.EVERY_SET


def without(reply, key):
    return {k: v for k, v in reply.items() if k != key}


def renamed(rng, move):
    """The move, or the move with another port or place: legal or not."""
    m = dict(move)
    roll = rng.random()
    if "at" in m and roll < 0.6:
        m["at"] = rng.choice(harness.PORTS)
    elif "x" in m and roll < 0.8:
        m[rng.choice(("x", "y"))] += rng.choice((-1, 1))
    elif "rot" in m and roll < 0.9:
        m["rot"] = (m["rot"] + 90) % 360
    return m


class OneMove(unittest.TestCase):
    def test_agrees_with_the_listing_and_with_apply_move(self):
        """In every-set games, a move asked about is listed exactly when it
        is legal: then as the listed move it is, whose feature is the one
        the move deploys into; else `why` is apply_move's own refusal, and
        apply_move, refusing it, changes nothing."""
        rng = harness.new_rng(self.id())
        asked = {"listed": 0, "refused": 0, "renamed": 0}
        reasons = set()  # data.reason of the refusals: each a documented name
        with daemon["d"].client() as c:
            for seed in (31, 32, 33):
                game = c.new_game(["ann", "bob", "cy"], expansions=EVERY_SET, seed=seed)
                g, tokens = game["game"], [s["token"] for s in game["seats"]]
                while True:
                    full = c.legal_moves(g)
                    if full["phase"] == "over":
                        break
                    pick = rng.choice(full["moves"])
                    m = renamed(rng, pick)
                    one = c.legal_moves(g, move=m)
                    # game, seq, phase and seat as in the listing; `why` only when refused
                    self.assertEqual({k: v for k, v in one.items() if k not in ("moves", "why")},
                                     without(full, "moves"))
                    self.assertEqual("why" in one, not one["moves"], one)
                    if not one["moves"]:
                        asked["refused"] += 1
                        self.assertEqual(one["why"]["code"], "illegal_move")
                        self.assertIn(one["why"]["data"]["reason"], REASONS, one["why"])
                        reasons.add(one["why"]["data"]["reason"])
                        try:
                            c.apply_move(g, m, token=tokens[full["seat"]], seq=full["seq"])
                            self.fail("a move not listed was played: %s" % m)
                        except harness.carcd.Error as e:
                            self.assertEqual({"code": e.code, "message": e.message, "data": e.data}, one["why"])
                        self.assertEqual(c.legal_moves(g), full)
                        m = pick
                        one = c.legal_moves(g, move=m)
                    (listed,) = one["moves"]
                    self.assertIn(listed, full["moves"])
                    asked["listed"] += 1
                    asked["renamed"] += listed != m
                    # played as asked (not as listed), it does what the listed one says
                    named = c.legal_moves(g, move=m, features=True)["moves"][0]
                    self.assertEqual({k: v for k, v in named.items() if k not in ("feature", "ports")}, listed)
                    events = c.apply_move(g, m, token=tokens[full["seat"]], seq=full["seq"])["events"]
                    if "feature" in named:
                        dep = [e for e in events if e["type"] == "deployed"][-1]
                        self.assertEqual((dep["x"], dep["y"], dep["feature"], dep["ports"]),
                                         (named["x"], named["y"], named["feature"], named["ports"]))
        self.assertGreater(asked["refused"], 50, asked)
        self.assertGreater(asked["renamed"], 10, asked)  # deploys named by another port of their part
        self.assertGreater(len(reasons), 4, reasons)

    def test_the_wrong_seat_and_the_end(self):
        """Checked in apply_move's order: the end of the game, the seat,
        then the move, so that a move not well formed is not_your_turn or
        game_over there as here, and a move of an expansion not built yet
        is illegal."""
        turn = {"code": "not_your_turn", "message": "it is the turn of seat 0 (ann), not of seat 1 (bob)"}
        with daemon["d"].client() as c:
            g = c.new_game(["ann", "bob"], seed=3)["game"]
            first = c.legal_moves(g)["moves"][0]
            for m in (first, {"type": "fly"}, {}):   # a map, like apply_move's (else invalid_params first)
                one = c.legal_moves(g, seat=1, move=m)
                self.assertEqual((one["moves"], one["seat"], one["why"]), ([], 0, turn))
            self.assertEqual(c.legal_moves(g, seat=0, move=first)["moves"], [first])
            self.assertNotIn("why", c.legal_moves(g, seat=0, move=first))
            later = c.legal_moves(g, move={"type": "tower_piece"})
            self.assertEqual((later["moves"], later["why"]["code"]), ([], "illegal_move"))
            self.assertIn("expansion this game does not have", later["why"]["message"])
            g2 = c.new_game(["ann"], seed=3, auth=False)["game"]
            harness.play_out(c, g2)
            for m in ({"type": "pass"}, {"type": "fly"}, {"x": 1}):
                over = c.legal_moves(g2, move=m)
                self.assertEqual((over["phase"], over["moves"], over["why"]),
                                 ("over", [], {"code": "game_over", "message": "game %d is over" % g2}))
                self.assertEqual(code_of(c.apply_move, g2, m), "game_over")

    def test_no_token_needed_and_nothing_played(self):
        with daemon["d"].client() as c:
            g = c.new_game(["ann", "bob"], seed=5)["game"]   # with auth
            before = (c.state(g), c.history(g))
            for m in c.legal_moves(g)["moves"]:
                self.assertEqual(c.legal_moves(g, move=m)["moves"], [m])
            self.assertEqual((c.state(g), c.history(g)), before)

    def test_bad_moves_are_refused_and_change_nothing(self):
        with daemon["d"].client() as c:
            g = c.new_game(["ann"], seed=3, auth=False)["game"]
            before = c.state(g)
            for bad in (7, "pass", [], None, {"type": "fly"}, {}, {"type": "place_tile", "tile": "BA/C"},
                        {"type": "place_tile", "tile": "BA/C", "x": 0, "y": 1, "rot": 45},
                        {"type": "deploy", "kind": "follower", "x": 0, "y": 0, "at": "Q"}):
                with self.subTest(move=bad):
                    if bad is None:   # a nil parameter is no parameter: the whole list
                        self.assertEqual(c.call("legal_moves", {"game": g, "move": None}), c.legal_moves(g))
                        continue
                    self.assertEqual(code_of(c.call, "legal_moves", game=g, move=bad), "invalid_params")
                    self.assertEqual(code_of(c.apply_move, g, bad), "invalid_params")
            self.assertEqual(code_of(c.call, "legal_moves", game=g + 1000, move={"type": "pass"}), "no_such_game")
            self.assertEqual(c.state(g), before)

    def test_hello_names_it(self):
        with daemon["d"].client() as c:
            self.assertIn("legal_moves.move", c.hello()["extras"])

    def test_carcctl_moves_move(self):
        with daemon["d"].client() as c:
            g = c.new_game(["ann"], seed=3, auth=False)["game"]
            first = c.legal_moves(g)["moves"][0]
            sock = daemon["d"].unix_path
            yes = run(CARCCTL_CMD + ["--socket", sock, "moves", str(g), "--move", json.dumps(first)])
            self.assertEqual((yes.returncode, yes.stderr), (0, ""))
            self.assertEqual(json.loads(yes.stdout), c.legal_moves(g, move=first))
            self.assertEqual(json.loads(yes.stdout)["moves"], [first])
            no = run(CARCCTL_CMD + ["--socket", sock, "moves", str(g), "--move", '{"type":"pass"}'])
            self.assertEqual((no.returncode, no.stderr), (0, ""))
            self.assertEqual(json.loads(no.stdout)["moves"], [])
            self.assertEqual(json.loads(no.stdout)["why"]["code"], "illegal_move")
            stdin = subprocess.run(CARCCTL_CMD + ["--socket", sock, "moves", str(g), "--move", "-"],
                                   input=json.dumps(first), capture_output=True, text=True, timeout=120)
            self.assertEqual((stdin.returncode, stdin.stderr), (0, ""))
            self.assertEqual(json.loads(stdin.stdout)["moves"], [first])
            for junk, says in (("{", "the move is not valid JSON"), ("null", "the move must be a JSON object"),
                               ("[1]", "the move must be a JSON object")):
                bad = run(CARCCTL_CMD + ["--socket", sock, "moves", str(g), "--move", junk])
                self.assertEqual((bad.returncode, bad.stdout), (2, ""), junk)
                self.assertIn(says, bad.stderr)


if __name__ == "__main__":
    unittest.main()
