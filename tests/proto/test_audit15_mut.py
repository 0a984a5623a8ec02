"""The daemon and its journal at the edges that the other tests left open
(proto/PROTOCOL.md section 6).

A fifteenth audit changed the code of daemon/main.c and daemon/journal.c
one small step at a time and ran the daemon's and the journal's tests:
where a change that an operator would notice passed them all, a test
here now holds the daemon to the sentence of section 6 it broke.  Like
test_audit14_journal.py, each journal test runs daemons of its own on one
directory.
"""

import os
import re
import shutil
import socket
import subprocess
import tempfile
import unittest

import harness
import test_audit14_journal as a14
from test_journal import JournalDirs

MAX_ID = a14.MAX_ID   # 2^53-1: game ids stay exact in JSON


class Journal(JournalDirs, unittest.TestCase):
    # test_audit14_journal's helpers: a file's path, moves, a file carcd can neither open nor remove
    path = a14.Audit14Journal.path
    moves = a14.Audit14Journal.moves
    block = a14.Audit14Journal.block

    def one_game(self, moves=0):
        """A game made by a first daemon, which is stopped: its id."""
        d = self.daemon()
        with d.client() as c:
            g = c.new_game(["a", "b"], auth=False)["game"]
            self.moves(c, g, moves)
        self.assertEqual(d.stop(), 0)
        return g

    def test_a_whole_game_restored_is_one_info_line(self):
        """At start, carcd logs how many games the journal restored: a game
        whose file is whole comes back with that one info line, with no
        warn line (those are for moves lost to a power loss) and no "others
        not" (no file was left out)."""
        g = self.one_game(3)
        d = self.daemon()
        with d.client() as c:
            self.assertEqual(c.state(g)["seq"], 3)
        log = d.log_tail(100)
        self.assertRegex(log, r"info: journal: %s: 1 game restored\n" % re.escape(self.dir))
        self.assertNotIn("warn:", log)
        self.assertNotIn("error:", log)

    def test_a_file_already_gone_needs_no_mark(self):
        """Closing a game deletes its file; a file someone removed already is
        gone as it should be: no error line, and no <game>.game.gone mark."""
        d = self.daemon()
        with d.client() as c:
            made = c.new_game(["a", "b"])
            os.unlink(self.path("%d.game" % made["game"]))
            c.close_game(made["game"], made["admin_token"])
            self.assertEqual(harness.code_of(c.state, made["game"]), "no_such_game")
        self.assertNotIn("error:", d.log_tail(100))
        self.assertEqual(self.files(), ["next-id"])

    def break_with_names_taken(self, taken):
        """Game g's file broken, with <g>.game.broken and .broken.1 to
        .broken.<taken> there already; a daemon started on it: (g, log)."""
        g = self.one_game()
        for k in range(taken + 1):
            with open(self.path("%d.game.broken%s" % (g, ".%d" % k if k else "")), "w") as f:
                f.write("set aside before, %d\n" % k)
        with open(self.path("%d.game" % g), "r+b") as f:
            f.write(b"GARBAGE!")
        d = self.daemon()
        with d.client() as c:
            self.assertEqual(harness.code_of(c.state, g), "no_such_game")
        return g, d.log_tail(100)

    def test_the_last_name_to_set_a_file_aside_is_broken_999(self):
        """A broken file is set aside as .broken.1 to .broken.999 when the
        names before are taken: .broken.999 is used, and none is
        overwritten."""
        g, log = self.break_with_names_taken(998)
        self.assertIn("(the file is renamed %d.game.broken.999)" % g, log)
        with open(self.path("%d.game.broken.999" % g), "rb") as f:
            self.assertTrue(f.read().startswith(b"GARBAGE!"))
        for k in (0, 1, 998):
            with open(self.path("%d.game.broken%s" % (g, ".%d" % k if k else ""))) as f:
                self.assertEqual(f.read(), "set aside before, %d\n" % k)
        self.assertNotIn("%d.game" % g, self.files())

    def test_with_every_broken_name_taken_the_file_stays(self):
        """"with all of them taken the file stays where it is": the game is
        not restored, an error line says so, and .broken.999 keeps what an
        earlier start set aside there."""
        g, log = self.break_with_names_taken(999)
        self.assertIn("the game is not restored (the file stays: %d.game.broken to .broken.999 are taken)" % g, log)
        with open(self.path("%d.game" % g), "rb") as f:
            self.assertTrue(f.read().startswith(b"GARBAGE!"))
        with open(self.path("%d.game.broken.999" % g)) as f:
            self.assertEqual(f.read(), "set aside before, 999\n")
        self.assertNotIn("%d.game.broken.1000" % g, self.files())

    def test_a_next_id_below_1_is_damaged(self):
        """next-id reads as a number from 1 to 2^53; 0 or a negative number
        is an error line at start, and the next id still follows the games
        on disk."""
        for text in ("0\n", "-3\n"):
            with self.subTest(next_id=text):
                d = self.daemon()
                with d.client() as c:
                    g = c.new_game(["a"], auth=False)["game"]
                self.assertEqual(d.stop(), 0)
                with open(self.path("next-id"), "w") as f:
                    f.write(text)
                d = self.daemon()
                with d.client() as c:
                    self.assertEqual(c.new_game(["a"], auth=False)["game"], g + 1)
                self.assertIn("error: journal: %s/next-id is damaged" % self.dir, d.log_tail())
                self.assertEqual(d.stop(), 0)

    def test_a_next_id_of_2_53_says_every_id_was_given(self):
        """next-id 2^53 is a number it may hold: every id up to 2^53-1 was
        given (the last game closed since), so no error line, and new_game
        answers limit instead of giving ids from 1 again."""
        d = self.daemon()
        self.assertEqual(d.stop(), 0)
        with open(self.path("next-id"), "w") as f:
            f.write("%d\n" % (MAX_ID + 1))
        d = self.daemon()
        with d.client() as c:
            self.assertEqual(harness.code_of(c.new_game, ["a"], auth=False), "limit")
        self.assertNotIn("error:", d.log_tail())

    def test_a_missing_next_id_beside_a_mark_is_reported(self):
        """A next-id missing while a .gone mark is there (and no game file) is
        an error line at start; the mark's id is not given again."""
        d = self.daemon()
        self.assertEqual(d.stop(), 0)
        os.unlink(self.path("next-id"))
        with open(self.path("7.game.gone"), "w"):
            pass
        d = self.daemon()
        with d.client() as c:
            self.assertEqual(c.new_game(["a"])["game"], 8)
        self.assertIn("error: journal: %s/next-id is missing or empty" % self.dir, d.log_tail())

    def test_a_mark_whose_file_went_goes_beside_other_games(self):
        """A .gone mark whose file was removed by hand since is removed at
        start, also when other games are restored beside it."""
        g = self.one_game(2)
        with open(self.path("%d.game.gone" % (g + 5)), "w"):
            pass
        d = self.daemon()
        with d.client() as c:
            self.assertEqual(c.state(g)["seq"], 2)
            self.assertEqual(c.new_game(["a"])["game"], g + 6)
        self.assertEqual(self.files(), ["%d.game" % g, "%d.game" % (g + 6), "next-id"])

    def test_a_marked_file_that_still_cannot_be_removed(self):
        """A file marked .gone that cannot be removed at start either is not
        restored, stays marked, and the start's info line does not count it
        as removed but says to see the errors."""
        g = self.one_game(1)
        self.block(g)   # a directory where the file was: no removing it
        with open(self.path("%d.game.gone" % g), "w"):
            pass
        d = self.daemon()
        with d.client() as c:
            self.assertEqual(harness.code_of(c.state, g), "no_such_game")
            self.assertEqual(c.new_game(["a"])["game"], g + 1)
        log = d.log_tail(100)
        self.assertIn("error: journal: game %d: cannot remove" % g, log)
        self.assertIn("info: journal: %s: 0 games restored (others not: see the errors above)" % self.dir, log)
        self.assertNotIn("marked .gone removed", log)
        self.assertIn("%d.game.gone" % g, self.files())

    def test_a_name_past_the_last_game_id_is_left_alone(self):
        """No game has an id past 2^53-1, so <2^53>.game is no game's file:
        like other files in the directory it is left alone, not set aside."""
        d = self.daemon()
        self.assertEqual(d.stop(), 0)
        name = "%d.game" % (MAX_ID + 1)
        with open(self.path(name), "w") as f:
            f.write("not carcd's\n")
        d = self.daemon()
        with d.client() as c:
            self.assertEqual(harness.code_of(c.state, MAX_ID + 1), "no_such_game")
        self.assertNotIn("error:", d.log_tail())
        self.assertIn(name, self.files())
        self.assertNotIn(name + ".broken", self.files())


