"""--journal at its edges: files that cannot be removed, a power loss, a
file set aside twice, next-id damaged or deleted, the last game id.

An outside audit of the journal (the fourteenth) found each of these
doing something else than proto/PROTOCOL.md section 6 says; like
test_journal.py, each test runs daemons of its own on one directory.
"""

import os
import shutil
import subprocess
import tempfile
import time
import unittest

import harness
import carcd  # noqa: E402  (harness puts contrib/python on the path)
from crafted import error_of
from test_journal import JournalDirs

MAX_ID = 2 ** 53 - 1   # game ids stay exact in JSON


class Audit14Journal(JournalDirs, unittest.TestCase):
    def path(self, name):
        return os.path.join(self.dir, name)

    def moves(self, c, g, n):
        for _ in range(n):
            lm = c.legal_moves(g)
            c.apply_move(g, lm["moves"][0], seq=lm["seq"])

    def block(self, g):
        """Puts a directory where game g's file is, so that carcd can neither
        open nor remove it (as an immutable file or a read-only disk would
        stop it); returns the file's bytes, for unblock()."""
        name = self.path("%d.game" % g)
        with open(name, "rb") as f:
            data = f.read()
        os.unlink(name)
        os.mkdir(name)
        with open(os.path.join(name, "x"), "w"):
            pass
        return data

    def unblock(self, g, data):
        """The file as it stood before block(): the disk is writable again."""
        name = self.path("%d.game" % g)
        shutil.rmtree(name)
        with open(name, "wb") as f:
            f.write(data)

    def test_a_game_gone_on_without_its_file_is_not_restored_from_it(self):
        """A move whose file can be neither written nor removed costs the game its
        journal ("a restart ends it"), and the file, which still holds the
        moves before, is marked <game>.game.gone: the next start removes it
        instead of serving the game as it stood moves ago."""
        d = self.daemon()
        with d.client() as c:
            g = c.new_game(["a"], auth=False)["game"]
            self.moves(c, g, 3)
        self.assertEqual(d.stop(), 0)
        d = self.daemon()   # restored: its file is not open yet
        data = self.block(g)
        with d.client() as c:
            self.moves(c, g, 4)
            self.assertEqual(c.state(g)["seq"], 7)
        log = d.log_tail()
        self.assertIn("error: journal: game %d: cannot open its file" % g, log)
        self.assertIn("(a restart ends it)", log)
        self.assertIn("marked with a .gone file, so that no restart restores it", log)
        self.assertEqual(d.stop(), 0)
        self.assertIn("%d.game.gone" % g, self.files())
        self.unblock(g, data)
        d = self.daemon()
        with d.client() as c:
            self.assertEqual(harness.code_of(c.state, g), "no_such_game")
            self.assertEqual(c.new_game(["b"])["game"], g + 1)
        self.assertIn("journal: %s: 0 games restored, 1 file marked .gone removed" % self.dir, d.log_tail())
        self.assertEqual(self.files(), ["%d.game" % (g + 1), "next-id"])

    def test_a_closed_game_whose_file_stays_is_not_restored(self):
        """close_game deletes the file; when that fails the file is marked gone,
        and no restart serves the closed game again."""
        d = self.daemon()
        with d.client() as c:
            made = c.new_game(["a", "b"])
            g = made["game"]
        self.assertEqual(d.stop(), 0)
        d = self.daemon()
        data = self.block(g)
        with d.client() as c:
            c.close_game(g, made["admin_token"])
        self.assertIn("error: journal: game %d: cannot remove" % g, d.log_tail())
        self.assertEqual(d.stop(), 0)
        self.unblock(g, data)
        d = self.daemon()
        with d.client() as c:
            self.assertEqual(harness.code_of(c.state, g), "no_such_game")
        self.assertEqual(self.files(), ["next-id"])

    def test_a_mark_whose_file_went_goes_too_and_keeps_its_id(self):
        """A .gone mark left alone (its file removed by hand since) is removed
        at start, and its id is not given again."""
        d = self.daemon()
        self.assertEqual(d.stop(), 0)
        with open(self.path("7.game.gone"), "w"):
            pass
        d = self.daemon()
        with d.client() as c:
            self.assertEqual(c.new_game(["a"])["game"], 8)
        self.assertEqual(self.files(), ["8.game", "next-id"])

    def test_cutting_a_torn_move_off_keeps_the_time_of_the_last_move(self):
        """With --game-timeout "its count goes on across a restart from the
        file's last write (its last move)": cutting a torn move off the file
        at a start must not make that cut the last write."""
        d = self.daemon()
        with d.client() as c:
            g = c.new_game(["a"], auth=False)["game"]
            self.moves(c, g, 1)
        self.assertEqual(d.stop(), 0)
        name = self.path("%d.game" % g)
        with open(name, "ab") as f:          # a move a crash cut short
            f.write(b"\x01\x02\x03")
        last_move = time.time() - 3            # the last answered move, 3 s ago
        os.utime(name, (last_move, last_move))
        # a timeout far past the 3 s, so that a slow start (valgrind) cannot
        # let the sweep close the game before it is looked at
        d = self.daemon("--game-timeout", "60", "--log-level", "debug")
        with d.client() as c:
            self.assertEqual(c.state(g)["seq"], 1)   # 3 s < 60 s: restored, the torn bytes cut off
        self.assertIn("debug: journal: game %d: a move cut short by a crash (never answered) is dropped" % g,
                      d.log_tail(100))
        self.assertEqual(d.stop(), 0)
        self.assertAlmostEqual(os.stat(name).st_mtime, last_move, delta=0.01)
        time.sleep(max(0.0, last_move + 6 - time.time()))
        d = self.daemon("--game-timeout", "5")   # 6 s without a move: its time ran out while carcd was down
        with d.client() as c:
            self.assertEqual(harness.code_of(c.state, g), "no_such_game")
            self.assertEqual(c.stats()["games_expired"], 1)

    def test_a_zeroed_tail_after_a_power_loss_costs_the_last_moves_only(self):
        """"The files are written, not synced: after a machine loses power the
        last moves ... may be missing".  A file system that kept the size and
        not the data leaves those records as zero bytes: the game comes back
        at the move before them, with a warn line, and plays on."""
        d = self.daemon()
        with d.client() as c:
            g = c.new_game(["a", "b"], auth=False)["game"]
            self.moves(c, g, 5)
            five = c.state(g)
        self.assertEqual(d.stop(), 0)
        name = self.path("%d.game" % g)
        size = os.path.getsize(name)
        with open(name, "ab") as f:
            f.write(bytes(2 * 16 + 5))   # two records and a torn one that the disk never got
        d = self.daemon()
        with d.client() as c:
            self.assertEqual(c.state(g), five)
            self.moves(c, g, 1)
            six = c.state(g)
        self.assertIn("warn: journal: game %d: its last 2 moves are zero bytes on disk" % g, d.log_tail())
        self.assertEqual(os.path.getsize(name), size + 16)
        self.assertEqual(d.stop(), 0)
        d = self.daemon()
        with d.client() as c:
            self.assertEqual(c.state(g), six)

    def test_zero_bytes_before_good_records_are_damage(self):
        """Zero bytes are a lost tail only at the end: a zeroed record followed
        by others is damage, and the file is set aside."""
        d = self.daemon()
        with d.client() as c:
            g = c.new_game(["a", "b"], auth=False)["game"]
            self.moves(c, g, 3)
        self.assertEqual(d.stop(), 0)
        name = self.path("%d.game" % g)
        with open(name, "r+b") as f:
            f.seek(-2 * 16, os.SEEK_END)
            f.write(bytes(16))
        d = self.daemon()
        with d.client() as c:
            self.assertEqual(harness.code_of(c.state, g), "no_such_game")
        self.assertIn("a move in it fails its checksum", d.log_tail())
        self.assertEqual(self.files(), ["%d.game.broken" % g, "next-id"])

    def test_an_earlier_broken_file_is_kept(self):
        """A file set aside at an earlier start keeps its name; one set aside
        under the same name later is <game>.game.broken.1."""
        d = self.daemon()
        with d.client() as c:
            g = c.new_game(["a", "b"], auth=False)["game"]
        self.assertEqual(d.stop(), 0)
        earlier = b"a file carcd set aside at an earlier start"
        with open(self.path("%d.game.broken" % g), "wb") as f:
            f.write(earlier)
        with open(self.path("%d.game" % g), "r+b") as f:   # this one breaks now
            f.write(b"GARBAGE!")
        d = self.daemon()
        with d.client() as c:
            self.assertEqual(harness.code_of(c.state, g), "no_such_game")
        self.assertIn("not a carcd game file; the game is not restored (the file is renamed %d.game.broken.1)" % g,
                      d.log_tail())
        with open(self.path("%d.game.broken" % g), "rb") as f:
            self.assertEqual(f.read(), earlier)
        with open(self.path("%d.game.broken.1" % g), "rb") as f:
            self.assertTrue(f.read().startswith(b"GARBAGE!"))

    def test_no_id_past_the_last_exact_one(self):
        """Game ids stay exact in JSON: after 2^53-1, new_game answers limit,
        and every game made is restored."""
        d = self.daemon()
        self.assertEqual(d.stop(), 0)
        with open(self.path("next-id"), "w") as f:
            f.write("%020d\n" % MAX_ID)
        d = self.daemon()
        with d.client() as c:
            last = c.new_game(["a"], auth=False)
            self.assertEqual(last["game"], MAX_ID)
            state = c.state(MAX_ID)
            self.assertEqual(error_of(c.new_game, ["b"], auth=False),
                             ("limit", "every game id up to 2^53-1 has been given"))
        self.assertEqual(d.stop(), 0)
        d = self.daemon()
        with d.client() as c:
            self.assertEqual(c.state(MAX_ID), state)
            self.assertEqual(harness.code_of(c.new_game, ["b"], auth=False), "limit")

    def test_a_damaged_next_id_is_reported(self):
        """next-id keeps ids from being given twice: one that does not parse,
        or one missing beside game files, is an error line."""
        d = self.daemon()
        with d.client() as c:
            kept = c.new_game(["a"], auth=False)["game"]
        self.assertEqual(d.stop(), 0)
        with open(self.path("next-id"), "wb") as f:
            f.write(b"\xff garbage, not a number\n")
        d = self.daemon()
        with d.client() as c:
            self.assertEqual(c.state(kept)["seq"], 0)
        self.assertIn("error: journal: %s/next-id is damaged; ids of games closed or set aside before may be given again"
                      % self.dir, d.log_tail())
        self.assertEqual(d.stop(), 0)
        os.unlink(self.path("next-id"))
        d = self.daemon()
        self.assertIn("error: journal: %s/next-id is missing or empty" % self.dir, d.log_tail())
        self.assertEqual(d.stop(), 0)
        d = self.daemon()   # written again at that start: no line now
        self.assertNotIn("next-id", d.log_tail())

    def test_the_lock_does_not_go_with_next_id(self):
        """One carcd a directory: removing next-id under a running carcd does
        not let a second one in."""
        d = self.daemon()
        os.unlink(self.path("next-id"))
        p = subprocess.run([harness.CARCD, "--listen", "unix:" + os.path.join(self.tmp, "s.sock"), "--journal",
                            self.dir], capture_output=True, text=True, timeout=30)
        self.assertEqual(p.returncode, 1, p.stderr)
        self.assertIn("error: journal: %s is in use by another carcd" % self.dir, p.stderr)
        self.assertTrue(d.alive())



