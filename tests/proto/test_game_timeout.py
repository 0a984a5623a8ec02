"""--game-timeout: games nobody plays any more are closed.

A bot that crashes, or a UI closed halfway, leaves its game behind; with
the option a game that has had no move for S seconds goes as close_game
would close it (its watchers hear game_closed), and with --journal the
count goes on across a restart, from the last move written.
"""

import os
import shutil
import subprocess
import tempfile
import time
import unittest

import harness
import carcd  # noqa: E402  (harness puts contrib/python on the path)
from harness import CARCD, START_TIMEOUT


def held(c, game):
    return harness.code_of(c.state, game) is None


class Options(unittest.TestCase):
    def test_refused_values_exit_2_with_a_message(self):
        for value in ("-1", "x", "", "1073741825", "1.5"):
            p = subprocess.run([CARCD, "--game-timeout", value], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, timeout=START_TIMEOUT)
            self.assertEqual(p.returncode, 2, value)
            self.assertIn(b"--game-timeout wants an integer from 0 to 1073741824", p.stderr, value)

    def test_off_by_default(self):
        with harness.Daemon() as d, d.client() as c:
            self.assertEqual(c.hello()["limits"]["game_timeout"], 0)
            g = c.new_game(["a"])["game"]
            time.sleep(2.2)   # more than a sweep of --game-timeout 1 would take
            self.assertTrue(held(c, g))
            self.assertEqual(c.stats()["games_expired"], 0)


class Timeout(unittest.TestCase):
    def test_a_game_without_moves_goes_and_its_watchers_hear_it(self):
        with harness.Daemon("--game-timeout", "2") as d, d.client() as c, d.client() as w:
            self.assertEqual(c.hello()["limits"]["game_timeout"], 2)
            rng = harness.new_rng(self.id())
            quiet = c.new_game(["a", "b"])["game"]
            busy = c.new_game(["a"], auth=False)["game"]
            w.subscribe(quiet)
            w.subscribe(busy)
            # the busy game moves every 0.4 s, for twice the timeout and
            # until the quiet one is gone (within the timeout and a sweep,
            # 1 s; 10 s allowed for a slow machine)
            start = time.monotonic()
            while time.monotonic() < start + 4 or held(c, quiet):
                self.assertLess(time.monotonic(), start + 10, "the quiet game was not closed")
                lm = c.legal_moves(busy)
                c.apply_move(busy, rng.choice(lm["moves"]), seq=lm["seq"])
                time.sleep(0.4)
            self.assertTrue(held(c, busy))
            closing = None
            while closing is None:
                note = w.next_event(timeout=0)
                self.assertIsNotNone(note, "no game_closed for the quiet game")
                if note["game"] == quiet:
                    closing = note
            self.assertEqual(closing, {"game": quiet, "seq": 0, "events": [{"type": "game_closed"}]})
            # left alone, the busy one goes too, within the timeout and a sweep (1 s)
            self.assertTrue(harness.wait_for(lambda: not held(c, busy), 8))
            stats = c.stats()
            self.assertEqual((stats["games"], stats["games_expired"], stats["games_total"]), (0, 2, 2))
            self.assertEqual(harness.code_of(c.apply_move, busy, {"type": "pass"}), "no_such_game")


class Journal(unittest.TestCase):
    """The count goes on from the game file's last write, so a game
    abandoned before a restart (or while carcd was down) is not kept for
    ever."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="carcd-timeout-")
        self.dir = os.path.join(self.tmp, "journal")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def test_a_game_restored_after_its_time_is_not_served(self):
        with harness.Daemon("--journal", self.dir, tcp=False) as d, d.client() as c:
            old, recent, fresh = (c.new_game(["a"])["game"] for _ in range(3))
        now = time.time()
        for game, age in ((old, 7300), (recent, 3500)):
            path = os.path.join(self.dir, "%d.game" % game)
            os.utime(path, (now - age, now - age))
        # --max-games 2: the game whose time is up takes no place from the other two
        with harness.Daemon("--journal", self.dir, "--game-timeout", "3600", "--max-games", "2", tcp=False) as d, \
                d.client() as c:
            self.assertIn("journal: %s: 2 games restored, 1 closed for want of moves (--game-timeout)\n" % self.dir,
                          open(d.log_path).read())
            self.assertFalse(held(c, old))
            self.assertTrue(held(c, recent))
            self.assertTrue(held(c, fresh))
            # the counters start again with carcd: the restored games are its games_total
            stats = c.stats()
            self.assertEqual((stats["games_total"], stats["games_expired"]), (2, 1))
            self.assertEqual(sorted(os.listdir(self.dir)), ["%d.game" % recent, "%d.game" % fresh, "next-id"])
            # full of games in play
            self.assertEqual(harness.code_of(c.new_game, ["a"]), "limit")
        # without the option every file comes back, however old
        os.utime(os.path.join(self.dir, "%d.game" % recent), (now - 10 ** 6, now - 10 ** 6))
        with harness.Daemon("--journal", self.dir, tcp=False) as d, d.client() as c:
            self.assertTrue(held(c, recent))
            self.assertEqual(c.stats()["games_expired"], 0)
            # the closed game's id is never given again
            self.assertEqual(c.new_game(["a"])["game"], fresh + 1)


if __name__ == "__main__":
    unittest.main()
