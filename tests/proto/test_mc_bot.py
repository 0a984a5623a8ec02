"""contrib/bots/mc_bot against the real daemon: it plays whole games of every
set, always from the position carcd shows, beats random play, falls back to
random moves when its copy of a game cannot follow, and fails cleanly."""

import json
import os
import re
import subprocess
import unittest

import harness

daemon, setUpModule, tearDownModule = harness.module_daemon()

MC_BOT = os.environ.get("MC_BOT") or os.path.join(os.environ.get("top_builddir", harness.TOP_SRCDIR), "contrib",
                                                  "bots", "mc_bot")
RANDOM_BOT = [harness.PYTHON, os.path.join(harness.TOP_SRCDIR, "contrib", "bots", "random_bot.py")]
ARENA = [harness.PYTHON, os.path.join(harness.TOP_SRCDIR, "contrib", "arena.py")]
TIMEOUT = 600
LOST = "does not reach carcd's position"


def start(cmd, token=None):
    env = {k: v for k, v in os.environ.items() if k not in ("CARCD_TOKEN", "CARCD_ADDRESS")}
    if token is not None:
        env["CARCD_TOKEN"] = token
    return subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=env)


def mc(*args):
    # under `make check-valgrind` the bot runs under memcheck too
    return harness.WRAPPER + [MC_BOT, "--address", daemon["d"].unix_address] + [str(a) for a in args]


def random_bot(game, seat):
    return RANDOM_BOT + ["--address", daemon["d"].unix_address, "--game", str(game), "--seat", str(seat),
                         "--rng", str(seat + 1)]


def finish(procs):
    """Waits for every process; their (returncode, stdout, stderr)."""
    out = []
    for p in procs:
        try:
            o, e = p.communicate(timeout=TIMEOUT)
        except subprocess.TimeoutExpired:
            for q in procs:
                q.kill()
            raise
        out.append((p.returncode, o, e))
    return out