class NobodysJournal:
    """carcd as the user nobody, its journal nobody's, so that a file mode
    can refuse it what root would be allowed; a mixin of TestCases, which
    run_carcd() and stop() start and stop it."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="carcd-nobody-")
        os.chmod(self.tmp, 0o711)
        self.dir = os.path.join(self.tmp, "journal")
        run_dir = os.path.join(self.tmp, "run")   # where nobody may make its socket
        for d in (self.dir, run_dir):
            os.mkdir(d, 0o700)
            os.chown(d, 65534, 65534)
        self.sock = os.path.join(run_dir, "s.sock")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def run_carcd(self):
        p = subprocess.Popen(harness.AS_NOBODY + [harness.CARCD, "--listen", "unix:" + self.sock, "--journal", self.dir],
                             stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        address = "unix:" + self.sock
        harness.wait_for(lambda: harness.answers(address) or p.poll() is not None, harness.START_TIMEOUT)
        self.assertTrue(harness.answers(address), "carcd as nobody did not come up")
        return p

    def stop(self, p):
        """Stops it; its stderr."""
        p.terminate()
        err = p.communicate(timeout=30)[1].decode(errors="replace")
        self.assertEqual(p.returncode, 0, err)
        return err

    def client(self):
        return carcd.Client("unix:" + self.sock)


@harness.needs_nobody
class Audit14NobodysJournal(NobodysJournal, unittest.TestCase):
    def test_a_closed_game_in_a_directory_gone_read_only_is_not_restored(self):
        """No mark can be made in a directory carcd may no longer write: the
        closed game's file is emptied instead, and the next start sets it
        aside rather than serving the closed game."""
        p = self.run_carcd()
        with self.client() as c:
            made = c.new_game(["a", "b"])
        self.stop(p)
        p = self.run_carcd()
        os.chmod(self.dir, 0o500)   # read-only to carcd from now on
        with self.client() as c:
            c.close_game(made["game"], made["admin_token"])
        err = self.stop(p)
        self.assertIn("cannot remove %s/%d.game: Permission denied; emptied it, so that no restart restores it"
                      % (self.dir, made["game"]), err)
        os.chmod(self.dir, 0o700)
        p = self.run_carcd()
        with self.client() as c:
            self.assertEqual(harness.code_of(c.state, made["game"]), "no_such_game")
        err = self.stop(p)
        self.assertIn("%d.game: shorter than a game's header" % made["game"], err)


if __name__ == "__main__":
    unittest.main()
