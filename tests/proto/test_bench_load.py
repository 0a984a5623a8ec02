"""test_bench_load.py - tests/bench/load against a real carcd: the load
benchmark plays whole games with the expansions it is given, measures the
memory of live games and closes them again, and stops at once, with the
daemon's reason, when new_game refuses its --expansions.  It asserts what
the benchmark prints and how it exits, never how fast anything is."""

import os
import re
import subprocess
import unittest

import harness
from harness import CARCD, SLOW, Daemon

LOAD = os.environ.get("LOAD") or os.path.join(os.path.dirname(os.path.dirname(CARCD)), "tests", "bench", "load")
EVERY_SET = ",".join(harness.EVERY_SET)


def run_load(*args):
    p = subprocess.run([LOAD] + list(args), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=120 * SLOW)
    return p.returncode, p.stdout.decode(errors="replace"), p.stderr.decode(errors="replace")


class Load(unittest.TestCase):
    def setUp(self):
        if not os.access(LOAD, os.X_OK):
            self.fail("no load benchmark at %s (run make, or set LOAD)" % LOAD)
        self.daemon = Daemon().start()
        self.addCleanup(self.daemon.stop)

    def held_games(self):
        with self.daemon.client() as c:
            return c.stats()["games"]

    def test_every_set_plays_whole_games_without_errors(self):
        # one game in flight on one connection: it runs until the game is
        # over, however slow the daemon (valgrind), within the seconds
        rc, out, err = run_load("--connect", self.daemon.unix_address, "--conns", "1", "--inflight", "1",
                                "--seconds", "%.1f" % (3 * SLOW ** 0.5), "--expansions", EVERY_SET,
                                "--pid", str(self.daemon.proc.pid), "--games", "20")
        self.assertEqual(rc, 0, out + err)
        self.assertRegex(out, r"memory: 20 live games: VmRSS [0-9.]+ MiB -> [0-9.]+ MiB, -?[0-9.]+ KiB per live game")
        m = re.search(r"requests: (\d+) \(\d+ requests/s\); (\d+) games played to the end", out)
        self.assertIsNotNone(m, out)
        self.assertGreater(int(m.group(2)), 0, out)
        self.assertIn("errors: 0\n", out)
        # every game load made or played is closed again
        self.assertEqual(self.held_games(), 0)

    def test_notified_plays_each_move_from_a_notification(self):
        """--notified: one legal_moves and one subscribe a game, a move per
        apply_move, every game closed again and its subscription with it.
        A game's start is new_game, subscribe, then legal_moves: when the
        time runs out between two of them, load sends no more, so each of
        its conns x inflight places may leave its last game one or two
        short there, and no more than that."""
        conns, inflight = 2, 3
        rc, out, err = run_load("--connect", self.daemon.unix_address,
                                "--conns", str(conns), "--inflight", str(inflight),
                                "--seconds", "%.1f" % (3 * SLOW ** 0.5), "--expansions", EVERY_SET, "--notified")
        self.assertEqual(rc, 0, out + err)
        self.assertIn("errors: 0\n", out)
        counts = {m: int(n) for m, n in re.findall(r"^  (\w+) +(\d+) requests", out, re.M)}
        games = int(re.search(r"; (\d+) games played to the end", out).group(1))
        moves = int(re.search(r"^moves: (\d+) \(\d+ moves/s, each from a notification\)", out, re.M).group(1))
        self.assertGreater(games, 0, out)
        self.assertLessEqual(counts["legal_moves"], counts["subscribe"], out)
        self.assertLessEqual(counts["subscribe"], counts["new_game"], out)
        self.assertLessEqual(counts["new_game"] - counts["legal_moves"], conns * inflight, out)
        self.assertEqual(counts["apply_move"], moves, out)
        self.assertGreater(moves, 150 * games, out)
        self.assertEqual(self.held_games(), 0)
        with self.daemon.client() as c:
            self.assertEqual(c.stats()["connections"], 1)   # load's connections are gone, and with them their watches
        rc, out, err = run_load("--connect", self.daemon.unix_address, "--inflight", "1025", "--notified")
        self.assertEqual((rc, out), (2, ""), err)
        self.assertIn("load: --notified: at most 1024 in flight", err)

    def test_unknown_expansion_stops_with_the_daemons_reason(self):
        for extra in ([], ["--pid", str(self.daemon.proc.pid), "--games", "5"]):
            rc, out, err = run_load("--connect", self.daemon.unix_address, "--seconds", "30",
                                    "--expansions", "base,nosuch", *extra)
            self.assertEqual(rc, 1, out + err)
            self.assertIn("load: error invalid_params: unknown expansion `nosuch`", err)
            self.assertIn("load: new_game was refused (above)", err)
            self.assertEqual(self.held_games(), 0)

    def test_bad_expansions_argument(self):
        for bad in ([","], []):
            rc, out, err = run_load("--expansions", *bad)
            self.assertEqual(rc, 2, out + err)
            self.assertTrue(err.startswith("load: --expansions: no name given") or err.startswith("usage: load"),
                            err)
        rc, out, err = run_load("--expansions", ",".join(["base"] * 33))
        self.assertEqual(rc, 2)
        self.assertIn("load: --expansions: more than 32 names", err)


if __name__ == "__main__":
    unittest.main()
