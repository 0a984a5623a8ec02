"""legal_moves' `features` (proto/PROTOCOL.md, legal_moves): with it, each
`deploy` and `move_wagon` move also names the feature it goes to, as
section 3 of the contract names a feature: `feature` (its kind) and
`ports` (of its part on that tile), which are what the move's `deployed`
event then says.  A UI highlights the choice from them without tile
geometry of its own.  The moves are otherwise those listed without it,
and are played back as they are listed (extra keys are ignored)."""

import json
import unittest

import harness
from harness import code_of
from test_contrib import CARCCTL_CMD, run

daemon, setUpModule, tearDownModule = harness.module_daemon()

EVERY_SET = harness.EVERY_SET
EXTRA = ("feature", "ports")


class Features(unittest.TestCase):
    def test_every_deploy_and_wagon_move_names_what_it_deploys_into(self):
        rng = harness.new_rng(self.id())
        kinds, wagons = set(), 0
        with daemon["d"].client() as c:
            for seed in (21, 22, 23):
                g = c.new_game(["ann", "bob", "cy"], expansions=EVERY_SET, seed=seed, auth=False)["game"]
                while True:
                    named = c.call("legal_moves", game=g, features=True)
                    plain = c.legal_moves(g)
                    if plain["phase"] == "over":
                        self.assertEqual(named, plain)
                        break
                    self.assertEqual({k: v for k, v in named.items() if k != "moves"},
                                     {k: v for k, v in plain.items() if k != "moves"})
                    self.assertEqual([{k: v for k, v in m.items() if k not in EXTRA} for m in named["moves"]],
                                     plain["moves"])
                    for m in named["moves"]:
                        self.assertEqual(m["type"] in ("deploy", "move_wagon"), "feature" in m and "ports" in m, m)
                    # mostly figures, so that many deploys are played and checked
                    figures = [m for m in named["moves"] if "feature" in m]
                    m = rng.choice(figures if figures and rng.random() < 0.7 else named["moves"])
                    events = c.apply_move(g, m)["events"]   # as listed, extra keys and all
                    if "feature" in m:
                        (dep,) = [e for e in events if e["type"] == "deployed"][-1:]
                        self.assertEqual((dep["x"], dep["y"], dep["feature"], dep["ports"]),
                                         (m["x"], m["y"], m["feature"], m["ports"]))
                        self.assertIn(m["at"], dep["ports"])
                        kinds.add((m.get("kind", "wagon"), m["feature"]))
                        wagons += m["type"] == "move_wagon"
        self.assertGreater(len(kinds), 10, kinds)  # followers, specials, on roads, cities, fields...
        self.assertIn(("barn", "field"), kinds)
        self.assertGreater(wagons, 0)  # a wagon moved after its feature scored

    def test_features_that_is_no_boolean_is_refused(self):
        with daemon["d"].client() as c:
            g = c.new_game(["ann"], seed=3, auth=False)["game"]
            for bad in ("yes", 1, [True]):
                with self.subTest(features=bad):
                    self.assertEqual(code_of(c.call, "legal_moves", game=g, features=bad), "invalid_params")
            self.assertEqual(c.call("legal_moves", game=g, features=False), c.legal_moves(g))

    def test_carcctl_moves_features(self):
        with daemon["d"].client() as c:
            g = c.new_game(["ann"], seed=3, auth=False)["game"]
            c.apply_move(g, c.legal_moves(g)["moves"][0])
            sock = daemon["d"].unix_path
            named = run(CARCCTL_CMD + ["--socket", sock, "moves", str(g), "--features"])
            plain = run(CARCCTL_CMD + ["--socket", sock, "moves", str(g)])
            self.assertEqual((named.returncode, named.stderr, plain.returncode), (0, "", 0))
            self.assertEqual(json.loads(named.stdout), c.legal_moves(g, features=True))
            self.assertEqual(json.loads(plain.stdout), c.legal_moves(g))
            self.assertTrue(any("ports" in m for m in json.loads(named.stdout)["moves"]))


if __name__ == "__main__":
    unittest.main()