class Plays(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if not os.access(MC_BOT, os.X_OK):
            raise AssertionError("no mc_bot at %s (run make, or set MC_BOT)" % MC_BOT)

    def game(self, seats, **opts):
        with daemon["d"].client() as c:
            g = c.new_game(["p%d" % i for i in range(seats)], **opts)
        return g["game"], [s["token"] for s in g["seats"]]

    def play(self, game, tokens, mc_seats, playouts=40, extra=()):
        """mc_bot at mc_seats, random_bot elsewhere; the bots' outputs by seat."""
        procs = [start(mc("--game", game, "--seat", s, "--playouts", playouts, "--rng", 7 + s, "--verbose", *extra)
                       if s in mc_seats else random_bot(game, s), token=t) for s, t in enumerate(tokens)]
        results = finish(procs)
        for seat, (rc, o, e) in enumerate(results):
            self.assertEqual(rc, 0, "seat %d exited %s:\n%s%s" % (seat, rc, o, e))
        return results

    def check_won(self, game, results, mc_seat):
        rc, out, err = results[mc_seat]
        report = json.loads(out.strip().splitlines()[-1])
        with daemon["d"].client() as c:
            state, score, history = c.state(game), c.score(game), c.history(game)
        self.assertTrue(state["over"])
        self.assertEqual(report["game"], game)
        self.assertEqual((report["scores"], report["final"]), (score["scores"], True))
        mine = [m for m in history["moves"] if m["seat"] == mc_seat]
        self.assertEqual(report["moves_played"], len(mine))
        self.assertGreater(len(mine), 10)
        # every decision from a copy that reached carcd's position
        self.assertNotIn(LOST, err)
        scores = score["scores"]
        self.assertEqual(max(scores), scores[mc_seat], "random play beat mc_bot: %s" % scores)
        self.assertEqual(scores.count(scores[mc_seat]), 1, scores)

    def test_beats_random_play_in_a_base_game(self):
        game, tokens = self.game(2, seed=3)
        self.check_won(game, self.play(game, tokens, {0}), 0)

    def check_shared(self, err, budget, flat):
        """Each decision's --verbose line: the playouts and rounds that
        sequential halving (or --flat) gives its moves."""
        self.assertNotIn(LOST, err)  # every decision searched
        decisions = re.findall(r"moved \((\d+) moves, (\d+) playouts in (\d+) rounds\)", err)
        self.assertGreater(len(decisions), 20, err)
        for moves, playouts, rounds in decisions:
            n, want, want_rounds, left = int(moves), 0, 1, int(moves)
            while not flat and 1 << want_rounds < n:
                want_rounds += 1
            if n == 1:
                want_rounds = 0
            for r in range(want_rounds):  # each round an equal part of what is left
                want += left * max(1, (budget - want) // (want_rounds - r) // left)
                left = (left + 1) // 2
            self.assertEqual((int(playouts), int(rounds)), (want, want_rounds), "%s moves" % n)
            if n > 1:
                self.assertLessEqual(int(playouts), max(budget, 2 * n + want_rounds))
        return decisions

    def test_playouts_go_to_the_better_moves(self):
        # sequential halving by default, the same for every move with --flat;
        # 40 playouts are fewer than some decisions need, one a move a round
        for flat, seed in ((False, 4), (True, 6)):
            game, tokens = self.game(2, seed=seed)
            results = self.play(game, tokens, {0}, playouts=40, extra=["--flat"] if flat else [])
            self.check_won(game, results, 0)
            decisions = self.check_shared(results[0][2], 40, flat)
            self.assertTrue(any(int(p) > 40 for _, p, _ in decisions))  # overspent, within the bound
            self.assertEqual(any(int(r) > 1 for _, _, r in decisions), not flat)

    def test_every_set_three_seats(self):
        game, tokens = self.game(3, seed=11, expansions=harness.EVERY_SET,
                                 rules={"unplaceable_tile": "reshuffle", "abbey_final_round": True})
        # ~60 placements a decision: 150 playouts give each a few
        self.check_won(game, self.play(game, tokens, {1}, playouts=150), 1)

    def test_two_mc_bots_play_a_game_to_its_end(self):
        game, tokens = self.game(2, seed=5, expansions=["base", "river", "hills-sheep", "abbey-mayor"])
        results = self.play(game, tokens, {0, 1}, playouts=10)
        for rc, out, err in results:
            self.assertNotIn(LOST, err)
            self.assertTrue(json.loads(out)["final"])

    def test_without_seat_it_plays_the_one_its_token_holds(self):
        game, tokens = self.game(2, seed=8)
        procs = [start(random_bot(game, 0), token=tokens[0]),
                 start(mc("--game", game, "--playouts", 60, "--rng", 3), token=tokens[1])]
        results = finish(procs)
        for rc, o, e in results:
            self.assertEqual(rc, 0, o + e)
        self.check_won(game, results, 1)

    def test_a_supply_it_cannot_know_gets_random_moves(self):
        # six cloisters where a base deal has four: past the fourth, no deal
        # gives what carcd draws, and the bot says so and plays at random
        tiles = ["BA/L"] * 6 + ["BA/Rr", "BA/CRr"]
        game, tokens = self.game(2, seed=2, tiles=tiles)
        results = self.play(game, tokens, {0, 1}, playouts=10)
        errs = "".join(e for _, _, e in results)
        self.assertIn(LOST, errs)
        with daemon["d"].client() as c:
            self.assertTrue(c.state(game)["over"])

    def test_through_the_arena(self):
        p = subprocess.run(ARENA + ["--address", daemon["d"].unix_address, "--json", "--bot",
                                    "mc=%s --playouts 30 --rng 1" % MC_BOT, "--bot",
                                    "random=%s --rng 2" % " ".join(RANDOM_BOT), "--deals", "1", "--seed", "21"],
                           stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=TIMEOUT)
        self.assertEqual(p.returncode, 0, p.stderr)
        report = json.loads(p.stdout)
        self.assertEqual(len(report["games"]), 2)
        rows = {r["bot"]: r for r in report["standings"]}
        self.assertEqual(rows["mc"]["forfeits"], 0)
        self.assertEqual(rows["mc"]["wins"], 2)


class Fails(unittest.TestCase):
    def run_bot(self, *args, token=None):
        p = start(harness.WRAPPER + [MC_BOT] + [str(a) for a in args], token=token)
        out, err = p.communicate(timeout=TIMEOUT)
        return p.returncode, out, err

    def test_bad_usage_is_2(self):
        for args, why in ((["--seat", "0"], "--game is needed"),
                          (["--game", "1", "--playouts", "0"], "--playouts is an integer from 1"),
                          (["--game", "x"], "--game is an integer"),
                          (["--game", "1", "--seat", "6"], "--seat is an integer from 0 to 5"),
                          (["--game", "1", "extra"], "unexpected argument 'extra'"),
                          (["--game", "1", "--address", "nowhere"], "not an address"),
                          (["--game", "1", "--address", "tls:127.0.0.1:7443"], "it speaks no TLS"),
                          (["--game", "1", "--bogus"], "unrecognized option")):
            rc, out, err = self.run_bot(*args)
            self.assertEqual(rc, 2, args)
            self.assertIn(why, err, args)
            self.assertEqual(out, "")

    def test_help_is_0(self):
        rc, out, err = self.run_bot("--help")
        self.assertEqual(rc, 0)
        self.assertIn("usage: mc_bot --game G", err)

    def test_no_daemon_is_3(self):
        rc, out, err = self.run_bot("--game", "1", "--address", "unix:/nonexistent/carcd.sock")
        self.assertEqual(rc, 3)
        self.assertIn("cannot connect to unix:/nonexistent/carcd.sock", err)

    def test_refusals_are_1(self):
        with daemon["d"].client() as c:
            g = c.new_game(["ann", "bob"], seed=1)
        game, tokens = g["game"], [s["token"] for s in g["seats"]]
        addr = daemon["d"].unix_address
        rc, out, err = self.run_bot("--address", addr, "--game", 10 ** 9)
        self.assertEqual(rc, 1)
        self.assertIn("subscribe: no_such_game", err)
        # seat 0 is due; the token is seat 1's
        rc, out, err = self.run_bot("--address", addr, "--game", game, "--seat", 0, "--playouts", 5, token=tokens[1])
        self.assertEqual(rc, 1)
        self.assertRegex(err, r"apply_move: (forbidden|not_your_turn)")
        with daemon["d"].client() as c:
            self.assertEqual(c.state(game)["seq"], 0)  # nothing was played


if __name__ == "__main__":
    unittest.main()