@harness.needs_nobody
class JournalAsNobody(a14.NobodysJournal, unittest.TestCase):
    def test_a_torn_tail_that_cannot_be_cut_costs_the_journal(self):
        """"the game goes on in memory (so does a restored game whose torn or
        zeroed tail cannot be cut off)": the game is served as it stood, with
        an error line, and its file goes, so the next restart ends it instead
        of restoring a file that a next move would follow torn bytes in."""
        p = self.run_carcd()
        with self.client() as c:
            g = c.new_game(["a"], auth=False)["game"]
            lm = c.legal_moves(g)
            c.apply_move(g, lm["moves"][0], seq=lm["seq"])
        self.stop(p)
        name = os.path.join(self.dir, "%d.game" % g)
        with open(name, "ab") as f:   # a move a crash cut short
            f.write(b"\x01\x02\x03")
        os.chmod(name, 0o400)         # which carcd may now read and not write
        p = self.run_carcd()
        with self.client() as c:
            self.assertEqual(c.state(g)["seq"], 1)
        err = self.stop(p)
        self.assertIn("error: journal: game %d: cannot cut what no move wrote off its file: Permission denied; "
                      "the game goes on without its file (a restart ends it)" % g, err)
        self.assertEqual(sorted(os.listdir(self.dir)), ["next-id"])
        p = self.run_carcd()
        with self.client() as c:
            self.assertEqual(harness.code_of(c.state, g), "no_such_game")
        self.stop(p)


class UnixListeners(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="carcd-a15-")
        self.path = os.path.join(self.dir, "s.sock")

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    @harness.needs_nobody
    def test_a_stale_socket_file_that_cannot_be_removed(self):
        """A stale socket file (a stream connect to it is refused) in a
        directory carcd may not write: carcd cannot replace it, exits 1 with
        an error line saying so, and does not log that it removed it."""
        os.chmod(self.dir, 0o755)   # nobody may reach it, not write in it
        s = socket.socket(socket.AF_UNIX)
        s.bind(self.path)           # what a daemon killed with SIGKILL leaves
        s.close()
        os.chmod(self.path, 0o777)  # nobody may connect: the connect is refused
        p = subprocess.run(harness.AS_NOBODY + [harness.CARCD, "--listen", "unix:" + self.path], stdin=subprocess.DEVNULL, capture_output=True,
                           timeout=harness.START_TIMEOUT)
        err = p.stderr.decode(errors="replace")
        self.assertEqual(p.returncode, 1, err)
        self.assertIn("error: cannot listen on unix:%s: cannot remove the stale socket file there: Permission denied"
                      % self.path, err)
        self.assertNotIn("removed a stale socket file", err)
        self.assertTrue(os.path.exists(self.path))


if __name__ == "__main__":
    unittest.main()
